/**
 * The delay before the next try after the `attempts`-th failed one: `firstMs`, doubled per
 * further failure, at most `maxMs` (the exponent is bounded, so no attempt count overflows).
 */
export function backoffDelayMs(attempts: number, firstMs: number, maxMs: number): number {
  return Math.min(maxMs, firstMs * 2 ** Math.min(30, Math.max(0, attempts - 1)));
}
