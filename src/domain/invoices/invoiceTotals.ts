import { Decimal } from 'decimal.js';
import { allocateProportionally, normalizeRate, roundMinor, type Minor, type TaxBreakdownEntry, type Totals } from '../styleO/totals.js';
import type { VatCategory } from './vatCategory.js';

/**
 * Invoice amounts, in integer minor units. Prices are net (before VAT). Each amount is rounded
 * once, half up (away from zero), to a whole minor unit:
 *
 * - a line: quantity × unit_price_net, rounded; less its discount (an amount as given, or the
 *   rate times that product, rounded) gives line_total_net;
 * - VAT per breakdown row (rate, category, natura): the row's taxable amount (the sum of its
 *   lines' nets) times the rate, rounded once, as EN 16931 (BR-CO-17) and FatturaPA
 *   (DatiRiepilogo/Imposta) compute it;
 * - a line's line_total_tax: its row's VAT spread over the row's lines in proportion to their
 *   nets (largest remainder), so the lines add up to the row exactly; line_total_gross is
 *   net + tax.
 *
 * Totals follow contract 2.8: subtotal_gross is what the lines would cost before their
 * discounts, taxed per row the same way; total_line_discounts is what the discounts take off
 * that, VAT included; invoices carry no cart discounts and no rounding adjustment, so
 * subtotal_after_all_discounts = total_gross = total_net + total_tax. net_payable is
 * total_gross, negated on a credit note (the seller owes the buyer).
 */
export type InvoiceLineDiscountInput = { type: 'amount'; amount: Minor } | { type: 'rate'; rate: string };

export interface InvoiceLineInput {
  quantity: string;
  unitPriceNet: Minor;
  discount: InvoiceLineDiscountInput | null;
  rate: string;
  category: VatCategory;
  natureCode: string | null;
}

export interface InvoiceLineAmounts {
  /** quantity × unit price, before the discount. */
  base: Minor;
  discountAmount: Minor;
  net: Minor;
  tax: Minor;
  gross: Minor;
}

/** A breakdown row of contract 2.8, with the invoice's VAT category and Italian natura. */
export interface InvoiceTaxBreakdownRow extends TaxBreakdownEntry {
  category: VatCategory;
  nature_code: string | null;
}

/** Contract 2.8 totals, with the invoice's breakdown rows. */
export interface InvoiceTotals extends Omit<Totals, 'tax_breakdown'> {
  tax_breakdown: InvoiceTaxBreakdownRow[];
}

const D = Decimal.clone({ precision: 60, rounding: Decimal.ROUND_HALF_UP });

/** A line's amounts before VAT: its base, its discount and their difference (negative when the discount exceeds the base). */
export function lineNetOf(line: Pick<InvoiceLineInput, 'quantity' | 'unitPriceNet' | 'discount'>): { base: Minor; discountAmount: Minor; net: Minor } {
  const base = roundMinor(new D(line.quantity).times(line.unitPriceNet));
  const discountAmount =
    line.discount === null ? 0 : line.discount.type === 'amount' ? line.discount.amount : roundMinor(new D(base).times(line.discount.rate));
  return { base, discountAmount, net: base - discountAmount };
}

const rowKey = (line: InvoiceLineInput) => `${normalizeRate(line.rate)}|${line.category}|${line.natureCode ?? ''}`;

const taxOf = (taxable: Minor, rate: string): Minor => roundMinor(new D(taxable).times(normalizeRate(rate)));

export interface InvoiceAmounts {
  lines: InvoiceLineAmounts[];
  totals: InvoiceTotals;
}

/** Every amount of an invoice from its lines (see above); rows in the order their first line appears. */
export function invoiceAmounts(lines: readonly InvoiceLineInput[], options: { creditNote: boolean }): InvoiceAmounts {
  const nets = lines.map(lineNetOf);
  const rows = new Map<string, { row: InvoiceTaxBreakdownRow; members: number[]; base: Minor }>();
  lines.forEach((line, index) => {
    const key = rowKey(line);
    const entry = rows.get(key) ?? {
      row: { rate: normalizeRate(line.rate), category: line.category, nature_code: line.natureCode, taxable_amount: 0, tax_amount: 0, total_gross: 0 },
      members: [],
      base: 0,
    };
    entry.row.taxable_amount += nets[index].net;
    entry.base += nets[index].base;
    entry.members.push(index);
    rows.set(key, entry);
  });

  const taxes = new Array<Minor>(lines.length).fill(0);
  let subtotalGross = 0;
  for (const { row, members, base } of rows.values()) {
    row.tax_amount = taxOf(row.taxable_amount, row.rate);
    row.total_gross = row.taxable_amount + row.tax_amount;
    const shares = allocateProportionally(row.tax_amount, members.map((index) => nets[index].net));
    members.forEach((index, i) => (taxes[index] = shares[i]));
    subtotalGross += base + taxOf(base, row.rate);
  }

  const breakdown = [...rows.values()].map(({ row }) => row);
  const totalNet = breakdown.reduce((sum, row) => sum + row.taxable_amount, 0);
  const totalTax = breakdown.reduce((sum, row) => sum + row.tax_amount, 0);
  const totalGross = totalNet + totalTax;
  return {
    lines: nets.map((amounts, index) => ({ ...amounts, tax: taxes[index], gross: amounts.net + taxes[index] })),
    totals: {
      subtotal_gross: subtotalGross,
      total_line_discounts: subtotalGross - totalGross,
      subtotal_after_line_discounts: totalGross,
      total_cart_discounts: 0,
      subtotal_after_all_discounts: totalGross,
      rounding_adjustment: 0,
      total_gross: totalGross,
      total_net: totalNet,
      total_tax: totalTax,
      tax_breakdown: breakdown,
      net_payable: options.creditNote && totalGross !== 0 ? -totalGross : totalGross,
    },
  };
}
