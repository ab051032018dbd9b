import { Decimal } from 'decimal.js';
import { fromMinorUnits, toAmount } from '../../domain/money.js';
import type { InvoiceDocumentLine } from '../invoiceDocument.js';
import { MAX_DECIMALS, fatturaPaDecimal } from './amounts.js';

export interface ScontoMaggiorazione {
  Tipo: 'SC' | 'MG';
  Importo: string;
}

/** The amounts of one DettaglioLinee, as decimals and as the XML writes them. */
export interface LineAmounts {
  Quantita: string;
  PrezzoUnitario: string;
  ScontoMaggiorazione: ScontoMaggiorazione | undefined;
  PrezzoTotale: string;
  /** PrezzoTotale as a number, for DatiRiepilogo's sums. */
  prezzoTotale: Decimal;
}

/**
 * Most decimals of a quantity: a unit price carries up to 2, so quantity x unit price keeps
 * within PrezzoTotale's 8 decimals (Amount8DecimalType) and is written exactly.
 */
export const MAX_QUANTITY_DECIMALS = MAX_DECIMALS - 2;

/**
 * PrezzoUnitario, Quantita, the line's discount and PrezzoTotale such that
 * PrezzoTotale = (PrezzoUnitario - sconto) x Quantita holds exactly in the document's numbers.
 *
 * A line-level ScontoMaggiorazione applies to the unit price, so the line's discount (an
 * amount for the whole line) is written per unit: discount / quantity, rounded half-up to as
 * many decimals as keep sconto x Quantita within 8 (8 minus the quantity's decimals). Quantita
 * cannot be negative (QuantitaType): a negative quantity is written as its absolute value with
 * the unit price negated, which leaves the product unchanged. PrezzoTotale is the product
 * itself, not the line's net amount rounded to minor units; the two differ by less than one
 * minor unit, and DatiRiepilogo's Arrotondamento carries the difference to the rounded taxable
 * amount (see `riepilogo.ts`). A discount that is a negative amount is a surcharge (MG).
 */
export function lineAmountsOf(line: InvoiceDocumentLine, currency: string): LineAmounts {
  const quantity = toAmount(line.quantity);
  if (quantity.decimalPlaces() > MAX_QUANTITY_DECIMALS) throw new RangeError(`line ${line.position}: quantity ${line.quantity} has more than ${MAX_QUANTITY_DECIMALS} decimals`);
  const units = quantity.abs();
  const unitPrice = fromMinorUnits(line.unitPriceNet, currency).times(quantity.isNegative() ? -1 : 1);
  const discount = line.discount === null ? undefined : fromMinorUnits(line.discount.amount, currency);

  let perUnitDiscount = toAmount('0');
  let sconto: ScontoMaggiorazione | undefined;
  if (discount !== undefined && !discount.isZero()) {
    if (units.isZero()) throw new RangeError(`line ${line.position}: a discount needs a quantity other than 0`);
    perUnitDiscount = discount.dividedBy(units).toDecimalPlaces(MAX_DECIMALS - units.decimalPlaces(), Decimal.ROUND_HALF_UP);
    sconto = { Tipo: perUnitDiscount.isNegative() ? 'MG' : 'SC', Importo: fatturaPaDecimal(perUnitDiscount.abs()) };
  }
  const prezzoTotale = unitPrice.minus(perUnitDiscount).times(units);
  return {
    Quantita: fatturaPaDecimal(units),
    PrezzoUnitario: fatturaPaDecimal(unitPrice),
    ScontoMaggiorazione: sconto,
    PrezzoTotale: fatturaPaDecimal(prezzoTotale),
    prezzoTotale,
  };
}
