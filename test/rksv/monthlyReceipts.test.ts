// The monthly receipt rule (src/fiscal/rksv/monthlyReceipts.ts): months are Vienna's, and the
// receipt due before a receipt signed now closes the month the register last signed in.
import { describe, expect, it } from 'vitest';
import { closingTypeOf, dueClosingReceipt, viennaMonth } from '../../src/fiscal/rksv/monthlyReceipts.js';

const at = (iso: string) => new Date(iso);

describe('viennaMonth', () => {
  it.each([
    ['2026-01-31T22:59:59Z', '2026-01'], // 23:59:59 on 31 January (CET, UTC+1)
    ['2026-01-31T23:00:00Z', '2026-02'],
    ['2026-01-31T23:30:00Z', '2026-02'],
    ['2026-06-30T21:59:59Z', '2026-06'], // 23:59:59 on 30 June (CEST, UTC+2)
    ['2026-06-30T22:00:00Z', '2026-07'],
    ['2026-12-31T22:59:59Z', '2026-12'],
    ['2026-12-31T23:00:00Z', '2027-01'],
  ])('%s is %s in Vienna', (instant, month) => {
    expect(viennaMonth(at(instant))).toBe(month);
  });
});

describe('closingTypeOf', () => {
  it('is the annual receipt for December, the monthly one for every other month', () => {
    expect(closingTypeOf('2026-12')).toBe('annual');
    for (const month of ['2026-01', '2026-02', '2026-10', '2026-11']) expect(closingTypeOf(month)).toBe('monthly');
  });
});

describe('dueClosingReceipt', () => {
  it('is none before the first receipt, and none within the month of the last one', () => {
    expect(dueClosingReceipt(null, null, at('2026-03-01T10:00:00Z'))).toBeNull();
    expect(dueClosingReceipt(at('2026-03-01T10:00:00Z'), null, at('2026-03-31T21:59:59Z'))).toBeNull();
  });

  it("is the previous month's monthly receipt once Vienna's month changes, though UTC's has not", () => {
    expect(dueClosingReceipt(at('2026-01-31T22:00:00Z'), null, at('2026-01-31T23:30:00Z'))).toEqual({ type: 'monthly', month: '2026-01' });
  });

  it("is December's annual receipt in January", () => {
    expect(dueClosingReceipt(at('2026-12-31T22:00:00Z'), '2026-11', at('2026-12-31T23:00:00Z'))).toEqual({ type: 'annual', month: '2026-12' });
  });

  it('is none when that month is closed already, and due when only an earlier one is', () => {
    expect(dueClosingReceipt(at('2026-01-20T10:00:00Z'), '2026-01', at('2026-02-02T10:00:00Z'))).toBeNull();
    expect(dueClosingReceipt(at('2026-01-20T10:00:00Z'), '2025-12', at('2026-02-02T10:00:00Z'))).toEqual({ type: 'monthly', month: '2026-01' });
  });

  it('closes the month last signed in when months passed without a receipt', () => {
    expect(dueClosingReceipt(at('2026-01-20T10:00:00Z'), null, at('2026-04-02T10:00:00Z'))).toEqual({ type: 'monthly', month: '2026-01' });
  });
});
