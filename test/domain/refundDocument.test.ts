// A Style O refund's document from the sale it refunds (contract 2.8, 4.3): lines, cart discounts, totals, payments, Style M mirror.
import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import type { StyleOCartDiscount, StyleOLineItem, StyleOPayment } from '../../src/domain/styleO/document.js';
import {
  buildRefundDocument,
  completesSale,
  earlierRefundsOf,
  mirroredStyleM,
  refundCartDiscounts,
  refundLines,
  refundPayments,
  refundTotals,
  type NewId,
  type RefundedSale,
} from '../../src/domain/styleO/refundDocument.js';
import { lineAmounts, totalsViolations } from '../../src/domain/styleO/totals.js';

/** Ids in order of creation: li_1, pay_2, tax_3, ... */
function counter(): NewId {
  let n = 0;
  return (prefix) => `${prefix}_${++n}`;
}

function saleLine(id: string, quantity: number, unitPrice: number, rate: string, allocations: StyleOLineItem['cart_discount_allocations'] = []): StyleOLineItem {
  const amounts = lineAmounts({ subtotal_gross: quantity * unitPrice, line_discounts: [], cart_discount_allocations: allocations, tax_rate: rate });
  return {
    id,
    position: 1,
    description: `Item ${id}`,
    quantity,
    unit: null,
    unit_price_gross: unitPrice,
    product_ref: `SKU-${id}`,
    flags: [],
    subtotal_gross: amounts.subtotal_gross,
    line_discounts: [],
    line_discount_amount: amounts.line_discount_amount,
    subtotal_after_line_discounts: amounts.subtotal_after_line_discounts,
    cart_discount_allocations: allocations,
    cart_discount_amount: amounts.cart_discount_amount,
    total_gross: amounts.total_gross,
    tax: { rate, category: rate === '0' ? 'zero' : 'standard', included_in_price: true, taxable_amount: amounts.taxable_amount, tax_amount: amounts.tax_amount },
    total_net: amounts.total_net,
    original_line_item_id: null,
  };
}

const payment = (method: string, amount: number, extra: Partial<StyleOPayment> = {}): StyleOPayment => ({
  id: `pay_sale_${method}`,
  method,
  direction: 'charge',
  amount,
  currency: 'EUR',
  reference: null,
  status: 'captured',
  ...extra,
});

const discount: StyleOCartDiscount = {
  id: 'dis_1',
  source: 'merchant',
  type: 'fixed_amount',
  label: 'Loyalty',
  code: null,
  allocation_method: 'proportional',
  rate: null,
  amount: 300,
  total_amount: 300,
};

/** 3 × 10.00 at 19 % and 1 × 5.00 at 7 %, less a 3.00 cart discount (2.00 / 1.00), paid 32.00 in cash. */
function sale(overrides: Partial<RefundedSale> = {}): RefundedSale {
  return {
    currency: 'EUR',
    line_items: [
      saleLine('li_a', 3, 1000, '0.19', [{ discount_id: 'dis_1', amount: 200, label: 'Loyalty' }]),
      saleLine('li_b', 1, 500, '0.07', [{ discount_id: 'dis_1', amount: 100, label: 'Loyalty' }]),
    ],
    cart_discounts: [discount],
    payments: [payment('cash', 3200)],
    totals: { rounding_adjustment: 0 },
    ...overrides,
  };
}

const noneEarlier = { quantities: new Map<string, Decimal>(), rounding: 0 };

describe('earlierRefundsOf', () => {
  it('adds up the quantities per original line and the rounding the refunds returned', () => {
    const line = (original: string | null, quantity: number) => ({ original_line_item_id: original, quantity });
    const earlier = earlierRefundsOf([
      { line_items: [line('li_a', 1), line('li_b', 0.5)], totals: { rounding_adjustment: 0 } },
      { line_items: [line('li_a', 1.25), line(null, 7)], totals: { rounding_adjustment: -1 } },
    ]);
    expect([...earlier.quantities].map(([id, quantity]) => [id, quantity.toString()])).toEqual([
      ['li_a', '2.25'],
      ['li_b', '0.5'],
    ]);
    expect(earlier.rounding).toBe(-1);
  });

  it('is nothing for a sale without refunds', () => {
    expect(earlierRefundsOf([])).toEqual({ quantities: new Map(), rounding: 0 });
  });
});

describe('completesSale', () => {
  const lines = [
    { id: 'li_a', quantity: 3 },
    { id: 'li_b', quantity: 1 },
  ];

  it('is true once earlier refunds and these lines take every line whole', () => {
    const earlier = new Map([['li_a', new Decimal(2)]]);
    const now = [
      { original_line_item_id: 'li_a', quantity: 1 },
      { original_line_item_id: 'li_b', quantity: 1 },
    ];
    expect(completesSale({ line_items: lines }, earlier, now)).toBe(true);
    expect(completesSale({ line_items: lines }, new Map(), now)).toBe(false);
  });

  it('leaves the earlier quantities as they were', () => {
    const earlier = new Map([['li_a', new Decimal(2)]]);
    completesSale({ line_items: lines }, earlier, [{ original_line_item_id: 'li_a', quantity: 1 }]);
    expect(earlier.get('li_a')!.toString()).toBe('2');
  });
});

describe('refundLines', () => {
  it('gives each planned share the sale line\'s description, price and tax, with new ids and positions', () => {
    const plan = [
      {
        line_id: 'li_b',
        quantity: 1,
        subtotal_gross: 500,
        line_discounts: [],
        cart_discount_allocations: [{ discount_id: 'dis_1', amount: 100 }],
        total_gross: 400,
        tax_amount: 26,
      },
      {
        line_id: 'li_a',
        quantity: 1,
        subtotal_gross: 1000,
        line_discounts: [],
        cart_discount_allocations: [{ discount_id: 'dis_1', amount: 67 }],
        total_gross: 933,
        tax_amount: 149,
      },
    ];
    const [first, second] = refundLines(sale(), plan, counter());
    expect(first).toMatchObject({
      id: 'li_1',
      position: 1,
      description: 'Item li_b',
      quantity: 1,
      unit_price_gross: 500,
      product_ref: 'SKU-li_b',
      subtotal_gross: 500,
      cart_discount_allocations: [{ discount_id: 'dis_1', amount: 100, label: 'Loyalty' }],
      cart_discount_amount: 100,
      total_gross: 400,
      tax: { rate: '0.07', category: 'standard', included_in_price: true, taxable_amount: 374, tax_amount: 26 },
      total_net: 374,
      original_line_item_id: 'li_b',
    });
    expect(second).toMatchObject({ id: 'li_2', position: 2, original_line_item_id: 'li_a', total_gross: 933, tax: { tax_amount: 149 } });
  });
});

describe('refundTotals and refundCartDiscounts', () => {
  const built = buildRefundDocument(sale(), noneEarlier, { selection: { refund_type: 'partial', line_items: [{ line_item_id: 'li_a', quantity: 1 }] } }, counter());
  if (!built.ok) throw new Error(built.violation.message);
  const lines = built.document.line_items;

  it('totals the lines as money going back, with the rounding the refund returns', () => {
    const totals = refundTotals(lines, -1);
    expect(totals).toMatchObject({ subtotal_after_all_discounts: 933, rounding_adjustment: -1, total_gross: 932, net_payable: -932 });
    expect(totalsViolations(totals, 'refund')).toEqual([]);
  });

  it('keeps the sale\'s discounts the lines carry, each with what the refund applies of it', () => {
    expect(refundCartDiscounts(sale().cart_discounts, lines)).toEqual([{ ...discount, total_amount: 67 }]);
    expect(refundCartDiscounts(sale().cart_discounts, [])).toEqual([]);
  });
});

describe('refundPayments', () => {
  const full = (payments: StyleOPayment[], total: number) => refundPayments(undefined, 'full', { currency: 'EUR', payments }, total, counter());

  it('takes the payments requested, in the sale\'s currency, with explicit nulls', () => {
    const result = refundPayments(
      [
        { method: 'card', amount: 2000, card: { scheme: 'visa', last4: '4242' }, reference: 'R-1' },
        { method: 'cash', amount: 1200, currency: 'EUR', cash: {} },
      ],
      'partial',
      sale(),
      3200,
      counter(),
    );
    expect(result).toEqual({
      ok: true,
      payments: [
        {
          id: 'pay_1',
          method: 'card',
          direction: 'refund',
          amount: 2000,
          currency: 'EUR',
          reference: 'R-1',
          status: 'refunded',
          card: { scheme: 'visa', last4: '4242', authorization_code: null, terminal_id: null, application_id: null },
        },
        { id: 'pay_2', method: 'cash', direction: 'refund', amount: 1200, currency: 'EUR', reference: null, status: 'refunded', cash: { amount_tendered: null } },
      ],
    });
  });

  it('returns the first broken rule of the payments requested', () => {
    const check = (requested: Parameters<typeof refundPayments>[0]) => refundPayments(requested, 'full', sale(), 3200, counter());
    expect(check([{ method: 'cash', amount: 1000 }, { method: 'cash', amount: 2200, currency: 'USD' }])).toEqual({
      ok: false,
      violation: { code: 'validation_error', message: "A refund payment must be in the sale's currency EUR", field: 'payments[1].currency', details: { currency: 'EUR' } },
    });
    expect(check([{ method: 'gift_card', amount: 3200, gift_card: { gift_card_id: ' ' } }])).toEqual({
      ok: false,
      violation: { code: 'gift_card_id_required', message: 'A gift_card payment must carry gift_card.gift_card_id', field: 'payments[0].gift_card.gift_card_id' },
    });
    expect(check([{ method: 'cash', amount: 3100 }])).toMatchObject({
      ok: false,
      violation: { code: 'validation_error', field: 'payments', details: { payments_total: 3100, refund_total: 3200 } },
    });
  });

  it('repeats the sale\'s payments on a full refund they add up to', () => {
    const result = full([payment('cash', 1200), payment('card', 2000, { card: { scheme: 'visa', last4: null, authorization_code: null, terminal_id: null, application_id: null } })], 3200);
    expect(result.ok && result.payments.map(({ id, method, direction, amount, status, card }) => ({ id, method, direction, amount, status, card }))).toEqual([
      { id: 'pay_1', method: 'cash', direction: 'refund', amount: 1200, status: 'refunded', card: undefined },
      { id: 'pay_2', method: 'card', direction: 'refund', amount: 2000, status: 'refunded', card: expect.objectContaining({ scheme: 'visa' }) },
    ]);
  });

  it('refunds a sale paid by one method by that method, and nothing when nothing goes back', () => {
    const partial = refundPayments(undefined, 'partial', { currency: 'EUR', payments: [payment('card', 1000), payment('card', 2200)] }, 933, counter());
    expect(partial.ok && partial.payments.map((p) => [p.method, p.amount])).toEqual([['card', 933]]);
    expect(full([payment('cash', 3200)], 0)).toEqual({ ok: true, payments: [] });
  });

  it('counts a method however it is written as one method', () => {
    const partial = refundPayments(undefined, 'partial', { currency: 'EUR', payments: [payment('Cash', 1000), payment(' cash', 2200)] }, 933, counter());
    expect(partial.ok && partial.payments.map((p) => [p.method, p.amount])).toEqual([['Cash', 933]]);
  });

  it('asks a gift card however it is written for its id', () => {
    const result = refundPayments([{ method: 'Gift Card', amount: 933 }], 'partial', { currency: 'EUR', payments: [] }, 933, counter());
    expect(result).toMatchObject({ ok: false, violation: { code: 'gift_card_id_required', field: 'payments[0].gift_card.gift_card_id' } });
  });

  it('needs the payments requested when the sale was paid by several methods or not at all', () => {
    expect(refundPayments(undefined, 'partial', { currency: 'EUR', payments: [payment('cash', 1200), payment('card', 2000)] }, 933, counter())).toMatchObject({
      ok: false,
      violation: { code: 'validation_error', field: 'payments', message: expect.stringContaining('several methods'), details: { refund_total: 933 } },
    });
    expect(full([], 933)).toMatchObject({ ok: false, violation: { message: expect.stringContaining('no payments') } });
  });
});

describe('buildRefundDocument', () => {
  it('refunds a whole sale: the same totals, as money going back, paid back as it was paid', () => {
    const built = buildRefundDocument(sale(), noneEarlier, { selection: { refund_type: 'full' } }, counter());
    expect(built.ok).toBe(true);
    if (!built.ok) return;
    const { document } = built;
    expect(document.line_items.map((line) => [line.original_line_item_id, line.quantity, line.total_gross])).toEqual([
      ['li_a', 3, 2800],
      ['li_b', 1, 400],
    ]);
    expect(document.cart_discounts).toEqual([discount]);
    expect(document.totals).toMatchObject({ total_gross: 3200, total_cart_discounts: 300, net_payable: -3200 });
    expect(document.payments.map((p) => [p.method, p.amount, p.direction])).toEqual([['cash', 3200, 'refund']]);
  });

  it('returns the sale\'s rounding_adjustment with the refund that takes its last items', () => {
    const rounded = sale({ totals: { rounding_adjustment: -1 }, payments: [payment('cash', 3199)] });
    const first = buildRefundDocument(rounded, noneEarlier, { selection: { refund_type: 'partial', line_items: [{ line_item_id: 'li_a', quantity: 3 }] } }, counter());
    expect(first.ok && first.document.totals.rounding_adjustment).toBe(0);
    const earlier = { quantities: new Map([['li_a', new Decimal(3)]]), rounding: 0 };
    const last = buildRefundDocument(rounded, earlier, { selection: { refund_type: 'partial', line_items: [{ line_item_id: 'li_b', quantity: 1 }] } }, counter());
    expect(last.ok && last.document.totals).toMatchObject({ rounding_adjustment: -1, total_gross: 399 });
  });

  it('returns a refund beyond the sale as a validation_error naming the field', () => {
    const earlier = { quantities: new Map([['li_b', new Decimal(1)]]), rounding: 0 };
    expect(buildRefundDocument(sale(), earlier, { selection: { refund_type: 'partial', line_items: [{ line_item_id: 'li_b', quantity: 1 }] } }, counter())).toMatchObject({
      ok: false,
      violation: { code: 'validation_error', field: 'line_items[0].quantity', details: { line_item_id: 'li_b', quantity_refundable: 0 } },
    });
  });

  it('returns payments that do not add up as their violation', () => {
    const built = buildRefundDocument(sale(), noneEarlier, { selection: { refund_type: 'full' }, payments: [{ method: 'cash', amount: 1 }] }, counter());
    expect(built).toMatchObject({ ok: false, violation: { field: 'payments', details: { payments_total: 1, refund_total: 3200 } } });
  });
});

describe('mirroredStyleM', () => {
  it('mirrors the refund as a Style M return holds it: negative decimal strings, one VAT tax per line', () => {
    const built = buildRefundDocument(
      sale({ payments: [payment('card', 3200, { reference: 'R-9', card: { scheme: 'visa', last4: null, authorization_code: null, terminal_id: null, application_id: null } })] }),
      noneEarlier,
      { selection: { refund_type: 'full' } },
      counter(),
    );
    if (!built.ok) throw new Error(built.violation.message);
    const mirror = mirroredStyleM(built.document, () => 'tax_x');
    expect(mirror.lineItems[1]).toEqual({
      id: built.document.line_items[1].id,
      type: 'item',
      title: 'Item li_b',
      quantity: 1,
      unit_price: '-5.00',
      total_amount: '-4.00',
      sku_identifier: 'SKU-li_b',
      taxes: [{ id: 'tax_x', name: 'VAT', rate: '0.07', tax_amount: '-0.26' }],
      gift_card_id: null,
    });
    expect(mirror.payments).toEqual([
      {
        id: built.document.payments[0].id,
        payment_id: null,
        method: 'card',
        amount: '-32.00',
        currency: 'EUR',
        status: 'refunded',
        processor: null,
        card_brand: 'visa',
        processor_reference: 'R-9',
        processed_at: null,
        gift_card_id: null,
      },
    ]);
    expect(mirror).toMatchObject({ totalAmount: '-32.00', taxAmount: '-4.73', pretaxAmount: '-27.27', tipAmount: '0.00' });
  });

  it('keeps gift cards apart, writes zero without a sign and amounts in the currency\'s minor unit', () => {
    const giftCard = { ...saleLine('li_g', 1, 0, '0'), flags: ['gift_card'] };
    const built = buildRefundDocument(
      {
        currency: 'JPY',
        line_items: [giftCard, saleLine('li_y', 1, 500, '0.1')],
        cart_discounts: [],
        payments: [payment('cash', 500, { currency: 'JPY' })],
        totals: { rounding_adjustment: 0 },
      },
      noneEarlier,
      { selection: { refund_type: 'full' } },
      counter(),
    );
    if (!built.ok) throw new Error(built.violation.message);
    const mirror = mirroredStyleM(built.document, counter());
    expect(mirror.lineItems.map((line) => [line.type, line.unit_price, line.total_amount, line.taxes[0].tax_amount])).toEqual([
      ['gift_card', '0.00', '0.00', '0.00'],
      ['item', '-500.00', '-500.00', '-45.00'],
    ]);
    expect(mirror.payments.map((p) => [p.amount, p.currency])).toEqual([['-500.00', 'JPY']]);
  });
});
