import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatAmount, sumAmounts } from '../../src/domain/money.js';
import type { PaymentInput } from '../../src/domain/operations/operationInput.js';
import { validatePayments } from '../../src/domain/operations/paymentRules.js';
import { codesAndFields, decimalString } from './fixtures.js';

const payment = (amount: string, extra: Partial<PaymentInput> = {}): PaymentInput => ({
  payment_id: `pay_${amount}`,
  method: 'card',
  amount,
  currency: 'EUR',
  status: 'captured',
  ...extra,
});

describe('validatePayments: sum (rule 7)', () => {
  it('accepts payments that add up to the total', () => {
    expect(validatePayments('sale', '10.00', [payment('6.50'), payment('3.5', { method: 'cash' })])).toEqual([]);
  });

  it('rejects payments that do not, naming payments', () => {
    expect(validatePayments('sale', '10.00', [payment('9.99')])).toEqual([
      {
        code: 'validation_error',
        field: 'payments',
        message: expect.any(String),
        details: { payments_total: '9.99', total_amount: '10.00' },
      },
    ]);
  });

  it('accepts no payments for a zero total only', () => {
    expect(validatePayments('sale', '0.00', [])).toEqual([]);
    expect(codesAndFields(validatePayments('sale', '10.00', []))).toEqual([['validation_error', 'payments']]);
  });

  it('accepts any split of the total (property)', () => {
    fc.assert(
      fc.property(fc.array(decimalString(0n, 10n ** 8n, 2), { minLength: 1, maxLength: 6 }), (amounts) => {
        const total = formatAmount(sumAmounts(amounts));
        return validatePayments('sale', total, amounts.map((a) => payment(a))).length === 0;
      }),
    );
  });
});

describe('validatePayments: gift cards (rule 8)', () => {
  it.each([undefined, null, '', '   '])('requires a gift_card_id, not %j', (giftCardId) => {
    const payments = [payment('5.00'), payment('5.00', { method: 'gift_card', gift_card_id: giftCardId })];
    expect(codesAndFields(validatePayments('sale', '10.00', payments))).toEqual([
      ['gift_card_id_required', 'payments[1].gift_card_id'],
    ]);
  });

  it('knows a gift card however it is written', () => {
    expect(codesAndFields(validatePayments('sale', '5.00', [payment('5.00', { method: ' Gift Card' })]))).toEqual([
      ['gift_card_id_required', 'payments[0].gift_card_id'],
    ]);
  });

  it('accepts a gift card payment with its id', () => {
    expect(validatePayments('sale', '5.00', [payment('5.00', { method: 'gift_card', gift_card_id: 'gc_1' })])).toEqual([]);
  });
});

describe('validatePayments: signs (rule 4)', () => {
  it('rejects a negative payment on a sale', () => {
    expect(codesAndFields(validatePayments('sale', '5.00', [payment('10.00'), payment('-5.00')]))).toEqual([
      ['validation_error', 'payments[1].amount'],
    ]);
  });

  it('rejects a positive payment on a return', () => {
    expect(codesAndFields(validatePayments('return', '-5.00', [payment('-10.00'), payment('5.00')]))).toEqual([
      ['validation_error', 'payments[1].amount'],
    ]);
  });

  it('allows zero on a sale and on a return', () => {
    expect(validatePayments('sale', '0.00', [payment('0.00')])).toEqual([]);
    expect(validatePayments('return', '0.00', [payment('0.00')])).toEqual([]);
  });

  it('allows both signs on an exchange', () => {
    expect(validatePayments('exchange', '10.00', [payment('20.00'), payment('-10.00')])).toEqual([]);
  });
});

describe('validatePayments: currency', () => {
  it('requires the operation currency when given, in any case', () => {
    expect(validatePayments('sale', '10.00', [payment('10.00', { currency: 'eur' })], 'EUR')).toEqual([]);
    expect(codesAndFields(validatePayments('sale', '10.00', [payment('10.00', { currency: 'USD' })], 'EUR'))).toEqual([
      ['validation_error', 'payments[0].currency'],
    ]);
  });

  it('does not check currencies without one', () => {
    expect(validatePayments('sale', '10.00', [payment('10.00', { currency: 'USD' })])).toEqual([]);
  });
});
