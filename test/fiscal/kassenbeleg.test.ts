// The gross per German VAT rate: what the receipt prints, and what the Kassenbeleg-V1 positions sum.
import { describe, expect, it } from 'vitest';
import { grossByGermanVatRate, KassenbelegMappingError, kassenbelegProcessData } from '../../src/fiscal/kassensichv/kassenbeleg.js';

const item = (rate: string, total: string) => ({ type: 'item' as const, total_amount: total, taxes: [{ rate }] });
const shown = (receipt: Parameters<typeof grossByGermanVatRate>[0]) =>
  grossByGermanVatRate(receipt).map(({ rate, gross }) => [rate.toString(), gross.toFixed(2)]);

describe('grossByGermanVatRate', () => {
  const receipt = {
    line_items: [item('0.19', '7.20'), item('0.07', '4.90'), item('0.07', '6.00'), { type: 'gift_card' as const, total_amount: '5.00', taxes: [] }],
    cart_level_discounts: [{ amount: '1.68' }],
    tip_amount: '1.00',
  };

  it('is the discounted gross per rate, the tip under 0 %, and the positions signed are its sums', () => {
    expect(shown(receipt)).toEqual([['0.19', '6.68'], ['0.07', '10.10'], ['0', '5.64']]);
    expect(kassenbelegProcessData({ ...receipt, payments: [{ method: 'card', amount: '22.42', currency: 'EUR' }] })).toBe(
      'Beleg^6.68_10.10_0.00_0.00_5.64^22.42:Unbar',
    );
  });

  it('gives the discount’s remainder cent in the positions’ order (7 % before the 7,8 % average rate)', () => {
    const tie = { line_items: [item('0.078', '1.00'), item('0.07', '1.00')], cart_level_discounts: [{ amount: '0.01' }], tip_amount: '0' };
    expect(shown(tie)).toEqual([['0.07', '1.00'], ['0.078', '0.99']]);
    expect(kassenbelegProcessData({ ...tie, payments: [] })).toBe('Beleg^0.00_1.00_0.99_0.00_0.00^');
  });

  it('refuses a rate that is not German', () => {
    expect(() => grossByGermanVatRate({ line_items: [item('0.2', '1.00')], cart_level_discounts: [], tip_amount: '0' })).toThrow(
      KassenbelegMappingError,
    );
  });
});
