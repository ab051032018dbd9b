import { Decimal } from 'decimal.js';
import { fromMinorUnits, toAmount } from '../../domain/money.js';

/** Most decimals an Amount8DecimalType (PrezzoUnitario, PrezzoTotale, sconto, Arrotondamento) or a Quantita carries. */
export const MAX_DECIMALS = 8;

/**
 * A decimal as the XSD's amount and quantity types write it: no exponent, at least two
 * decimals, more only when the value has them. Never rounds; negative zero prints as 0.00.
 */
export function fatturaPaDecimal(value: Decimal): string {
  const d = value.isZero() ? toAmount('0') : value;
  return d.toFixed(Math.max(2, d.decimalPlaces()));
}

/**
 * Minor units as an Amount2DecimalType (ImportoTotaleDocumento, ImponibileImporto, Imposta,
 * ImportoPagamento). A currency with three or more decimals cannot be written: the
 * validation rules refuse it before anything is built.
 */
export function amount2(minor: number, currency: string): string {
  const value = fromMinorUnits(minor, currency);
  if (value.decimalPlaces() > 2) throw new RangeError(`${value.toFixed()} ${currency} does not fit two decimals`);
  return value.isZero() ? '0.00' : value.toFixed(2);
}

/** A rate as a decimal fraction ("0.22") as AliquotaIVA writes it: a percentage with two decimals ("22.00"). */
export function percentage(rate: string): string {
  const percent = toAmount(rate).times(100);
  if (percent.decimalPlaces() > 2) throw new RangeError(`rate ${rate} is not a percentage with two decimals`);
  return percent.toFixed(2);
}
