// Invoice amounts: net prices, discounts by amount or rate, VAT per breakdown row rounded once,
// line taxes that add up to their row, and totals that derive as contract 2.8 says.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { invoiceAmounts, lineNetOf, type InvoiceLineInput } from '../../src/domain/invoices/invoiceTotals.js';
import { totalsViolations } from '../../src/domain/styleO/totals.js';

const line = (overrides: Partial<InvoiceLineInput> = {}): InvoiceLineInput => ({
  quantity: '1',
  unitPriceNet: 1000,
  discount: null,
  rate: '0.22',
  category: 'S',
  natureCode: null,
  ...overrides,
});

describe('a line', () => {
  it('is quantity × unit price, rounded half up once, less its discount', () => {
    expect(lineNetOf(line({ quantity: '3', unitPriceNet: 333 }))).toEqual({ base: 999, discountAmount: 0, net: 999 });
    expect(lineNetOf(line({ quantity: '0.5', unitPriceNet: 333 }))).toEqual({ base: 167, discountAmount: 0, net: 167 });
    expect(lineNetOf(line({ quantity: '2', unitPriceNet: 1000, discount: { type: 'amount', amount: 150 } }))).toEqual({ base: 2000, discountAmount: 150, net: 1850 });
    expect(lineNetOf(line({ quantity: '1', unitPriceNet: 1005, discount: { type: 'rate', rate: '0.1' } }))).toEqual({ base: 1005, discountAmount: 101, net: 904 });
  });
});

describe('invoice amounts', () => {
  it('tax each VAT row once and spread it over the row by net', () => {
    // Three lines of 0.33 at 22 %: the row's VAT is 0.99 × 0.22 = 0.2178 -> 0.22, not 3 × 0.07.
    const { lines, totals } = invoiceAmounts([line({ unitPriceNet: 33 }), line({ unitPriceNet: 33 }), line({ unitPriceNet: 33 })], { creditNote: false });
    expect(totals.tax_breakdown).toEqual([{ rate: '0.22', category: 'S', nature_code: null, taxable_amount: 99, tax_amount: 22, total_gross: 121 }]);
    expect(lines.map((l) => l.tax)).toEqual([8, 7, 7]);
    expect(lines.reduce((sum, l) => sum + l.gross, 0)).toBe(totals.total_gross);
  });

  it('keep a row per rate, category and natura, in the order of the lines', () => {
    const { totals } = invoiceAmounts(
      [
        line({ rate: '0.1', unitPriceNet: 500 }),
        line({ rate: '0', category: 'E', natureCode: 'N4', unitPriceNet: 200 }),
        line({ rate: '0', category: 'O', natureCode: 'N2.2', unitPriceNet: 300 }),
        line({ rate: '0.10', unitPriceNet: 500 }),
      ],
      { creditNote: false },
    );
    expect(totals.tax_breakdown.map((row) => [row.rate, row.category, row.nature_code, row.taxable_amount, row.tax_amount])).toEqual([
      ['0.1', 'S', null, 1000, 100],
      ['0', 'E', 'N4', 200, 0],
      ['0', 'O', 'N2.2', 300, 0],
    ]);
  });

  it('count discounts with their VAT between subtotal_gross and total_gross', () => {
    const { totals } = invoiceAmounts([line({ quantity: '2', unitPriceNet: 1000, discount: { type: 'rate', rate: '0.25' } })], { creditNote: false });
    expect(totals).toMatchObject({ subtotal_gross: 2440, total_line_discounts: 610, total_net: 1500, total_tax: 330, total_gross: 1830, net_payable: 1830 });
  });

  it('make a credit note payable to the buyer', () => {
    expect(invoiceAmounts([line()], { creditNote: true }).totals.net_payable).toBe(-1220);
  });

  it('always derive as contract 2.8 says, with line totals consistent with their rows', () => {
    const lineArbitrary = fc.record({
      quantity: fc.oneof(fc.integer({ min: 1, max: 1000 }).map(String), fc.integer({ min: 1, max: 99_999 }).map((n) => (n / 1000).toFixed(3))),
      unitPriceNet: fc.integer({ min: 0, max: 1_000_000 }),
      discountRate: fc.option(fc.integer({ min: 0, max: 100 }).map((n) => (n / 100).toFixed(2))),
      rate: fc.constantFrom('0', '0.04', '0.05', '0.07', '0.1', '0.19', '0.22'),
    });
    fc.assert(
      fc.property(fc.array(lineArbitrary, { minLength: 1, maxLength: 12 }), fc.boolean(), (inputs, creditNote) => {
        const lines = inputs.map((input) =>
          line({
            quantity: input.quantity,
            unitPriceNet: input.unitPriceNet,
            rate: input.rate,
            category: input.rate === '0' ? 'Z' : 'S',
            discount: input.discountRate ? { type: 'rate', rate: input.discountRate } : null,
          }),
        );
        const { lines: amounts, totals } = invoiceAmounts(lines, { creditNote });
        expect(totalsViolations(totals, creditNote ? 'refund' : 'charge')).toEqual([]);
        for (const row of totals.tax_breakdown) {
          const members = amounts.filter((_, i) => lines[i].rate === row.rate || Number(lines[i].rate) === Number(row.rate));
          expect(members.reduce((sum, l) => sum + l.tax, 0)).toBe(row.tax_amount);
          expect(members.reduce((sum, l) => sum + l.net, 0)).toBe(row.taxable_amount);
        }
        for (const amount of amounts) {
          expect(amount.net + amount.tax).toBe(amount.gross);
          expect(amount.base - amount.discountAmount).toBe(amount.net);
        }
        expect(totals.total_line_discounts).toBeGreaterThanOrEqual(0);
      }),
    );
  });
});
