import { Decimal } from 'decimal.js';
import { toAmount, type AmountLike } from '../money.js';

export const TAX_AMOUNT_DECIMALS = 8;

/**
 * Divides by truncating far beyond the 8th decimal; rounding that half-up at 8 places gives
 * the same result as rounding the exact quotient, because the half-way points (9 decimals)
 * are themselves representable and truncation cannot carry a value across one. Rounding
 * the quotient twice half-up could.
 */
const Truncating = Decimal.clone({ precision: 100, rounding: Decimal.ROUND_DOWN });

/**
 * Tax of each rate of one line (contract 2.2): `total × rate_i / (1 + Σ rate_j)`, rounded
 * ROUND_HALF_UP (half away from zero, so a return's tax mirrors the sale's) to 8 decimals.
 * The line total is tax-inclusive. Rates must be non-negative.
 */
export function computeLineTaxAmounts(lineTotal: AmountLike, rates: readonly AmountLike[]): Decimal[] {
  const parsed = rates.map(toAmount);
  if (parsed.some((rate) => rate.lt(0))) throw new RangeError('tax rates must not be negative');
  const divisor = parsed.reduce((sum, rate) => sum.plus(rate), new Truncating(1));
  const total = new Truncating(toAmount(lineTotal));
  return parsed.map((rate) =>
    toAmount(total.times(rate).dividedBy(divisor).toDecimalPlaces(TAX_AMOUNT_DECIMALS, Decimal.ROUND_HALF_UP)),
  );
}
