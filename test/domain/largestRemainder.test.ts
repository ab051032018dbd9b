import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { roundByLargestRemainder } from '../../src/domain/largestRemainder.js';
import { sumAmounts, toAmount } from '../../src/domain/money.js';

const parts = (entries: [string, string][]) => new Map(entries.map(([key, value]) => [key, toAmount(value)]));

describe('roundByLargestRemainder', () => {
  it('gives the missing cents to the largest remainders, the first of equals first', () => {
    const rounded = roundByLargestRemainder(parts([['a', '1.004'], ['b', '1.004'], ['c', '1.006']]), 2);
    // exact sum 3.014 -> 3.01: one cent missing after rounding down, to c (largest remainder)
    expect([...rounded.values()].map(String)).toEqual(['1', '1', '1.01']);
    const ties = roundByLargestRemainder(parts([['a', '0.005'], ['b', '0.005']]), 2);
    expect([...ties.values()].map(String)).toEqual(['0.01', '0']);
  });

  it('rounds negative parts down too, and their sum half up', () => {
    const rounded = roundByLargestRemainder(parts([['a', '-1.004'], ['b', '-2.003']]), 2);
    expect(sumAmounts(rounded.values()).toString()).toBe('-3.01');
    // rounded down: -1.01 (remainder 0.006) and -2.01 (0.007); the missing cent goes to the larger remainder
    expect([...rounded.values()].map(String)).toEqual(['-1.01', '-2']);
  });

  it('always adds up to the exact sum rounded half up, moving no part by a unit or more', () => {
    const part = fc.integer({ min: -10_000_000, max: 10_000_000 }).map((value) => toAmount(String(value)).dividedBy(10_000));
    fc.assert(
      fc.property(fc.array(part, { minLength: 1, maxLength: 8 }), (values) => {
        const exact = new Map(values.map((value, index) => [index, value]));
        const rounded = roundByLargestRemainder(exact, 2);
        expect(sumAmounts(rounded.values()).eq(sumAmounts(values).toDecimalPlaces(2, 4))).toBe(true);
        for (const [key, value] of rounded) {
          expect(value.decimalPlaces()).toBeLessThanOrEqual(2);
          expect(value.minus(exact.get(key)!).abs().lt(0.01)).toBe(true);
        }
      }),
    );
  });
});
