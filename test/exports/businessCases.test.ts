import { describe, expect, it } from 'vitest';
import { toAmount } from '../../src/domain/money.js';
import {
  allocateDiscount,
  discountShares,
  mapOperation,
  type ClosingContext,
  type Vorgang,
} from '../../src/exports/dsfinvk/businessCases.js';
import { DsfinvkDataError } from '../../src/exports/dsfinvk/model.js';
import { vatKeyForRate } from '../../src/exports/dsfinvk/vatKeys.js';
import { cash, giftCardLine, line, operation, tseData } from './fixtures.js';

const context: ClosingContext = {
  registerId: 'reg_A',
  closingNumber: 7,
  closedAt: new Date('2026-03-15T21:30:00.000Z'),
  baseCurrency: 'EUR',
  openingAmount: '100.00',
};

const map = (op: Parameters<typeof mapOperation>[0]) => mapOperation(op, context) as Vorgang;
const fixed = (value: { toFixed(places: number): string }, places = 2) => value.toFixed(places);
const summary = (vorgang: Vorgang) =>
  vorgang.lines.map((l) => ({
    gv: l.gvTyp,
    vat: l.vat.map((s) => `${s.key}:${fixed(s.gross)}/${fixed(s.net, 5)}/${fixed(s.vat, 5)}`).join(' '),
  }));

describe('vatKeyForRate', () => {
  it.each([
    ['0.19', 1],
    ['0.07', 2],
    ['0.078', 3],
    ['0.055', 4],
    ['0', 5],
    ['0.00', 5],
    ['0.107', 13],
    ['0.16', 21],
    ['0.05', 22],
    ['0.095', 23],
    ['0.09', 33],
    ['0.084', 43],
    ['0.190', 1],
  ])('%s -> key %i', (rate, key) => {
    expect(vatKeyForRate(rate).key).toBe(key);
  });

  it('rejects a rate outside Anlage 2', () => {
    expect(() => vatKeyForRate('0.2')).toThrow(DsfinvkDataError);
  });
});

describe('allocateDiscount', () => {
  const gross = new Map([
    [1, toAmount('20.00')],
    [2, toAmount('10.00')],
    [5, toAmount('25.00')],
  ]);

  it('splits in cents by gross, the remainder to the largest key', () => {
    const shares = allocateDiscount(toAmount('2.00'), gross);
    expect([...shares].map(([key, value]) => [key, value.toFixed(2)])).toEqual([
      [1, '0.73'],
      [2, '0.36'],
      [5, '0.91'],
    ]);
  });

  it('gives the remainder to the lowest key among equal largest gross', () => {
    const equal = new Map([
      [3, toAmount('5')],
      [1, toAmount('5')],
      [2, toAmount('5')],
    ]);
    const shares = allocateDiscount(toAmount('1.00'), equal);
    expect([1, 2, 3].map((key) => shares.get(key)!.toFixed(2))).toEqual(['0.34', '0.33', '0.33']);
  });

  it('per discount, shares sum to each amount and together to the allocation of the total', () => {
    const amounts = ['0.01', '0.01', '0.01', '1.99'].map(toAmount);
    const perDiscount = discountShares(amounts, gross);
    perDiscount.forEach((shares, index) => {
      const sum = [...shares.values()].reduce((a, b) => a.plus(b), toAmount('0'));
      expect(sum.toFixed(2)).toBe(amounts[index].toFixed(2));
    });
    const together = allocateDiscount(toAmount('2.02'), gross);
    for (const key of together.keys()) {
      const sum = perDiscount.reduce((acc, shares) => acc.plus(shares.get(key) ?? 0), toAmount('0'));
      expect(sum.toFixed(2)).toBe(together.get(key)!.toFixed(2));
    }
  });
});

describe('mapOperation', () => {
  it('maps a sale with two VAT rates to Umsatz lines per key', () => {
    const vorgang = map(
      operation({
        lineItems: [
          line({ title: 'Kaffee', quantity: 2, unitPrice: '3.50', totalAmount: '7.00', rate: '0.19', tax: '1.11764706' }),
          line({ title: 'Brot', totalAmount: '4.28', rate: '0.07', tax: '0.28' }),
        ],
        totalAmount: '11.28',
        payments: [cash('11.28')],
        tse: tseData(1),
      }),
    );
    expect(vorgang.bonTyp).toBe('Beleg');
    expect(summary(vorgang)).toEqual([
      { gv: 'Umsatz', vat: '1:7.00/5.88235/1.11765' },
      { gv: 'Umsatz', vat: '2:4.28/4.00000/0.28000' },
    ]);
    expect(vorgang.lines[0]).toMatchObject({ posZeile: '1', articleNumber: 'SKU-1', text: 'Kaffee' });
    expect(fixed(vorgang.lines[0].quantity!, 3)).toBe('2.000');
    expect(fixed(vorgang.lines[0].unitGross!)).toBe('3.50');
    expect(vorgang.vat.map((s) => s.key)).toEqual([1, 2]);
    expect(fixed(vorgang.grossTotal)).toBe('11.28');
    expect(vorgang.payments).toEqual([{ type: 'Bar', name: '', currency: 'EUR', amount: toAmount('11.28') }]);
  });

  it('orders goods lines, Rabatt per discount, tip, then gift card redemptions; the redemption is a line, not a payment', () => {
    const vorgang = map(
      operation({
        lineItems: [line({ totalAmount: '20.00', rate: '0.19', tax: '3.19327731' }), line({ totalAmount: '10.00', rate: '0.07', tax: '0.65420561' }), giftCardLine('25.00', 'GC-NEW')],
        cartLevelDiscounts: [
          { id: 'dis_1', amount: '1.50', description: 'Stammkunde' },
          { id: 'dis_2', amount: '0.50', description: null },
        ],
        tipAmount: '1.00',
        totalAmount: '54.00',
        payments: [
          { method: 'gift_card', amount: '15.00', currency: 'EUR', giftCardId: 'GC-OLD' },
          { method: 'card', amount: '30.00', currency: 'EUR', giftCardId: null },
          { method: 'card', amount: '9.00', currency: 'EUR', giftCardId: null },
        ],
      }),
    );
    expect(vorgang.lines.map((l) => l.gvTyp)).toEqual([
      'Umsatz',
      'Umsatz',
      'MehrzweckgutscheinKauf',
      'Rabatt',
      'Rabatt',
      'TrinkgeldAN',
      'MehrzweckgutscheinEinloesung',
    ]);
    expect(vorgang.lines.map((l) => l.posZeile)).toEqual(['1', '2', '3', '4', '5', '6', '7']);
    expect(vorgang.lines[2]).toMatchObject({ voucherId: 'GC-NEW' });
    expect(vorgang.lines[3].text).toBe('Stammkunde');
    expect(vorgang.lines[4].text).toBe('Rabatt');
    expect(summary(vorgang).slice(2)).toEqual([
      { gv: 'MehrzweckgutscheinKauf', vat: '5:25.00/25.00000/0.00000' },
      // 1.50 over 20/10/25: 0.55, 0.27, rest 0.68 on key 5; then 2.00 in total (0.73/0.36/0.91) less that.
      { gv: 'Rabatt', vat: '1:-0.55/-0.46218/-0.08782 2:-0.27/-0.25234/-0.01766 5:-0.68/-0.68000/0.00000' },
      { gv: 'Rabatt', vat: '1:-0.18/-0.15126/-0.02874 2:-0.09/-0.08411/-0.00589 5:-0.23/-0.23000/0.00000' },
      { gv: 'TrinkgeldAN', vat: '5:1.00/1.00000/0.00000' },
      { gv: 'MehrzweckgutscheinEinloesung', vat: '5:-15.00/-15.00000/0.00000' },
    ]);
    expect(vorgang.lines[6]).toMatchObject({ voucherId: 'GC-OLD', text: 'Gutscheineinlösung' });
    expect(fixed(vorgang.grossTotal)).toBe('39.00');
    expect(vorgang.payments).toEqual([{ type: 'Unbar', name: 'card', currency: 'EUR', amount: toAmount('39.00') }]);
    const vatGross = vorgang.vat.reduce((sum, s) => sum.plus(s.gross), toAmount('0'));
    expect(fixed(vatGross)).toBe('39.00');
  });

  it('books payments by the method as people write it: one row per type and method name', () => {
    const pay = (method: string, amount: string, giftCardId: string | null = null) => ({ method, amount, currency: 'EUR', giftCardId });
    const vorgang = map(
      operation({
        lineItems: [line({ totalAmount: '60.00', rate: '0.19', tax: '9.57983193' })],
        totalAmount: '60.00',
        payments: [
          pay('Cash', '10.00'),
          pay(' cash', '5.00'),
          pay('Debit_Card', '10.00'),
          pay('debit card', '10.00'),
          pay('Klarna', '10.00'),
          pay('klarna', '5.00'),
          pay('Gift Card', '10.00', 'GC-1'),
        ],
      }),
    );
    expect(vorgang.payments).toEqual([
      { type: 'Bar', name: '', currency: 'EUR', amount: toAmount('15.00') },
      { type: 'ECKarte', name: 'debit_card', currency: 'EUR', amount: toAmount('20.00') },
      { type: 'Unbar', name: 'klarna', currency: 'EUR', amount: toAmount('15.00') },
    ]);
    expect(vorgang.lines.at(-1)).toMatchObject({ gvTyp: 'MehrzweckgutscheinEinloesung', voucherId: 'GC-1' });
    expect(fixed(vorgang.grossTotal)).toBe('50.00');
  });

  it('maps a return to a negative Beleg with a Transaktion reference to the original', () => {
    const vorgang = map(
      operation({
        type: 'return',
        lineItems: [line({ quantity: 1, unitPrice: '4.28', totalAmount: '-4.28', rate: '0.07', tax: '-0.28' })],
        totalAmount: '-4.28',
        payments: [cash('-4.28')],
        relatedOperation: { operationId: 'op_sale', sequenceNumber: 3, closingNumber: 7, registerId: 'reg_A', createdAt: null },
      }),
    );
    expect(vorgang.bonTyp).toBe('Beleg');
    expect(summary(vorgang)).toEqual([{ gv: 'Umsatz', vat: '2:-4.28/-4.00000/-0.28000' }]);
    expect(fixed(vorgang.lines[0].quantity!, 3)).toBe('-1.000');
    expect(fixed(vorgang.lines[0].unitGross!)).toBe('4.28');
    expect(fixed(vorgang.grossTotal)).toBe('-4.28');
    expect(vorgang.references).toEqual([
      { type: 'Transaktion', name: null, closedAt: context.closedAt, registerId: 'reg_A', closingNumber: 7, bonId: 'op_sale' },
    ]);
  });

  it('references an original of another closing with that closing’s time, and an external one as ExterneSonstige', () => {
    const closedAt = new Date('2026-03-01T20:00:00.000Z');
    const other = map(
      operation({
        type: 'return',
        relatedOperation: { operationId: 'op_x', sequenceNumber: 1, closingNumber: 2, registerId: 'reg_B', createdAt: null, closedAt },
      }),
    );
    expect(other.references[0]).toMatchObject({ type: 'Transaktion', closedAt, registerId: 'reg_B', closingNumber: 2, bonId: 'op_x' });
    const external = map(
      operation({ type: 'exchange', externalRelatedOperation: { description: 'Webshop-Bestellung 4711', externalOperationId: 'WS-4711' } }),
    );
    expect(external.references).toEqual([
      { type: 'ExterneSonstige', name: 'Webshop-Bestellung 4711', closedAt: null, registerId: null, closingNumber: null, bonId: 'WS-4711' },
    ]);
  });

  it('maps a voided operation to AVBelegabbruch with its lines and no payments', () => {
    const vorgang = map(
      operation({
        status: 'voided',
        completedAt: null,
        voidedAt: new Date('2026-03-15T10:05:00.000Z'),
        lineItems: [line({ totalAmount: '5.00', tax: '0.79831933' })],
        totalAmount: '5.00',
        payments: [cash('5.00')],
      }),
    );
    expect(vorgang.bonTyp).toBe('AVBelegabbruch');
    expect(vorgang.payments).toEqual([]);
    expect(vorgang.end.toISOString()).toBe('2026-03-15T10:05:00.000Z');
    expect(summary(vorgang)).toEqual([{ gv: 'Umsatz', vat: '1:5.00/4.20168/0.79832' }]);
  });

  it('skips an open operation', () => {
    expect(mapOperation(operation({ status: 'open' }), context)).toBeNull();
  });

  it.each([
    ['session_open', { openingAmount: '150.00' }, 'Anfangsbestand', '150.00'],
    ['session_open', {}, 'Anfangsbestand', '100.00'],
    ['session_cash_adjustment', { amount: '-50.00' }, 'Geldtransit', '-50.00'],
    ['session_cash_count', { countedClosingAmount: '99.50', expectedClosingAmount: '100.00', closingCashcountDiff: '-0.50' }, 'DifferenzSollIst', '-0.50'],
    ['session_close', { closingAdjustmentAmount: '-60.00' }, 'Geldtransit', '-60.00'],
  ] as const)('maps %s %j to a %s Beleg paid in cash', (type, session, gvTyp, amount) => {
    const vorgang = map(operation({ type, session }));
    expect(vorgang.bonTyp).toBe('Beleg');
    expect(summary(vorgang)).toEqual([{ gv: gvTyp, vat: `5:${amount}/${toAmount(amount).toFixed(5)}/0.00000` }]);
    expect(vorgang.payments).toEqual([{ type: 'Bar', name: '', currency: 'EUR', amount: toAmount(amount) }]);
    expect(fixed(vorgang.grossTotal)).toBe(amount);
  });

  it('maps a session close that moves no cash to AVSonstige without lines', () => {
    const vorgang = map(operation({ type: 'session_close', session: { closingAdjustmentAmount: null } }));
    expect(vorgang).toMatchObject({ bonTyp: 'AVSonstige', bonName: 'Kassenabschluss', lines: [], payments: [] });
  });

  it('rejects what the format cannot carry', () => {
    expect(() => map(operation({ currency: 'USD' }))).toThrow(DsfinvkDataError);
    expect(() => map(operation({ payments: [{ method: 'cash', amount: '1', currency: 'CHF', giftCardId: null }] }))).toThrow(/CHF/);
    expect(() =>
      map(
        operation({
          lineItems: [
            line({
              taxes: [
                { rate: '0.19', taxAmount: '1' },
                { rate: '0.07', taxAmount: '0.5' },
              ],
            }),
          ],
        }),
      ),
    ).toThrow(/more than one tax rate/);
    expect(() => map(operation({ lineItems: [line({ rate: '0.2' })] }))).toThrow(/0.2 has no DSFinV-K VAT key/);
  });
});
