import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseAmount } from '../../src/domain/money.js';
import { computeLineTaxAmounts } from '../../src/domain/operations/taxAmount.js';
import { decimalString } from './fixtures.js';

const amounts = (values: { toFixed(): string }[]) => values.map((v) => v.toFixed());

describe('computeLineTaxAmounts', () => {
  it('applies total × rate / (1 + rate) at 8 decimals', () => {
    expect(amounts(computeLineTaxAmounts('10.00', ['0.19']))).toEqual(['1.59663866']);
    expect(amounts(computeLineTaxAmounts('119.00', ['0.19']))).toEqual(['19']);
  });

  it('divides every rate of a line by one plus the sum of all its rates', () => {
    // 10 × 0.07 / 1.26 = 0.555555…, 10 × 0.19 / 1.26 = 1.507936507…
    expect(amounts(computeLineTaxAmounts('10.00', ['0.07', '0.19']))).toEqual(['0.55555556', '1.50793651']);
  });

  it('rounds a half at the 9th decimal up, away from zero', () => {
    expect(amounts(computeLineTaxAmounts('1.00000005', ['1']))).toEqual(['0.50000003']);
    expect(amounts(computeLineTaxAmounts('-1.00000005', ['1']))).toEqual(['-0.50000003']);
    expect(amounts(computeLineTaxAmounts('1.000000049', ['1']))).toEqual(['0.50000002']);
  });

  it('mirrors a sale for a return', () => {
    expect(amounts(computeLineTaxAmounts('-10.00', ['0.19']))).toEqual(['-1.59663866']);
  });

  it('gives zero tax at rate zero and for no rates nothing', () => {
    expect(amounts(computeLineTaxAmounts('25.00', ['0']))).toEqual(['0']);
    expect(computeLineTaxAmounts('25.00', [])).toEqual([]);
  });

  it('refuses a negative rate', () => {
    expect(() => computeLineTaxAmounts('10.00', ['-0.19'])).toThrow(RangeError);
  });

  it('is the exact quotient rounded half-up (property, checked by multiplication only)', () => {
    // t = round_half_up(N / D) at 8 places  <=>  (|t| − 5e-9)·D <= |N| < (|t| + 5e-9)·D
    const half = parseAmount('0.000000005');
    fc.assert(
      fc.property(
        decimalString(-(10n ** 16n), 10n ** 16n, 2),
        fc.array(decimalString(0n, 10n ** 6n, 4), { minLength: 1, maxLength: 4 }),
        (total, rates) => {
          const divisor = rates.reduce((sum, rate) => sum.plus(rate), parseAmount('1'));
          return computeLineTaxAmounts(total, rates).every((tax, i) => {
            const numerator = parseAmount(total).times(rates[i]).abs();
            return (
              tax.decimalPlaces() <= 8 &&
              tax.abs().minus(half).times(divisor).lte(numerator) &&
              numerator.lt(tax.abs().plus(half).times(divisor))
            );
          });
        },
      ),
    );
  });
});
