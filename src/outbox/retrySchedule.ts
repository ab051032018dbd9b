import { backoffDelayMs } from '../domain/backoff.js';
import { RETRY_WINDOW_MS } from '../domain/webhookDeliveryWindow.js';

/** Retries back off to at most this far apart: 30 s in the sandbox (DESIGN), an hour in production. */
export const maxRetryDelayMs = (environment: 'sandbox' | 'production'): number => (environment === 'sandbox' ? 30_000 : 60 * 60 * 1000);

/**
 * When to try again after the `attempts`-th failed attempt: the first delay,
 * doubled per attempt up to the cap; null once that would pass the retry
 * window of the event created at `eventCreatedAt`.
 */
export function nextAttemptAt(attempts: number, eventCreatedAt: Date, now: Date, schedule: { firstDelayMs: number; maxDelayMs: number }): Date | null {
  const next = new Date(now.getTime() + backoffDelayMs(attempts, schedule.firstDelayMs, schedule.maxDelayMs));
  return next.getTime() - eventCreatedAt.getTime() > RETRY_WINDOW_MS ? null : next;
}
