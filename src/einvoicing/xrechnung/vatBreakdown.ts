import type { InvoiceVatBreakdownRow } from '../invoiceDocument.js';
import { ciiAmount, ciiPercent } from './ciiValues.js';
import { exemptionReasonOf, isVatCategoryCode } from './vatCategory.js';
import type { XmlNode } from './xmlNode.js';

/** One BG-23 entry: a VAT category at one rate. */
export interface VatBreakdownEntry {
  category: string;
  /** BT-119 as written ("19"). */
  ratePercent: string;
  taxableAmount: number;
  taxAmount: number;
}

/**
 * The invoice's breakdown rows merged per (category, rate): rows that differ only in the
 * Italian natura code are one entry in EN 16931, which allows a single E, AE, K, G or O
 * entry (BR-E-01, BR-AE-01, ...). First-seen order.
 */
export function vatBreakdownEntries(rows: readonly InvoiceVatBreakdownRow[]): VatBreakdownEntry[] {
  const entries = new Map<string, VatBreakdownEntry>();
  for (const row of rows) {
    const ratePercent = ciiPercent(row.vatRate);
    const key = `${row.vatCategory} ${ratePercent}`;
    const entry = entries.get(key) ?? { category: row.vatCategory, ratePercent, taxableAmount: 0, taxAmount: 0 };
    entry.taxableAmount += row.taxableAmount;
    entry.taxAmount += row.taxAmount;
    entries.set(key, entry);
  }
  return [...entries.values()];
}

/** BG-23 as ram:ApplicableTradeTax; XRechnung wants the rate on every entry (BR-DE-14), 0 for O. */
export function headerTradeTax(entry: VatBreakdownEntry, currency: string): XmlNode {
  const reason = isVatCategoryCode(entry.category) ? exemptionReasonOf(entry.category) : null;
  return {
    'ram:CalculatedAmount': ciiAmount(entry.taxAmount, currency),
    'ram:TypeCode': 'VAT',
    ...(reason ? { 'ram:ExemptionReason': reason.text } : {}),
    'ram:BasisAmount': ciiAmount(entry.taxableAmount, currency),
    'ram:CategoryCode': entry.category,
    ...(reason?.code ? { 'ram:ExemptionReasonCode': reason.code } : {}),
    'ram:RateApplicablePercent': entry.ratePercent,
  };
}
