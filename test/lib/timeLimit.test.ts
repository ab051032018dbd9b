import { describe, expect, it } from 'vitest';
import { TIMED_OUT, within } from '../../src/lib/timeLimit.js';

describe('within', () => {
  it('answers what the work settles with when it settles in time', async () => {
    expect(await within(Promise.resolve('signed'), 1000)).toBe('signed');
    await expect(within(Promise.reject(new Error('refused')), 1000)).rejects.toThrow('refused');
  });

  it('answers TIMED_OUT once the time passes first', async () => {
    const started = performance.now();
    expect(await within(new Promise(() => undefined), 50)).toBe(TIMED_OUT);
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
  });
});
