import { describe, expect, it } from 'vitest';
import { parseAmount } from '../../src/domain/money.js';
import { cashCountDifference, expectedClosingAmount, isPossibleDrawerAmount } from '../../src/domain/sessions/cashCount.js';

describe('expectedClosingAmount', () => {
  it('is opening + cash payments (returns negative) + adjustments', () => {
    const expected = expectedClosingAmount({
      opening_amount: '100.00',
      cash_payments: ['20.50', '-5.25'],
      adjustments: ['-10.00', '3.10'],
    });
    expect(expected.toFixed(2)).toBe('108.35');
  });

  it('is the opening amount for a quiet session', () => {
    expect(expectedClosingAmount({ opening_amount: '50', cash_payments: [], adjustments: [] }).toFixed()).toBe('50');
  });

  it('adds many small amounts exactly', () => {
    const expected = expectedClosingAmount({ opening_amount: '0', cash_payments: Array(1000).fill('0.10'), adjustments: [] });
    expect(expected.toFixed()).toBe('100');
  });
});

describe('cashCountDifference', () => {
  it('is counted minus expected: a shortage is negative, an overage positive', () => {
    expect(cashCountDifference('98.35', parseAmount('108.35')).toFixed(2)).toBe('-10.00');
    expect(cashCountDifference('110.00', '108.35').toFixed(2)).toBe('1.65');
    expect(cashCountDifference('108.35', '108.350').isZero()).toBe(true);
  });
});

describe('isPossibleDrawerAmount', () => {
  it.each([
    ['0', true],
    ['-0', true],
    ['0.00000001', true],
    ['250.00', true],
    ['-0.01', false],
    ['-100', false],
  ])('%s -> %s', (amount, possible) => {
    expect(isPossibleDrawerAmount(amount)).toBe(possible);
  });
});
