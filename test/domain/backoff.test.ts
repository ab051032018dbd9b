import { describe, expect, it } from 'vitest';
import { backoffDelayMs } from '../../src/domain/backoff.js';

describe('backoffDelayMs', () => {
  it('starts at the first delay, doubles per failure and stops at the cap', () => {
    expect([0, 1, 2, 3, 4, 5].map((attempts) => backoffDelayMs(attempts, 2000, 30_000))).toEqual([2000, 2000, 4000, 8000, 16_000, 30_000]);
  });

  it('stays at the cap for any number of attempts', () => {
    expect(backoffDelayMs(10_000, 5000, 900_000)).toBe(900_000);
    expect(backoffDelayMs(Number.MAX_SAFE_INTEGER, 1, 3_600_000)).toBe(3_600_000);
  });
});
