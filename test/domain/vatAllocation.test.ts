// The one discount-to-VAT split, used by the TSE's processData (kassenbeleg.ts) and the DSFinV-K export alike.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sumAmounts, toAmount } from '../../src/domain/money.js';
import { allocateDiscountByGross } from '../../src/domain/vatAllocation.js';

const gross = (entries: [string, string][]) => new Map(entries.map(([group, value]) => [group, toAmount(value)] as const));
const shown = (shares: Map<string, { toFixed(): string }>) => [...shares].map(([group, share]) => [group, share.toFixed()]);

describe('allocateDiscountByGross', () => {
  it('splits by gross, rounding half up, the remainder to the largest group, which comes last', () => {
    const shares = allocateDiscountByGross(toAmount('2.00'), gross([['0.19', '20.00'], ['0.07', '10.00'], ['0', '25.00']]), 2);
    // 2 × 20/55 = 0.7272…, 2 × 10/55 = 0.3636…
    expect(shown(shares)).toEqual([['0.19', '0.73'], ['0.07', '0.36'], ['0', '0.91']]);
  });

  it('gives the remainder to the first of equal largest groups, in the order given', () => {
    const shares = allocateDiscountByGross(toAmount('1.00'), gross([['b', '5'], ['a', '5'], ['c', '5']]), 2);
    expect(shown(shares)).toEqual([['a', '0.33'], ['c', '0.33'], ['b', '0.34']]);
  });

  it('compares gross by absolute value, so a return (negative gross) is split the same way', () => {
    const shares = allocateDiscountByGross(toAmount('-3.00'), gross([['0.19', '-10.00'], ['0.07', '-20.00']]), 2);
    expect(shown(shares)).toEqual([['0.19', '-1'], ['0.07', '-2']]);
  });

  it('rounds to the places asked for', () => {
    const groups = gross([['0.19', '1'], ['0.07', '2']]);
    expect(shown(allocateDiscountByGross(toAmount('1'), groups, 2))).toEqual([['0.19', '0.33'], ['0.07', '0.67']]);
    expect(shown(allocateDiscountByGross(toAmount('1'), groups, 5))).toEqual([['0.19', '0.33333'], ['0.07', '0.66667']]);
  });

  it('gives everything to the largest group when the gross sums to zero', () => {
    const shares = allocateDiscountByGross(toAmount('1.50'), gross([['0.19', '-4.00'], ['0.07', '4.00'], ['0', '0']]), 2);
    expect(shown(shares)).toEqual([['0.07', '0'], ['0', '0'], ['0.19', '1.5']]);
  });

  it('has no group to give a discount to without groups', () => {
    expect(() => allocateDiscountByGross(toAmount('1'), new Map(), 2)).toThrow(RangeError);
  });

  it('returns shares that sum to the amount exactly, each but the last within half a unit of its proportion (property)', () => {
    const cents = fc.integer({ min: -1_000_000, max: 1_000_000 }).map((value) => toAmount(String(value)).dividedBy(100));
    fc.assert(
      fc.property(fc.array(cents, { minLength: 1, maxLength: 6 }), cents, fc.constantFrom(2, 5), (values, amount, places) => {
        const groups = new Map(values.map((value, i) => [i, value] as const));
        const shares = allocateDiscountByGross(amount, groups, places);
        expect([...shares.keys()].sort()).toEqual([...groups.keys()]);
        expect(sumAmounts(shares.values()).eq(amount)).toBe(true);
        const total = sumAmounts(values);
        if (total.isZero()) return;
        const rest = [...shares].slice(0, -1);
        for (const [group, share] of rest) {
          const exact = amount.times(groups.get(group)!).dividedBy(total);
          expect(share.minus(exact).abs().lte(toAmount('0.5').dividedBy(10 ** places))).toBe(true);
        }
      }),
    );
  });
});
