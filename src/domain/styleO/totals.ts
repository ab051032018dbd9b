import { Decimal } from 'decimal.js';

/**
 * Style O amounts (contract 2.8): integers in minor units of the currency.
 * Every function here is exact: it works on safe integers, uses decimal.js
 * only where a rate or a quantity ratio is involved, and rounds once, half up
 * (half away from zero), to a whole minor unit.
 */
export type Minor = number;

const D = Decimal.clone({ precision: 60, rounding: Decimal.ROUND_HALF_UP });

function assertMinor(value: number, what: string): void {
  if (!Number.isSafeInteger(value)) throw new RangeError(`${what} must be a safe integer of minor units, got ${value}`);
}

/** Rounds a decimal to a whole minor unit, half away from zero; never returns -0. */
export function roundMinor(value: Decimal.Value): Minor {
  const rounded = new D(value).toDecimalPlaces(0, Decimal.ROUND_HALF_UP).toNumber();
  if (!Number.isSafeInteger(rounded)) throw new RangeError(`${String(value)} does not fit a safe integer of minor units`);
  return rounded === 0 ? 0 : rounded;
}

/** A tax rate as a canonical decimal string: "0.19", "0.070" -> "0.07", "0" -> "0". */
export function normalizeRate(rate: string): string {
  const value = new D(rate);
  if (!value.isFinite() || value.isNegative()) throw new RangeError(`not a tax rate: ${rate}`);
  return value.toString();
}

/** The tax contained in a tax-inclusive gross amount: gross × rate / (1 + rate), rounded half up. */
export function includedTax(gross: Minor, rate: string): Minor {
  assertMinor(gross, 'gross');
  const r = new D(normalizeRate(rate));
  if (r.isZero()) return 0;
  return roundMinor(new D(gross).times(r).dividedBy(r.plus(1)));
}

/**
 * Splits `total` over `weights` in proportion (largest remainder): the parts
 * sum to `total` exactly; ties go to the earlier weight. Zero weights get
 * nothing unless every weight is zero, when the first part takes it all.
 */
export function allocateProportionally(total: Minor, weights: readonly Minor[]): Minor[] {
  assertMinor(total, 'total');
  weights.forEach((weight, i) => {
    assertMinor(weight, `weights[${i}]`);
    if (weight < 0) throw new RangeError(`weights[${i}] must not be negative`);
  });
  if (weights.length === 0) {
    if (total !== 0) throw new RangeError('nothing to allocate to');
    return [];
  }
  const sum = weights.reduce((a, b) => a + b, 0);
  if (sum === 0) return weights.map((_, i) => (i === 0 ? total : 0));
  const sign = total < 0 ? -1 : 1;
  const magnitude = Math.abs(total);
  const exact = weights.map((weight) => new D(magnitude).times(weight).dividedBy(sum));
  const parts = exact.map((value) => value.floor().toNumber());
  let remainder = magnitude - parts.reduce((a, b) => a + b, 0);
  const order = exact
    .map((value, i) => ({ i, fraction: value.minus(value.floor()) }))
    .sort((a, b) => b.fraction.comparedTo(a.fraction) || a.i - b.i);
  for (const { i } of order) {
    if (remainder === 0) break;
    parts[i] += 1;
    remainder -= 1;
  }
  return parts.map((part) => (part === 0 ? 0 : sign * part));
}

/**
 * The part of `amount` that belongs to the quantities between `before` and
 * `after` of `whole` (0 <= before <= after <= whole): round(amount × after /
 * whole) − round(amount × before / whole). The parts of consecutive ranges
 * telescope, so refunding a line piece by piece refunds exactly its amount.
 */
export function quantityShare(amount: Minor, before: Decimal.Value, after: Decimal.Value, whole: Decimal.Value): Minor {
  assertMinor(amount, 'amount');
  const b = new D(before);
  const a = new D(after);
  const w = new D(whole);
  if (!w.gt(0) || b.isNegative() || a.lt(b) || a.gt(w)) {
    throw new RangeError(`quantity range ${b.toString()}..${a.toString()} is outside 0..${w.toString()}`);
  }
  const cumulative = (q: Decimal): Minor => (q.eq(w) ? amount : roundMinor(new D(amount).times(q).dividedBy(w)));
  const share = cumulative(a) - cumulative(b);
  return share === 0 ? 0 : share;
}

export interface LineAmountsInput {
  subtotal_gross: Minor;
  line_discounts: readonly { amount: Minor }[];
  cart_discount_allocations: readonly { amount: Minor }[];
  tax_rate: string;
  /** The line's tax when it is already known (a share of an original line's tax); computed from the rate otherwise. */
  tax_amount?: Minor;
}

export interface LineAmounts {
  subtotal_gross: Minor;
  line_discount_amount: Minor;
  subtotal_after_line_discounts: Minor;
  cart_discount_amount: Minor;
  total_gross: Minor;
  taxable_amount: Minor;
  tax_amount: Minor;
  total_net: Minor;
}

const sum = (values: readonly Minor[]): Minor => values.reduce((a, b) => a + b, 0);

/**
 * One line (contract 2.8): subtotal_gross − line discounts = subtotal after
 * line discounts; − allocated cart discounts = total_gross; prices include
 * tax, so total_gross = total_net + tax.
 */
export function lineAmounts(input: LineAmountsInput): LineAmounts {
  assertMinor(input.subtotal_gross, 'subtotal_gross');
  const lineDiscount = sum(input.line_discounts.map((d) => d.amount));
  const cartDiscount = sum(input.cart_discount_allocations.map((d) => d.amount));
  const afterLine = input.subtotal_gross - lineDiscount;
  const totalGross = afterLine - cartDiscount;
  const tax = input.tax_amount ?? includedTax(totalGross, input.tax_rate);
  assertMinor(tax, 'tax_amount');
  return {
    subtotal_gross: input.subtotal_gross,
    line_discount_amount: lineDiscount,
    subtotal_after_line_discounts: afterLine,
    cart_discount_amount: cartDiscount,
    total_gross: totalGross,
    taxable_amount: totalGross - tax,
    tax_amount: tax,
    total_net: totalGross - tax,
  };
}

export interface TaxBreakdownEntry {
  rate: string;
  category: string;
  taxable_amount: Minor;
  tax_amount: Minor;
  total_gross: Minor;
}

export interface Totals {
  subtotal_gross: Minor;
  total_line_discounts: Minor;
  subtotal_after_line_discounts: Minor;
  total_cart_discounts: Minor;
  subtotal_after_all_discounts: Minor;
  rounding_adjustment: Minor;
  total_gross: Minor;
  total_net: Minor;
  total_tax: Minor;
  tax_breakdown: TaxBreakdownEntry[];
  net_payable: Minor;
}

export type MoneyDirection = 'charge' | 'refund';

export interface TotalsOptions {
  /** `refund`: the money goes back to the customer, so net_payable is negative. */
  direction: MoneyDirection;
  /** Added to total_gross (cash rounding); untaxed, so it lands in total_net. */
  rounding_adjustment?: Minor;
  /** Paid on top of the goods and not taxed (a Style M tip); only on charges. */
  untaxed_payable?: Minor;
}

/**
 * Document totals (contract 2.8) from its lines:
 * subtotal_gross − total_line_discounts = subtotal_after_line_discounts;
 * − total_cart_discounts = subtotal_after_all_discounts; + rounding_adjustment
 * = total_gross = total_net + total_tax. tax_breakdown sums the lines per
 * (rate, category) in order of first appearance. net_payable is what the
 * customer pays (total_gross plus any untaxed payable) or, on a refund, minus
 * what they get back; it is the only amount that may be negative.
 */
export function computeTotals(
  lines: readonly (LineAmounts & { tax_rate: string; tax_category: string })[],
  options: TotalsOptions,
): Totals {
  const rounding = options.rounding_adjustment ?? 0;
  const untaxed = options.untaxed_payable ?? 0;
  assertMinor(rounding, 'rounding_adjustment');
  assertMinor(untaxed, 'untaxed_payable');
  if (options.direction === 'refund' && untaxed !== 0) throw new RangeError('a refund carries no untaxed payable');

  const subtotalGross = sum(lines.map((line) => line.subtotal_gross));
  const lineDiscounts = sum(lines.map((line) => line.line_discount_amount));
  const cartDiscounts = sum(lines.map((line) => line.cart_discount_amount));
  const afterLine = subtotalGross - lineDiscounts;
  const afterAll = afterLine - cartDiscounts;
  const totalGross = afterAll + rounding;
  const totalTax = sum(lines.map((line) => line.tax_amount));

  const breakdown = new Map<string, TaxBreakdownEntry>();
  for (const line of lines) {
    const rate = normalizeRate(line.tax_rate);
    const key = `${rate}|${line.tax_category}`;
    const entry = breakdown.get(key) ?? { rate, category: line.tax_category, taxable_amount: 0, tax_amount: 0, total_gross: 0 };
    entry.taxable_amount += line.taxable_amount;
    entry.tax_amount += line.tax_amount;
    entry.total_gross += line.total_gross;
    breakdown.set(key, entry);
  }

  const payable = options.direction === 'refund' ? -totalGross : totalGross + untaxed;
  return {
    subtotal_gross: subtotalGross,
    total_line_discounts: lineDiscounts,
    subtotal_after_line_discounts: afterLine,
    total_cart_discounts: cartDiscounts,
    subtotal_after_all_discounts: afterAll,
    rounding_adjustment: rounding,
    total_gross: totalGross,
    total_net: totalGross - totalTax,
    total_tax: totalTax,
    tax_breakdown: [...breakdown.values()],
    net_payable: payable === 0 ? 0 : payable,
  };
}

/** The derivation rules of contract 2.8 that a Totals object must satisfy; empty when it does. */
export function totalsViolations(totals: Totals, direction: MoneyDirection): string[] {
  const problems: string[] = [];
  const check = (ok: boolean, rule: string) => {
    if (!ok) problems.push(rule);
  };
  check(totals.subtotal_gross - totals.total_line_discounts === totals.subtotal_after_line_discounts, 'subtotal_after_line_discounts');
  check(
    totals.subtotal_after_line_discounts - totals.total_cart_discounts === totals.subtotal_after_all_discounts,
    'subtotal_after_all_discounts',
  );
  check(totals.subtotal_after_all_discounts + totals.rounding_adjustment === totals.total_gross, 'total_gross');
  check(totals.total_net + totals.total_tax === totals.total_gross, 'total_net + total_tax');
  check(sum(totals.tax_breakdown.map((entry) => entry.tax_amount)) === totals.total_tax, 'tax_breakdown.tax_amount');
  check(
    totals.tax_breakdown.every((entry) => entry.taxable_amount + entry.tax_amount === entry.total_gross),
    'tax_breakdown.total_gross',
  );
  check(
    sum(totals.tax_breakdown.map((entry) => entry.total_gross)) === totals.subtotal_after_all_discounts,
    'tax_breakdown sums the lines',
  );
  check(direction === 'refund' ? totals.net_payable === -totals.total_gross : totals.net_payable >= totals.total_gross, 'net_payable');
  return problems;
}
