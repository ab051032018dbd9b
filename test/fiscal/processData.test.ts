import { describe, expect, it } from 'vitest';
import { buildKassenbelegProcessData, type KassenbelegInput } from '../../src/fiscal/kassensichv/processData.js';

const noGross = { normal: '0.00', reduced: '0.00', average1: '0.00', average2: '0.00', zero: '0.00' };

function gross(amounts: Partial<KassenbelegInput['grossByVatKey']>): KassenbelegInput['grossByVatKey'] {
  return { ...noGross, ...amounts };
}

describe('buildKassenbelegProcessData', () => {
  it.each<[string, KassenbelegInput]>([
    [
      'Beleg^62.00_0.00_0.00_0.00_0.00^66.30:Bar',
      { receiptType: 'Beleg', grossByVatKey: gross({ normal: '62.00' }), payments: [{ type: 'Bar', amount: '66.30', currency: 'EUR' }] },
    ],
    [
      'Beleg^21.42_0.00_0.00_0.00_0.00^21.42:Unbar',
      { receiptType: 'Beleg', grossByVatKey: gross({ normal: '21.42' }), payments: [{ type: 'Unbar', amount: '21.42', currency: 'EUR' }] },
    ],
    [
      'Beleg^2.90_0.00_0.00_0.00_2.10^5.00:Unbar',
      {
        receiptType: 'Beleg',
        grossByVatKey: gross({ normal: '2.90', zero: '2.10' }),
        payments: [{ type: 'Unbar', amount: '5.00', currency: 'EUR' }],
      },
    ],
    [
      'Beleg^10.00_5.00_0.00_0.00_0.00^10.00:Bar_5.00:Unbar',
      {
        receiptType: 'Beleg',
        grossByVatKey: gross({ normal: '10.00', reduced: '5.00' }),
        payments: [
          { type: 'Bar', amount: '10.00', currency: 'EUR' },
          { type: 'Unbar', amount: '5.00', currency: 'EUR' },
        ],
      },
    ],
    [
      'Beleg^-11.90_0.00_0.00_0.00_0.00^-11.90:Bar',
      { receiptType: 'Beleg', grossByVatKey: gross({ normal: '-11.90' }), payments: [{ type: 'Bar', amount: '-11.90', currency: 'EUR' }] },
    ],
    [
      'Beleg^0.00_0.00_0.00_0.00_20.00^20.00:Bar:USD',
      { receiptType: 'Beleg', grossByVatKey: gross({ zero: '20.00' }), payments: [{ type: 'Bar', amount: '20.00', currency: 'USD' }] },
    ],
    ['AVTraining^4.20_0.00_0.00_0.00_0.00^', { receiptType: 'AVTraining', grossByVatKey: gross({ normal: '4.20' }), payments: [] }],
    ['AVBelegabbruch^0.00_0.00_0.00_0.00_0.00^', { receiptType: 'AVBelegabbruch', grossByVatKey: noGross, payments: [] }],
    ['Beleg^0.00_0.00_0.00_0.00_0.00^', { receiptType: 'Beleg', grossByVatKey: noGross, payments: [] }],
  ])('reproduces the reference example %s', (expected, input) => {
    expect(buildKassenbelegProcessData(input)).toBe(expected);
  });

  it('places the five gross amounts in VAT key order', () => {
    const input: KassenbelegInput = {
      receiptType: 'Beleg',
      grossByVatKey: { normal: '1.00', reduced: '2.00', average1: '3.00', average2: '4.00', zero: '5.00' },
      payments: [],
    };
    expect(buildKassenbelegProcessData(input)).toBe('Beleg^1.00_2.00_3.00_4.00_5.00^');
  });

  it('sums payments per kind and currency and orders Bar, Unbar, EUR first', () => {
    const input: KassenbelegInput = {
      receiptType: 'Beleg',
      grossByVatKey: gross({ normal: '100.00' }),
      payments: [
        { type: 'Unbar', amount: '30.00', currency: 'EUR' },
        { type: 'Bar', amount: '5.00', currency: 'USD' },
        { type: 'Bar', amount: '20.10', currency: 'EUR' },
        { type: 'Unbar', amount: '0.20', currency: 'EUR' },
        { type: 'Bar', amount: '1.00', currency: 'CHF' },
        { type: 'Bar', amount: '0.20', currency: 'EUR' },
      ],
    };
    expect(buildKassenbelegProcessData(input)).toBe(
      'Beleg^100.00_0.00_0.00_0.00_0.00^20.30:Bar_1.00:Bar:CHF_5.00:Bar:USD_30.20:Unbar',
    );
  });

  it('pads to two decimals without thousands separators or float artefacts', () => {
    const input: KassenbelegInput = {
      receiptType: 'Beleg',
      grossByVatKey: gross({ normal: '3000', reduced: '0.1', zero: '-0.00' }),
      payments: [
        { type: 'Bar', amount: '0.10', currency: 'EUR' },
        { type: 'Bar', amount: '0.20', currency: 'EUR' },
        { type: 'Unbar', amount: '1234567.5', currency: 'EUR' },
      ],
    };
    expect(buildKassenbelegProcessData(input)).toBe('Beleg^3000.00_0.10_0.00_0.00_0.00^0.30:Bar_1234567.50:Unbar');
  });

  it('rejects amounts that are not plain decimals with at most two places', () => {
    for (const amount of ['1.005', '1,00', '3,000.00', '1e3', '0x10', '', 'NaN']) {
      expect(() => buildKassenbelegProcessData({ receiptType: 'Beleg', grossByVatKey: gross({ normal: amount }), payments: [] })).toThrow(
        /grossByVatKey\.normal/,
      );
    }
    expect(() =>
      buildKassenbelegProcessData({
        receiptType: 'Beleg',
        grossByVatKey: noGross,
        payments: [{ type: 'Bar', amount: '1.001', currency: 'EUR' }],
      }),
    ).toThrow(/payments\[0\]\.amount/);
  });

  it('rejects unknown receipt types, payment kinds and currency codes', () => {
    const base: KassenbelegInput = { receiptType: 'Beleg', grossByVatKey: noGross, payments: [] };
    expect(() => buildKassenbelegProcessData({ ...base, receiptType: 'Rechnung' as 'Beleg' })).toThrow(/receiptType/);
    expect(() =>
      buildKassenbelegProcessData({ ...base, payments: [{ type: 'Karte' as 'Bar', amount: '1.00', currency: 'EUR' }] }),
    ).toThrow(/payments\[0\]\.type/);
    expect(() =>
      buildKassenbelegProcessData({ ...base, payments: [{ type: 'Bar', amount: '1.00', currency: 'eur' }] }),
    ).toThrow(/payments\[0\]\.currency/);
  });
});
