import type { Decimal } from 'decimal.js';
import { sumAmounts, toAmount, type AmountLike } from '../money.js';

export interface CashDrawerMovements {
  opening_amount: AmountLike;
  /** Cash payment amounts of the session's completed operations; returns pay out, so they are negative. */
  cash_payments: readonly AmountLike[];
  /** Signed `session_cash_adjustment` amounts (negative is cash out). */
  adjustments: readonly AmountLike[];
}

/** What the drawer should hold at count time (DESIGN "Style M resources the contract does not show"). */
export function expectedClosingAmount(movements: CashDrawerMovements): Decimal {
  return toAmount(movements.opening_amount)
    .plus(sumAmounts(movements.cash_payments))
    .plus(sumAmounts(movements.adjustments));
}

/** Signed `closing_cashcount_diff`: counted minus expected, so a shortage is negative. */
export function cashCountDifference(counted: AmountLike, expected: AmountLike): Decimal {
  return toAmount(counted).minus(toAmount(expected));
}

/**
 * A drawer never holds less than nothing: opening and counted amounts, and what
 * is left after a closing cash-out, must not be negative (contract 7 lists
 * invalid counts or amounts under `session_invalid_state`).
 */
export function isPossibleDrawerAmount(amount: AmountLike): boolean {
  return !toAmount(amount).lt(0);
}
