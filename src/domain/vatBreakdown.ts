import { Decimal } from 'decimal.js';
import { sumAmounts, toAmount, type AmountLike } from './money.js';
import { allocateDiscountByGross } from './vatAllocation.js';

/** One VAT rate's turnover: the rate as a fraction (0.19) and the tax-inclusive gross under it. */
export interface RateGross {
  rate: Decimal;
  gross: Decimal;
}

/** What a goods movement's turnover per VAT rate is made of; amounts are tax-inclusive. */
export interface GoodsTurnover {
  lines: readonly { rate: AmountLike; gross: AmountLike }[];
  cartDiscounts: readonly AmountLike[];
  tip: AmountLike;
}

/** One row of a receipt's VAT table; net + tax = gross. */
export interface VatRow {
  rate: Decimal;
  gross: Decimal;
  tax: Decimal;
  net: Decimal;
}

/** A receipt's VAT table: its rows and, as their column sums, its total row. */
export interface VatTable {
  rows: VatRow[];
  total: { gross: Decimal; tax: Decimal; net: Decimal };
}

/** Orders rates for grossByVatRate: the rows' order, and the discount remainder's tie rule. */
export type RateOrder = (a: Decimal, b: Decimal) => number;

export const highestRateFirst: RateOrder = (a, b) => b.comparedTo(a);

/**
 * The VAT rate a line's gross is taxed at: a gift card is not taxable (0); a line with
 * several taxes carries their sum, as its tax is total × Σ rates / (1 + Σ rates) (contract 2.2).
 */
export function vatRateOfLine(line: { type: string; taxes: readonly { rate: AmountLike }[] }): Decimal {
  return line.type === 'gift_card' ? toAmount('0') : sumAmounts(line.taxes.map((tax) => tax.rate));
}

const half = (value: Decimal, places: number): Decimal => value.toDecimalPlaces(places, Decimal.ROUND_HALF_UP);

/**
 * Gross turnover per VAT rate, as a fiscal signature records it and a receipt prints it:
 * the line totals under their rate, less the cart-level discounts spread over the rates in
 * proportion to their gross (allocateDiscountByGross at `places`; the remainder goes to the
 * largest gross, the first of equals in `order`), plus the tip under rate 0 (it is not
 * taxable), each rounded half up to `places` once. One entry per rate a line carries (and
 * rate 0 for a tip), in `order`.
 */
export function grossByVatRate(turnover: GoodsTurnover, places: number, order: RateOrder = highestRateFirst): RateGross[] {
  const byRate = new Map<string, RateGross>();
  const add = (rate: Decimal, gross: Decimal) => {
    const key = rate.toString();
    byRate.set(key, { rate, gross: (byRate.get(key)?.gross ?? toAmount('0')).plus(gross) });
  };
  for (const line of turnover.lines) add(toAmount(line.rate), toAmount(line.gross));
  const groups = [...byRate.values()].sort((a, b) => order(a.rate, b.rate));

  const discount = sumAmounts(turnover.cartDiscounts);
  const linesGross = sumAmounts(groups.map((group) => group.gross));
  if (!discount.isZero() && !linesGross.isZero()) {
    const shares = allocateDiscountByGross(discount, new Map(groups.map((group) => [group, group.gross])), places);
    for (const group of groups) group.gross = group.gross.minus(shares.get(group)!);
  }

  const tip = toAmount(turnover.tip);
  if (!tip.isZero()) {
    const zero = groups.find((group) => group.rate.isZero());
    if (zero) zero.gross = zero.gross.plus(tip);
    else groups.push({ rate: toAmount('0'), gross: tip });
    groups.sort((a, b) => order(a.rate, b.rate));
  }
  return groups.map((group) => ({ rate: group.rate, gross: half(group.gross, places) }));
}

/**
 * The VAT table of a receipt from its gross per rate: each row's gross in `places`
 * (rounded half up), its tax computed once from that gross, gross × rate / (1 + rate)
 * rounded half up (away from zero, so a return mirrors its sale) to `places`, its net the
 * difference; the total row is the sum of the rows, so the printed table adds up.
 */
export function vatTable(grossByRate: readonly { rate: AmountLike; gross: AmountLike }[], places: number): VatTable {
  const rows = grossByRate.map((entry): VatRow => {
    const rate = toAmount(entry.rate);
    const gross = half(toAmount(entry.gross), places);
    const tax = half(gross.times(rate).dividedBy(rate.plus(1)), places);
    return { rate, gross, tax, net: gross.minus(tax) };
  });
  return {
    rows,
    total: {
      gross: sumAmounts(rows.map((row) => row.gross)),
      tax: sumAmounts(rows.map((row) => row.tax)),
      net: sumAmounts(rows.map((row) => row.net)),
    },
  };
}
