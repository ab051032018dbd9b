import { Decimal } from 'decimal.js';
import { formatAmount, parseAmount } from './money.js';

/** One RT document as a daily closure totals it: gross per rate ("0.22") or natura ("N4"), positive also on a return. */
export interface RtJournaledDocument {
  kind: 'sale' | 'return';
  totals: { tax: string; gross: string }[];
  paidCash: string;
  paidElectronic: string;
}

/**
 * A fiscal day's summary for one rate or natura, as the COR10 Riepilogo carries
 * it (reference italy.md §6): `amount` is the sales' taxable base (for a natura
 * the amount itself), `returns` the returns' base, `tax` the VAT on what is
 * left after the returns (the base ImportoParziale). Decimal strings, 2 places.
 */
export interface RtDayTotal {
  tax: string;
  amount: string;
  taxAmount: string;
  returns: string;
}

export interface RtDayTotals {
  documentCount: number;
  totals: RtDayTotal[];
  paidCash: string;
  paidElectronic: string;
}

const isNatura = (key: string) => key.startsWith('N');

/** The base within a gross amount at `rate`, to the cent. */
const baseOf = (gross: Decimal, key: string) => (isNatura(key) ? gross : gross.dividedBy(new Decimal(key).plus(1))).toDecimalPlaces(2);

/**
 * The totals of a fiscal day: gross is summed per rate over the day first and
 * split into base and tax once, so the day's tax is not a sum of per-document
 * roundings. Payments: returns pay money back, so they count against the day's
 * cash and electronic takings. Rates come first, highest first, then natura codes.
 */
export function rtDayTotals(documents: RtJournaledDocument[]): RtDayTotals {
  const sales = new Map<string, Decimal>();
  const returns = new Map<string, Decimal>();
  let cash = new Decimal(0);
  let electronic = new Decimal(0);
  for (const document of documents) {
    const into = document.kind === 'sale' ? sales : returns;
    for (const { tax, gross } of document.totals) into.set(tax, (into.get(tax) ?? new Decimal(0)).plus(parseAmount(gross)));
    const sign = document.kind === 'sale' ? 1 : -1;
    cash = cash.plus(parseAmount(document.paidCash).times(sign));
    electronic = electronic.plus(parseAmount(document.paidElectronic).times(sign));
  }
  const keys = [...new Set([...sales.keys(), ...returns.keys()])].sort((a, b) =>
    isNatura(a) === isNatura(b) ? (isNatura(a) ? a.localeCompare(b) : new Decimal(b).comparedTo(new Decimal(a))) : isNatura(a) ? 1 : -1,
  );
  const totals = keys.map((key) => {
    const soldGross = sales.get(key) ?? new Decimal(0);
    const returnedGross = returns.get(key) ?? new Decimal(0);
    const amount = baseOf(soldGross, key);
    const returned = baseOf(returnedGross, key);
    const taxAmount = isNatura(key) ? new Decimal(0) : soldGross.minus(returnedGross).minus(amount.minus(returned));
    return { tax: key, amount: formatAmount(amount, 2), taxAmount: formatAmount(taxAmount, 2), returns: formatAmount(returned, 2) };
  });
  return { documentCount: documents.length, totals, paidCash: formatAmount(cash, 2), paidElectronic: formatAmount(electronic, 2) };
}
