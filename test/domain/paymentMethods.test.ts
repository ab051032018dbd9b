import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isCashPayment, isGiftCardPayment, PAYMENT_METHODS, paymentMethodOf } from '../../src/domain/paymentMethods.js';

describe('paymentMethodOf: the known methods', () => {
  it.each([
    ['cash', 'cash', 'Bar', 'Bar'],
    ['card', 'card', 'Unbar', 'Unbar'],
    ['debit_card', 'card', 'ECKarte', 'Unbar'],
    ['girocard', 'card', 'ECKarte', 'Unbar'],
    ['credit_card', 'card', 'Kreditkarte', 'Unbar'],
    ['gift_card', 'gift_card', null, 'Unbar'],
    ['paypal', 'electronic', 'ElZahlungsdienstleister', 'Unbar'],
    ['wallet', 'electronic', 'Unbar', 'Unbar'],
    ['online', 'electronic', 'Unbar', 'Unbar'],
    ['voucher', 'other', 'Unbar', 'Unbar'],
  ])('%s: %s, DSFinV-K %s, TSE %s', (method, kind, zahlart, tse) => {
    expect(paymentMethodOf(method)).toEqual({ name: method, known: true, kind, zahlart, tse });
  });

  it('lists exactly those', () => {
    expect(Object.keys(PAYMENT_METHODS)).toEqual(['cash', 'card', 'debit_card', 'girocard', 'credit_card', 'gift_card', 'paypal', 'wallet', 'online', 'voucher']);
  });
});

describe('paymentMethodOf: spellings', () => {
  it.each([
    ['Cash', 'cash'],
    ['CASH', 'cash'],
    ['  cash\t', 'cash'],
    ['Bar', 'cash'],
    ['Bargeld', 'cash'],
    ['Debit Card', 'debit_card'],
    ['debit-card', 'debit_card'],
    ['EC-Karte', 'debit_card'],
    ['ec card', 'debit_card'],
    ['GiroCard', 'girocard'],
    ['Credit_Card', 'credit_card'],
    ['Kreditkarte', 'credit_card'],
    ['Gift Card', 'gift_card'],
    ['PayPal', 'paypal'],
    ['ONLINE', 'online'],
  ])('%j is %s', (spelling, name) => {
    expect(paymentMethodOf(spelling)).toMatchObject({ name, known: true });
  });

  it('every spelling of a method means the same as the method', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...Object.keys(PAYMENT_METHODS)),
        fc.array(fc.boolean(), { maxLength: 20 }),
        fc.constantFrom('', ' ', '  ', '\t'),
        (method, upper, pad) => {
          const spelled = [...method].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join('').replace(/_/g, upper[0] ? ' ' : '-');
          expect(paymentMethodOf(`${pad}${spelled}${pad}`)).toEqual(paymentMethodOf(method));
        },
      ),
    );
  });
});

describe('paymentMethodOf: any other method', () => {
  it.each(['klarna', 'Klarna', 'invoice', 'cashback', 'cash_card', 'constructor', '__proto__', ' ', 'Bar Code'])('%j is non-cash Unbar', (method) => {
    expect(paymentMethodOf(method)).toEqual({ name: method.trim().toLowerCase(), known: false, kind: 'other', zahlart: 'Unbar', tse: 'Unbar' });
  });
});

describe('isCashPayment and isGiftCardPayment', () => {
  it.each([
    ['cash', true, false],
    ['Cash', true, false],
    ['bar', true, false],
    ['card', false, false],
    ['gift_card', false, true],
    ['GIFT_CARD', false, true],
    ['cash_card', false, false],
  ])('%s: cash %s, gift card %s', (method, cash, giftCard) => {
    expect(isCashPayment(method)).toBe(cash);
    expect(isGiftCardPayment(method)).toBe(giftCard);
  });
});
