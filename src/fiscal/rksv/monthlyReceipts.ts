import { localDateTimeOf } from '../../domain/localTime.js';
import { VIENNA } from './receiptCode.js';

/** yyyy-MM of an instant in Austria. */
export function viennaMonth(at: Date): string {
  const local = localDateTimeOf(at, VIENNA);
  return `${local.year}-${local.month}`;
}

/** The receipt that closes `month` (yyyy-MM): the monthly receipt, December's being the annual receipt. */
export function closingTypeOf(month: string): 'monthly' | 'annual' {
  return month.endsWith('-12') ? 'annual' : 'monthly';
}

/**
 * The monthly receipt due before a receipt signed at `now` (DESIGN "Austria:
 * RKSV"): when the register last signed in an earlier month that no monthly
 * or annual receipt has closed yet, that month's; the annual receipt when the
 * month is December. Null when none is due.
 */
export function dueClosingReceipt(
  lastSignedAt: Date | null,
  closedMonth: string | null,
  now: Date,
): { type: 'monthly' | 'annual'; month: string } | null {
  if (!lastSignedAt) return null;
  const lastMonth = viennaMonth(lastSignedAt);
  if (lastMonth >= viennaMonth(now) || (closedMonth !== null && closedMonth >= lastMonth)) return null;
  return { type: closingTypeOf(lastMonth), month: lastMonth };
}
