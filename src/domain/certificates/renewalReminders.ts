import { DAY_MS } from '../dayLength.js';

/** Renewal reminders go out this many days before valid_until (contract 6). */
export const REMINDER_THRESHOLDS_DAYS: readonly number[] = [60, 30, 7];

export interface DueReminder {
  /** The threshold this reminder is for (one of REMINDER_THRESHOLDS_DAYS). */
  thresholdDays: number;
  /** Whole days left until valid_until, rounded up: 60 at exactly 60 days, 1 in the last day. */
  daysLeft: number;
}

/**
 * The reminder due for a certificate at `now`: the nearest threshold the remaining time has
 * reached, or null when none has (more than 60 days left) or the certificate has expired.
 * Only the nearest: a certificate uploaded with 5 days left, or seen again after downtime that
 * spanned several thresholds, gets one reminder (7 days), not one per threshold it passed.
 */
export function dueReminder(validUntil: Date, now: Date): DueReminder | null {
  const remainingMs = validUntil.getTime() - now.getTime();
  if (remainingMs <= 0) return null;
  const reached = REMINDER_THRESHOLDS_DAYS.filter((days) => remainingMs <= days * DAY_MS);
  if (reached.length === 0) return null;
  return { thresholdDays: Math.min(...reached), daysLeft: Math.ceil(remainingMs / DAY_MS) };
}
