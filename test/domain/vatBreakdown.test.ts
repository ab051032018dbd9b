// A receipt's VAT table: gross per rate as signed, tax computed once per row, the total row the rows' sum.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sumAmounts, toAmount } from '../../src/domain/money.js';
import { grossByVatRate, vatRateOfLine, vatTable, type RateGross } from '../../src/domain/vatBreakdown.js';

const shown = (entries: RateGross[]) => entries.map(({ rate, gross }) => [rate.toString(), gross.toFixed(2)]);
const shownTable = (lines: { rate: string; gross: string }[]) => {
  const table = vatTable(lines, 2);
  return {
    rows: table.rows.map((row) => [row.rate.toString(), row.net.toFixed(2), row.tax.toFixed(2), row.gross.toFixed(2)]),
    total: [table.total.net.toFixed(2), table.total.tax.toFixed(2), table.total.gross.toFixed(2)],
  };
};

describe('vatRateOfLine', () => {
  it('is the line’s rate, the sum of several, and 0 for a gift card or a line without taxes', () => {
    expect(vatRateOfLine({ type: 'item', taxes: [{ rate: '0.190' }] }).toString()).toBe('0.19');
    expect(vatRateOfLine({ type: 'item', taxes: [{ rate: '0.05' }, { rate: '0.09975' }] }).toString()).toBe('0.14975');
    expect(vatRateOfLine({ type: 'gift_card', taxes: [{ rate: '0' }] }).toString()).toBe('0');
    expect(vatRateOfLine({ type: 'item', taxes: [] }).toString()).toBe('0');
  });
});

describe('grossByVatRate', () => {
  it('sums the lines per rate, highest rate first', () => {
    const turnover = { lines: [{ rate: '0.07', gross: '1.00' }, { rate: '0.19', gross: '2.50' }, { rate: '0.070', gross: '0.25' }], cartDiscounts: [], tip: '0' };
    expect(shown(grossByVatRate(turnover, 2))).toEqual([['0.19', '2.50'], ['0.07', '1.25']]);
  });

  it('takes the cart discounts off in proportion to gross, in cents, and adds the tip under 0 %', () => {
    const turnover = {
      lines: [{ rate: '0.19', gross: '7.20' }, { rate: '0.07', gross: '10.90' }, { rate: '0', gross: '5.00' }],
      cartDiscounts: ['1.00', '0.68'],
      tip: '1.00',
    };
    // 1.68 × 7.20 / 23.10 = 0.5236…, 1.68 × 5.00 / 23.10 = 0.3636…, the rest (0.80) from the largest.
    expect(shown(grossByVatRate(turnover, 2))).toEqual([['0.19', '6.68'], ['0.07', '10.10'], ['0', '5.64']]);
  });

  it('puts a tip without a 0 % line in a row of its own', () => {
    const turnover = { lines: [{ rate: '0.19', gross: '10.00' }], cartDiscounts: [], tip: '2.00' };
    expect(shown(grossByVatRate(turnover, 2))).toEqual([['0.19', '10.00'], ['0', '2.00']]);
  });

  it('gives the remainder to the first of equal gross in the order given', () => {
    const turnover = { lines: [{ rate: '0.07', gross: '1.00' }, { rate: '0.19', gross: '1.00' }], cartDiscounts: ['0.01'], tip: '0' };
    // 0.01 × 1/2 = 0.005 rounds up to a cent for the other rate; the first, the largest, keeps the rest (0).
    expect(shown(grossByVatRate(turnover, 2))).toEqual([['0.19', '1.00'], ['0.07', '0.99']]);
    const lowestFirst = (a: RateGross['rate'], b: RateGross['rate']) => a.comparedTo(b);
    expect(shown(grossByVatRate(turnover, 2, lowestFirst))).toEqual([['0.07', '1.00'], ['0.19', '0.99']]);
  });

  it('rounds each rate’s gross half up to the places asked for, once', () => {
    const turnover = { lines: [{ rate: '0.19', gross: '0.125' }, { rate: '0.19', gross: '0.0001' }], cartDiscounts: [], tip: '0' };
    expect(shown(grossByVatRate(turnover, 2))).toEqual([['0.19', '0.13']]);
  });
});

describe('vatTable', () => {
  it('adds up where summing rounded line taxes did not (issue 14: 3,03 / 0,47 / 3,50)', () => {
    expect(shownTable([{ rate: '0.19', gross: '2.50' }, { rate: '0.07', gross: '1.00' }])).toEqual({
      rows: [
        ['0.19', '2.10', '0.40', '2.50'],
        ['0.07', '0.93', '0.07', '1.00'],
      ],
      total: ['3.03', '0.47', '3.50'],
    });
  });

  it('mirrors a sale for a return, rounding half away from zero', () => {
    expect(shownTable([{ rate: '0.19', gross: '-2.50' }, { rate: '0', gross: '-1.00' }])).toEqual({
      rows: [
        ['0.19', '-2.10', '-0.40', '-2.50'],
        ['0', '-1.00', '0.00', '-1.00'],
      ],
      total: ['-3.10', '-0.40', '-3.50'],
    });
  });

  it('is its own result again: derived from rate and gross only', () => {
    const table = vatTable([{ rate: '0.07', gross: '10.10' }], 2);
    expect(vatTable(table.rows, 2)).toEqual(table);
  });
});

describe('the printed table (property)', () => {
  const cents = (min: number, max: number) => fc.integer({ min, max }).map((value) => toAmount(String(value)).dividedBy(100));
  const rate = fc.constantFrom('0', '0.05', '0.07', '0.078', '0.1', '0.16', '0.19', '0.2', '0.22', '0.14975');
  // Lines of at least a cent: a discount needs some gross to come off.
  const line = fc.record({ rate, gross: cents(1, 1_000_000) });

  it('has total = the sum of its rows in every column, net + tax = gross, all in cents, and the turnover as gross', () => {
    fc.assert(
      fc.property(
        fc.array(line, { minLength: 1, maxLength: 12 }),
        fc.array(cents(1, 5_000), { maxLength: 3 }),
        cents(0, 10_000),
        fc.boolean(),
        (lines, discounts, tip, returned) => {
          // Discounts come off goods: more discount than goods (made up by a tip) has rows of both signs.
          fc.pre(sumAmounts(discounts).lte(sumAmounts(lines.map((l) => l.gross))));
          const sign = (value: ReturnType<typeof toAmount>) => (returned ? value.negated() : value);
          const turnover = {
            lines: lines.map((l) => ({ rate: l.rate, gross: sign(l.gross) })),
            cartDiscounts: returned ? [] : discounts,
            tip: returned ? toAmount('0') : tip,
          };
          const table = vatTable(grossByVatRate(turnover, 2), 2);
          for (const column of ['gross', 'tax', 'net'] as const) {
            expect(table.total[column].eq(sumAmounts(table.rows.map((row) => row[column])))).toBe(true);
          }
          for (const row of [...table.rows, table.total]) {
            expect(row.net.plus(row.tax).eq(row.gross)).toBe(true);
            expect(row.gross.decimalPlaces()).toBeLessThanOrEqual(2);
            expect(row.tax.decimalPlaces()).toBeLessThanOrEqual(2);
            expect(row.tax.abs().lte(row.gross.abs())).toBe(true);
          }
          const expectedGross = sumAmounts(turnover.lines.map((l) => l.gross))
            .minus(sumAmounts(turnover.cartDiscounts))
            .plus(turnover.tip);
          expect(table.total.gross.eq(expectedGross)).toBe(true);
          expect(new Set(table.rows.map((row) => row.rate.toString())).size).toBe(table.rows.length);
        },
      ),
    );
  });
});
