// Style O money (contract 2.8): integer minor units, totals that derive exactly, refunds that never exceed the sale.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { alpha2Of, alpha3Of, SUPPORTED_ALPHA2 } from '../../src/domain/styleO/countries.js';
import { planRefund, type RefundableLine } from '../../src/domain/styleO/refundPlan.js';
import { taxCategory } from '../../src/domain/styleO/taxCategory.js';
import {
  allocateProportionally,
  computeTotals,
  includedTax,
  lineAmounts,
  normalizeRate,
  quantityShare,
  roundMinor,
  totalsViolations,
} from '../../src/domain/styleO/totals.js';

const RATES = ['0', '0.07', '0.19', '0.2', '0.1', '0.22', '0.055'];
const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

describe('roundMinor and includedTax', () => {
  it('rounds half away from zero and never returns -0', () => {
    expect(roundMinor('2.5')).toBe(3);
    expect(roundMinor('-2.5')).toBe(-3);
    expect(roundMinor('2.4999')).toBe(2);
    expect(Object.is(roundMinor('-0.4'), 0)).toBe(true);
  });

  it('computes the tax contained in a gross price', () => {
    expect(includedTax(1190, '0.19')).toBe(190);
    expect(includedTax(1000, '0.19')).toBe(160); // 159.66
    expect(includedTax(535, '0.07')).toBe(35);
    expect(includedTax(999, '0')).toBe(0);
    expect(includedTax(0, '0.19')).toBe(0);
  });

  it('normalizes rates', () => {
    expect(normalizeRate('0.190')).toBe('0.19');
    expect(normalizeRate('0.00')).toBe('0');
    expect(() => normalizeRate('-0.1')).toThrow(RangeError);
  });

  it('keeps the tax of a gross amount between 0 and the amount (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000_000 }), fc.constantFrom(...RATES), (gross, rate) => {
        const tax = includedTax(gross, rate);
        expect(Number.isSafeInteger(tax)).toBe(true);
        expect(tax).toBeGreaterThanOrEqual(0);
        expect(tax).toBeLessThanOrEqual(gross);
        // within half a minor unit of the exact value
        expect(Math.abs(tax - (gross * Number(rate)) / (1 + Number(rate)))).toBeLessThanOrEqual(0.5 + 1e-6);
      }),
    );
  });
});

describe('allocateProportionally', () => {
  it('splits with the largest remainder, earlier weights first on ties', () => {
    expect(allocateProportionally(100, [1, 1, 1])).toEqual([34, 33, 33]);
    expect(allocateProportionally(10, [300, 100])).toEqual([8, 2]);
    expect(allocateProportionally(7, [0, 0])).toEqual([7, 0]);
    expect(allocateProportionally(0, [5, 5])).toEqual([0, 0]);
    expect(allocateProportionally(-10, [1, 2])).toEqual([-3, -7]);
    expect(() => allocateProportionally(1, [])).toThrow(RangeError);
  });

  it('always sums to the total and stays within one unit of the exact share (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1_000_000_000 }),
        fc.array(fc.integer({ min: 0, max: 1_000_000_000 }), { minLength: 1, maxLength: 20 }),
        (total, weights) => {
          const parts = allocateProportionally(total, weights);
          expect(sum(parts)).toBe(total);
          const weightSum = sum(weights);
          parts.forEach((part, i) => {
            expect(Number.isSafeInteger(part)).toBe(true);
            expect(part).toBeGreaterThanOrEqual(0);
            if (weightSum > 0) expect(Math.abs(part - (total * weights[i]) / weightSum)).toBeLessThan(1 + 1e-6);
          });
        },
      ),
    );
  });
});

describe('quantityShare', () => {
  it('gives the last piece exactly what is left', () => {
    expect(quantityShare(1000, 0, 1, 3)).toBe(333);
    expect(quantityShare(1000, 1, 2, 3)).toBe(334);
    expect(quantityShare(1000, 2, 3, 3)).toBe(333);
    expect(quantityShare(1, '0', '0.5', '1')).toBe(1);
    expect(quantityShare(1, '0.5', '1', '1')).toBe(0);
    expect(() => quantityShare(10, 2, 1, 3)).toThrow(RangeError);
    expect(() => quantityShare(10, 0, 4, 3)).toThrow(RangeError);
  });

  it('telescopes: any split of the quantity returns exactly the amount (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 100_000_000 }),
        fc.array(fc.integer({ min: 1, max: 50 }), { minLength: 1, maxLength: 10 }),
        (amount, pieces) => {
          const whole = sum(pieces);
          let before = 0;
          const shares = pieces.map((piece) => {
            const share = quantityShare(amount, before, before + piece, whole);
            before += piece;
            return share;
          });
          expect(sum(shares)).toBe(amount);
          shares.forEach((share) => expect(share).toBeGreaterThanOrEqual(0));
        },
      ),
    );
  });
});

const lineArb = fc
  .record({
    subtotal: fc.integer({ min: 0, max: 10_000_000 }),
    lineDiscountPct: fc.integer({ min: 0, max: 100 }),
    rate: fc.constantFrom(...RATES),
    category: fc.constantFrom('standard', 'reduced', 'zero'),
  })
  .map(({ subtotal, lineDiscountPct, rate, category }) => ({
    subtotal,
    lineDiscount: Math.floor((subtotal * lineDiscountPct) / 100),
    rate,
    category,
  }));

describe('computeTotals', () => {
  it('derives a simple sale', () => {
    const a = lineAmounts({ subtotal_gross: 1190, line_discounts: [], cart_discount_allocations: [], tax_rate: '0.19' });
    const b = lineAmounts({ subtotal_gross: 535, line_discounts: [{ amount: 35 }], cart_discount_allocations: [{ amount: 100 }], tax_rate: '0.07' });
    expect(b).toMatchObject({ line_discount_amount: 35, subtotal_after_line_discounts: 500, cart_discount_amount: 100, total_gross: 400, tax_amount: 26, total_net: 374 });
    const totals = computeTotals(
      [
        { ...a, tax_rate: '0.19', tax_category: 'standard' },
        { ...b, tax_rate: '0.07', tax_category: 'reduced' },
      ],
      { direction: 'charge', untaxed_payable: 200 },
    );
    expect(totals).toEqual({
      subtotal_gross: 1725,
      total_line_discounts: 35,
      subtotal_after_line_discounts: 1690,
      total_cart_discounts: 100,
      subtotal_after_all_discounts: 1590,
      rounding_adjustment: 0,
      total_gross: 1590,
      total_net: 1374,
      total_tax: 216,
      tax_breakdown: [
        { rate: '0.19', category: 'standard', taxable_amount: 1000, tax_amount: 190, total_gross: 1190 },
        { rate: '0.07', category: 'reduced', taxable_amount: 374, tax_amount: 26, total_gross: 400 },
      ],
      net_payable: 1790,
    });
    expect(totalsViolations(totals, 'charge')).toEqual([]);
  });

  it('makes net_payable the only negative amount, and only on refunds', () => {
    const line = lineAmounts({ subtotal_gross: 1190, line_discounts: [], cart_discount_allocations: [], tax_rate: '0.19' });
    const refund = computeTotals([{ ...line, tax_rate: '0.19', tax_category: 'standard' }], { direction: 'refund' });
    expect(refund.net_payable).toBe(-1190);
    expect(refund.total_gross).toBe(1190);
    expect(() => computeTotals([], { direction: 'refund', untaxed_payable: 5 })).toThrow(RangeError);
    expect(Object.is(computeTotals([], { direction: 'refund' }).net_payable, 0)).toBe(true);
  });

  it('always satisfies the derivation of contract 2.8 (property)', () => {
    fc.assert(
      fc.property(
        fc.array(lineArb, { minLength: 0, maxLength: 15 }),
        fc.integer({ min: 0, max: 100 }),
        fc.integer({ min: -2, max: 2 }),
        fc.constantFrom('charge' as const, 'refund' as const),
        (lines, cartPct, rounding, direction) => {
          const afterLine = lines.map((line) => line.subtotal - line.lineDiscount);
          const cart = Math.floor((sum(afterLine) * cartPct) / 100);
          const allocations = lines.length ? allocateProportionally(cart, afterLine) : [];
          const amounts = lines.map((line, i) => ({
            ...lineAmounts({
              subtotal_gross: line.subtotal,
              line_discounts: [{ amount: line.lineDiscount }],
              cart_discount_allocations: [{ amount: allocations[i] }],
              tax_rate: line.rate,
            }),
            tax_rate: line.rate,
            tax_category: line.category,
          }));
          const totals = computeTotals(amounts, { direction, rounding_adjustment: rounding });
          expect(totalsViolations(totals, direction)).toEqual([]);
          for (const value of Object.values(totals)) if (typeof value === 'number') expect(Number.isSafeInteger(value)).toBe(true);
          for (const line of amounts) {
            expect(line.total_gross).toBeGreaterThanOrEqual(0);
            expect(line.tax_amount + line.total_net).toBe(line.total_gross);
          }
          // Only net_payable may be negative, and only on a refund (rounding aside).
          if (rounding >= 0) {
            const { net_payable, tax_breakdown, ...rest } = totals;
            for (const value of Object.values(rest)) if (typeof value === 'number' && value !== rounding) expect(value).toBeGreaterThanOrEqual(0);
            for (const entry of tax_breakdown) expect(Math.min(entry.tax_amount, entry.taxable_amount, entry.total_gross)).toBeGreaterThanOrEqual(0);
            if (direction === 'charge') expect(net_payable).toBeGreaterThanOrEqual(0);
            else expect(net_payable).toBeLessThanOrEqual(0);
          }
        },
      ),
    );
  });
});

const saleLineArb = fc.record({
  quantity: fc.integer({ min: 1, max: 12 }),
  total_gross: fc.integer({ min: 0, max: 1_000_000 }),
  rate: fc.constantFrom(...RATES),
  cart: fc.integer({ min: 0, max: 50 }),
});

describe('planRefund', () => {
  const sale: RefundableLine[] = [
    { id: 'a', quantity: 3, total_gross: 999, tax_amount: 160, line_discounts: [], cart_discount_allocations: [{ discount_id: 'd', amount: 100 }] },
    { id: 'b', quantity: 1, total_gross: 535, tax_amount: 35, line_discounts: [{ id: 'ld', amount: 20 }], cart_discount_allocations: [] },
  ];

  it('refunds everything in full', () => {
    const plan = planRefund(sale, new Map(), { refund_type: 'full' });
    expect(plan.ok).toBe(true);
    if (!plan.ok) return;
    expect(plan.lines.map((line) => [line.line_id, line.quantity, line.total_gross, line.tax_amount, line.subtotal_gross])).toEqual([
      ['a', 3, 999, 160, 1099],
      ['b', 1, 535, 35, 555],
    ]);
  });

  it('refuses a full refund after any refund, naming refund_type', () => {
    const plan = planRefund(sale, new Map([['a', 1]]), { refund_type: 'full' });
    expect(plan).toMatchObject({ ok: false, violation: { field: 'refund_type' } });
  });

  it('refunds quantities piece by piece and refuses more than is left', () => {
    const first = planRefund(sale, new Map(), { refund_type: 'partial', line_items: [{ line_item_id: 'a', quantity: 1 }] });
    const second = planRefund(sale, new Map([['a', 1]]), { refund_type: 'partial', line_items: [{ line_item_id: 'a', quantity: 2 }] });
    if (!first.ok || !second.ok) throw new Error('expected plans');
    expect(first.lines[0].total_gross + second.lines[0].total_gross).toBe(999);
    expect(first.lines[0].tax_amount + second.lines[0].tax_amount).toBe(160);
    expect(first.lines[0].cart_discount_allocations[0].amount + second.lines[0].cart_discount_allocations[0].amount).toBe(100);
    const third = planRefund(sale, new Map([['a', 3]]), { refund_type: 'partial', line_items: [{ line_item_id: 'a', quantity: 0.5 }] });
    expect(third).toMatchObject({ ok: false, violation: { field: 'line_items[0].quantity', details: { quantity_refundable: 0 } } });
  });

  it('names unknown and repeated line items', () => {
    expect(planRefund(sale, new Map(), { refund_type: 'partial', line_items: [{ line_item_id: 'zz', quantity: 1 }] })).toMatchObject({
      ok: false,
      violation: { field: 'line_items[0].line_item_id' },
    });
    expect(
      planRefund(sale, new Map(), {
        refund_type: 'partial',
        line_items: [
          { line_item_id: 'b', quantity: 0.5 },
          { line_item_id: 'b', quantity: 0.5 },
        ],
      }),
    ).toMatchObject({ ok: false, violation: { field: 'line_items[1].line_item_id' } });
  });

  it('never lets refunds together exceed the sale, and refunding everything returns it exactly (property)', () => {
    fc.assert(
      fc.property(
        fc.array(saleLineArb, { minLength: 1, maxLength: 6 }),
        fc.array(fc.record({ line: fc.nat(), quantity: fc.integer({ min: 1, max: 13 }) }), { maxLength: 30 }),
        (lines, requests) => {
          const saleLines: RefundableLine[] = lines.map((line, i) => ({
            id: `l${i}`,
            quantity: line.quantity,
            total_gross: line.total_gross,
            tax_amount: includedTax(line.total_gross, line.rate),
            line_discounts: [],
            cart_discount_allocations: [{ discount_id: 'd', amount: line.cart }],
          }));
          const refunded = new Map<string, number>();
          const returned = new Map<string, { total: number; tax: number; cart: number }>();
          const take = (plan: ReturnType<typeof planRefund>) => {
            if (!plan.ok) return;
            for (const line of plan.lines) {
              refunded.set(line.line_id, (refunded.get(line.line_id) ?? 0) + line.quantity);
              const sums = returned.get(line.line_id) ?? { total: 0, tax: 0, cart: 0 };
              returned.set(line.line_id, {
                total: sums.total + line.total_gross,
                tax: sums.tax + line.tax_amount,
                cart: sums.cart + line.cart_discount_allocations[0].amount,
              });
              expect(line.subtotal_gross).toBe(line.total_gross + line.cart_discount_allocations[0].amount);
            }
          };
          for (const request of requests) {
            const line = saleLines[request.line % saleLines.length];
            const plan = planRefund(saleLines, refunded, { refund_type: 'partial', line_items: [{ line_item_id: line.id, quantity: request.quantity }] });
            const left = line.quantity - (refunded.get(line.id) ?? 0);
            expect(plan.ok).toBe(request.quantity <= left);
            take(plan);
          }
          // refund whatever is left, line by line
          for (const line of saleLines) {
            const left = line.quantity - (refunded.get(line.id) ?? 0);
            if (left > 0) take(planRefund(saleLines, refunded, { refund_type: 'partial', line_items: [{ line_item_id: line.id, quantity: left }] }));
          }
          for (const line of saleLines) {
            expect(returned.get(line.id)).toEqual({ total: line.total_gross, tax: line.tax_amount, cart: line.cart_discount_allocations[0].amount });
          }
        },
      ),
    );
  });
});

describe('countries and tax categories', () => {
  it('converts alpha-2 and alpha-3 both ways', () => {
    expect(alpha3Of('DE')).toBe('DEU');
    expect(alpha3Of('AT')).toBe('AUT');
    expect(alpha3Of('IT')).toBe('ITA');
    expect(alpha3Of('XX')).toBeUndefined();
    expect(alpha2Of('FRA')).toBe('FR');
    expect(alpha2Of('ZZZ')).toBe('ZZZ');
    for (const code of SUPPORTED_ALPHA2) expect(alpha2Of(alpha3Of(code)!)).toBe(code);
    expect(new Set(SUPPORTED_ALPHA2.map(alpha3Of)).size).toBe(SUPPORTED_ALPHA2.length);
  });

  it('categorizes rates per country', () => {
    expect(taxCategory('0.19', 'DEU')).toBe('standard');
    expect(taxCategory('0.07', 'DEU')).toBe('reduced');
    expect(taxCategory('0', 'DEU')).toBe('zero');
    expect(taxCategory('0.20', 'AUT')).toBe('standard');
    expect(taxCategory('0.1', 'ITA')).toBe('reduced');
    expect(taxCategory('0.21', 'NLD')).toBe('standard');
    expect(taxCategory('0', 'DEU', { giftCard: true })).toBe('outside_scope');
  });
});
