// Contract 4.2 validation rules of POST /v1/operations (and the payment rules of
// complete), each with its exact status, code and the field named in details.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenantWithKey, createTestApp, json, type TestApp } from '../support/testApp.js';
import {
  completeOp,
  createAndCompleteSale,
  createOperation,
  exchangeBody,
  expectApiError,
  fiscalizedRegisterWithSession,
  mustComplete,
  mustCreate,
  returnBody,
  saleBody,
  voidOp,
  type OperationsFixture,
} from '../support/operations.js';

let t: TestApp;
let fx: OperationsFixture;
/** A second merchant of the same tenant. */
let other: OperationsFixture;
let completedSale: any;

beforeAll(async () => {
  t = await createTestApp();
  const tenant = await createTenantWithKey(t.database, 'DEU');
  fx = await fiscalizedRegisterWithSession(t.app, tenant.apiKey);
  other = await fiscalizedRegisterWithSession(t.app, tenant.apiKey);
  completedSale = await createAndCompleteSale(t.app, fx);
});
afterAll(() => t.close());

const post = (payload: object, headers = fx.headers) => createOperation(t.app, headers, payload);
const line = (overrides: Record<string, unknown> = {}) => ({
  title: 'Brot',
  quantity: 1,
  unit_price: '11.90',
  total_amount: '11.90',
  sku_identifier: 'SKU-BROT',
  taxes: [{ name: 'MwSt', rate: '0.19', tax_amount: '1.9' }],
  ...overrides,
});

describe('shape of the body (400 invalid_request)', () => {
  it('requires Idempotency-Key', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/v1/operations', headers: fx.headers, payload: saleBody(fx.registerId) });
    const body = expectApiError(response, 400, 'invalid_request');
    expect(body.details.header).toBe('Idempotency-Key');
  });

  it('rejects an unknown type discriminator with 400', async () => {
    const body = expectApiError(await post(saleBody(fx.registerId, { type: 'layaway' })), 400, 'invalid_request');
    expect(body.details.field).toBe('type');
  });

  it("rejects type 'refund' with 422 validation_error pointing to 'return' (rule 10)", async () => {
    const body = expectApiError(await post(returnBody(fx.registerId, completedSale.id, { type: 'refund' })), 422, 'validation_error');
    expect(body.details).toMatchObject({ field: 'type', expected: 'return' });
    expect(body.message).toMatch(/return/);
  });

  it.each([
    ['sale', () => saleBody(fx.registerId)],
    ['return', () => returnBody(fx.registerId, completedSale.id)],
    ['exchange', () => exchangeBody(fx.registerId, completedSale.id)],
  ])('requires sku_identifier on every %s line (400, field named)', async (_type, build) => {
    const body = build() as any;
    const lines = body.line_items.map((item: any, i: number) => {
      if (i !== body.line_items.length - 1) return item;
      const { sku_identifier: _dropped, ...rest } = item;
      return rest;
    });
    const error = expectApiError(await post({ ...body, line_items: lines }), 400, 'invalid_request');
    expect(error.details.field).toBe(`line_items[${lines.length - 1}].sku_identifier`);
  });

  it('rejects a JSON number where a decimal string is required', async () => {
    const error = expectApiError(await post(saleBody(fx.registerId, { total_amount: 11.9 })), 400, 'invalid_request');
    expect(error.details.field).toBe('total_amount');
  });

  it('rejects an unknown field (strict objects)', async () => {
    const error = expectApiError(await post(saleBody(fx.registerId, { customer: 'x' })), 400, 'invalid_request');
    expect(error.details.field).toBe('customer');
  });
});

describe('rule 1: POS and ONLINE', () => {
  it('a POS goods movement must carry register_id', async () => {
    const { register_id: _omit, ...body } = saleBody(fx.registerId) as any;
    const error = expectApiError(await post(body), 422, 'validation_error');
    expect(error.details.field).toBe('register_id');
    expectApiError(await post({ ...body, register_id: null }), 422, 'validation_error');
  });

  it('an ONLINE goods movement must not carry register_id', async () => {
    const error = expectApiError(await post(saleBody(null, { register_id: fx.registerId })), 422, 'validation_error');
    expect(error.details.field).toBe('register_id');
  });

  it('an ONLINE goods movement without register_id is accepted', async () => {
    expect((await post(saleBody(null))).statusCode).toBe(201);
  });
});

describe('rules 2 and 3: related operation', () => {
  it('a sale must carry neither related_operation_id nor external_related_operation', async () => {
    const related = expectApiError(await post(saleBody(fx.registerId, { related_operation_id: completedSale.id })), 422, 'validation_error');
    expect(related.details.field).toBe('related_operation_id');
    const external = expectApiError(
      await post(saleBody(fx.registerId, { external_related_operation: { description: 'x', external_operation_id: 'y' } })),
      422,
      'validation_error',
    );
    expect(external.details.field).toBe('external_related_operation');
  });

  it.each([
    ['return', returnBody],
    ['exchange', exchangeBody],
  ])('a %s carries exactly one of the two', async (_type, build) => {
    const none = build(fx.registerId, completedSale.id) as any;
    delete none.related_operation_id;
    expect(expectApiError(await post(none), 422, 'validation_error').details.field).toBe('related_operation_id');

    const both = {
      ...build(fx.registerId, completedSale.id),
      external_related_operation: { description: 'Bon 1', external_operation_id: 'ext-1' },
    };
    expect(expectApiError(await post(both), 422, 'validation_error').details.field).toBe('external_related_operation');

    expect((await post(build(fx.registerId, completedSale.id))).statusCode).toBe(201);
    expect((await post(build(fx.registerId, null))).statusCode).toBe(201);
  });

  it('external_related_operation needs description and external_operation_id (400)', async () => {
    const body = returnBody(fx.registerId, null, { external_related_operation: { external_operation_id: 'ext-1' } });
    expect(expectApiError(await post(body), 400, 'invalid_request').details.field).toBe('external_related_operation.description');
  });

  it('related_operation_id must name a completed sale of the same merchant', async () => {
    const expectRejected = async (relatedId: string) => {
      const error = expectApiError(await post(returnBody(fx.registerId, relatedId)), 422, 'validation_error');
      expect(error.details.field).toBe('related_operation_id');
    };
    await expectRejected('op_does_not_exist');

    const openSale = await mustCreate(t.app, fx.headers, saleBody(fx.registerId));
    await expectRejected(openSale.id);

    const voided = await mustCreate(t.app, fx.headers, saleBody(fx.registerId));
    expect((await voidOp(t.app, fx.headers, voided)).statusCode).toBe(200);
    await expectRejected(voided.id);

    const completedReturn = await mustComplete(t.app, fx.headers, await mustCreate(t.app, fx.headers, returnBody(fx.registerId, completedSale.id)));
    await expectRejected(completedReturn.id);

    const foreignSale = await createAndCompleteSale(t.app, other);
    await expectRejected(foreignSale.id);

    const accepted = await mustCreate(t.app, fx.headers, returnBody(fx.registerId, completedSale.id));
    expect(accepted.related_operation_id).toBe(completedSale.id);
  });
});

describe('rule 4: signs', () => {
  it('a sale rejects negative totals and line totals; zero is allowed', async () => {
    const negativeTotal = saleBody(fx.registerId, {
      pretax_amount: '-10.00',
      tax_amount: '-1.90',
      total_amount: '-11.90',
      line_items: [line({ unit_price: '-11.90', total_amount: '-11.90', taxes: [{ name: 'MwSt', rate: '0.19', tax_amount: '-1.9' }] })],
    });
    expect(expectApiError(await post(negativeTotal), 422, 'validation_error').details.field).toBe('total_amount');

    const negativeLine = saleBody(fx.registerId, {
      pretax_amount: '0.00',
      tax_amount: '0.00',
      total_amount: '0.00',
      line_items: [line(), line({ unit_price: '-11.90', total_amount: '-11.90', taxes: [{ name: 'MwSt', rate: '0.19', tax_amount: '-1.9' }] })],
    });
    expect(expectApiError(await post(negativeLine), 422, 'validation_error').details.field).toBe('line_items[1].total_amount');

    const zero = saleBody(fx.registerId, {
      pretax_amount: '0.00',
      tax_amount: '0.00',
      total_amount: '0.00',
      line_items: [line({ unit_price: '0.00', total_amount: '0.00', taxes: [{ name: 'MwSt', rate: '0.19', tax_amount: '0' }] })],
    });
    const created = await mustCreate(t.app, fx.headers, zero);
    const completed = await mustComplete(t.app, fx.headers, created, []);
    expect(completed.status).toBe('completed');
  });

  it('a return rejects positive totals and line totals; zero is allowed', async () => {
    const positive = returnBody(fx.registerId, completedSale.id, {
      pretax_amount: '10.00',
      tax_amount: '1.90',
      total_amount: '11.90',
      line_items: [line()],
    });
    expect(expectApiError(await post(positive), 422, 'validation_error').details.field).toBe('total_amount');

    const positiveLine = returnBody(fx.registerId, completedSale.id, {
      pretax_amount: '0.00',
      tax_amount: '0.00',
      total_amount: '0.00',
      line_items: [line({ unit_price: '-11.90', total_amount: '-11.90', taxes: [{ name: 'MwSt', rate: '0.19', tax_amount: '-1.9' }] }), line()],
    });
    expect(expectApiError(await post(positiveLine), 422, 'validation_error').details.field).toBe('line_items[1].total_amount');

    const zero = returnBody(fx.registerId, completedSale.id, {
      pretax_amount: '0.00',
      tax_amount: '0.00',
      total_amount: '0.00',
      line_items: [line({ unit_price: '0.00', total_amount: '0.00', taxes: [{ name: 'MwSt', rate: '0.19', tax_amount: '0' }] })],
    });
    expect((await post(zero)).statusCode).toBe(201);
  });

  it('an exchange has no sign constraint', async () => {
    const negative = await mustCreate(t.app, fx.headers, exchangeBody(fx.registerId, completedSale.id));
    expect(negative.total_amount).toBe('-6.55');
    const positive = exchangeBody(fx.registerId, completedSale.id, {
      pretax_amount: '5.00',
      tax_amount: '1.55',
      total_amount: '6.55',
      line_items: [
        line({ title: 'Milch zurück', unit_price: '-5.35', total_amount: '-5.35', taxes: [{ name: 'MwSt', rate: '0.07', tax_amount: '-0.35' }] }),
        line(),
      ],
    });
    const created = await mustCreate(t.app, fx.headers, positive);
    // Payments of an exchange may have either sign too.
    const completed = await mustComplete(t.app, fx.headers, created, [
      { payment_id: 'p1', method: 'card', amount: '10.00', currency: 'EUR', status: 'captured' },
      { payment_id: 'p2', method: 'cash', amount: '-3.45', currency: 'EUR', status: 'captured' },
    ]);
    expect(completed.status).toBe('completed');
  });

  it('payment amounts follow the sign rule on complete', async () => {
    const sale = await mustCreate(t.app, fx.headers, saleBody(fx.registerId));
    const saleError = expectApiError(
      await completeOp(t.app, fx.headers, sale, [
        { payment_id: 'p1', method: 'card', amount: '12.90', currency: 'EUR', status: 'captured' },
        { payment_id: 'p2', method: 'cash', amount: '-1.00', currency: 'EUR', status: 'captured' },
      ]),
      422,
      'validation_error',
    );
    expect(saleError.details.field).toBe('payments[1].amount');

    const ret = await mustCreate(t.app, fx.headers, returnBody(fx.registerId, completedSale.id));
    const returnError = expectApiError(
      await completeOp(t.app, fx.headers, ret, [
        { payment_id: 'p1', method: 'cash', amount: '-12.90', currency: 'EUR', status: 'refunded' },
        { payment_id: 'p2', method: 'cash', amount: '1.00', currency: 'EUR', status: 'refunded' },
      ]),
      422,
      'validation_error',
    );
    expect(returnError.details.field).toBe('payments[1].amount');
    // Nothing was recorded: the operation is still open at version 1.
    const current = json(await t.app.inject({ method: 'GET', url: `/v1/operations/${ret.id}`, headers: fx.headers }));
    expect(current).toMatchObject({ status: 'open', resource_version: 1, payments: [] });
  });
});

describe('rule 5: tax_amount at 8 decimal places', () => {
  // 10.00 at 19 %: 10.00 × 0.19 / 1.19 = 1.596638655462… -> 1.59663866
  const tenEuro = (taxAmount: string, topLevelTax = '1.60') =>
    saleBody(fx.registerId, {
      pretax_amount: (10 - Number(topLevelTax)).toFixed(2),
      tax_amount: topLevelTax,
      total_amount: '10.00',
      line_items: [line({ unit_price: '10.00', total_amount: '10.00', taxes: [{ name: 'MwSt', rate: '0.19', tax_amount: taxAmount }] })],
    });

  it('accepts the exact 8-decimal value, with or without trailing zeros', async () => {
    expect((await post(tenEuro('1.59663866'))).statusCode).toBe(201);
    expect((await post(saleBody(fx.registerId, { line_items: [line({ taxes: [{ name: 'MwSt', rate: '0.19', tax_amount: '1.90000000' }] })] }))).statusCode).toBe(201);
  });

  it.each(['1.60', '1.5966386', '1.59663865', '1.596638655'])('rejects %s with 422 tax_amount_precision_invalid', async (amount) => {
    const error = expectApiError(await post(tenEuro(amount)), 422, 'tax_amount_precision_invalid');
    expect(error.details.field).toBe('line_items[0].taxes[0].tax_amount');
    expect(error.details.expected_tax_amount).toBe('1.59663866');
  });

  it('splits a line with several taxes by total × rate_i / (1 + Σ rate_j)', async () => {
    // 12.60 with 19 % and 7 %: 12.60 × 0.19 / 1.26 = 1.9 and 12.60 × 0.07 / 1.26 = 0.7
    const twoRates = (second: string) =>
      saleBody(null, {
        pretax_amount: '10.00',
        tax_amount: '2.60',
        total_amount: '12.60',
        line_items: [
          line({
            unit_price: '12.60',
            total_amount: '12.60',
            taxes: [
              { name: 'A', rate: '0.19', tax_amount: '1.9' },
              { name: 'B', rate: '0.07', tax_amount: second },
            ],
          }),
        ],
      });
    expect((await post(twoRates('0.7'))).statusCode).toBe(201);
    const error = expectApiError(await post(twoRates('0.75')), 422, 'tax_amount_precision_invalid');
    expect(error.details.field).toBe('line_items[0].taxes[1].tax_amount');
  });
});

describe('rules 6 and 8: gift cards', () => {
  const giftCardSale = (taxes: unknown[]) =>
    saleBody(fx.registerId, {
      pretax_amount: '25.00',
      tax_amount: '0.00',
      total_amount: '25.00',
      line_items: [{ type: 'gift_card', title: 'Gutschein', quantity: 1, unit_price: '25.00', total_amount: '25.00', sku_identifier: 'GC-25', gift_card_id: 'gc-1', taxes }],
    });

  it('a gift_card line with a non-zero tax rate or amount is 422 gift_card_tax_rate_must_be_zero', async () => {
    const rate = expectApiError(await post(giftCardSale([{ name: 'MwSt', rate: '0.19', tax_amount: '3.99159664' }])), 422, 'gift_card_tax_rate_must_be_zero');
    expect(rate.details.field).toBe('line_items[0].taxes[0].rate');
    const amount = expectApiError(await post(giftCardSale([{ name: 'MwSt', rate: '0', tax_amount: '0.01' }])), 422, 'gift_card_tax_rate_must_be_zero');
    expect(amount.details.field).toBe('line_items[0].taxes[0].tax_amount');
  });

  it('a gift_card line with rate 0 and amount 0 (or no taxes) is accepted and keeps its gift_card_id', async () => {
    const created = await mustCreate(t.app, fx.headers, giftCardSale([{ name: 'MwSt', rate: '0', tax_amount: '0' }]));
    expect(created.line_items[0]).toMatchObject({ type: 'gift_card', gift_card_id: 'gc-1' });
    expect((await post(giftCardSale([]))).statusCode).toBe(201);
  });

  it('a gift_card payment needs a non-blank gift_card_id on complete (422 gift_card_id_required)', async () => {
    const sale = await mustCreate(t.app, fx.headers, saleBody(fx.registerId));
    const payment = { payment_id: 'p1', method: 'gift_card', amount: '11.90', currency: 'EUR', status: 'captured' };
    expect(expectApiError(await completeOp(t.app, fx.headers, sale, [payment]), 422, 'gift_card_id_required').details.field).toBe(
      'payments[0].gift_card_id',
    );
    expectApiError(await completeOp(t.app, fx.headers, sale, [{ ...payment, gift_card_id: '   ' }]), 422, 'gift_card_id_required');
    const completed = await mustComplete(t.app, fx.headers, sale, [{ ...payment, gift_card_id: 'gc-77' }]);
    expect(completed.payments[0]).toMatchObject({ method: 'gift_card', gift_card_id: 'gc-77', amount: '11.90' });
  });
});

describe('amounts add up', () => {
  it('total_amount = Σ line totals − Σ cart-level discounts + tip_amount', async () => {
    // 11.90 + 5.35 − 1.00 + 2.00 = 18.25; tax as the lines' (1.90 + 0.35); pretax = 18.25 − 2.25 − 2.00
    const body = saleBody(fx.registerId, {
      pretax_amount: '14.00',
      tax_amount: '2.25',
      tip_amount: '2.00',
      total_amount: '18.25',
      line_items: [line(), line({ title: 'Milch', unit_price: '5.35', total_amount: '5.35', taxes: [{ name: 'MwSt', rate: '0.07', tax_amount: '0.35' }] })],
      cart_level_discounts: [{ amount: '1.00', description: 'Stammkunde' }],
    });
    const created = await mustCreate(t.app, fx.headers, body);
    expect(created).toMatchObject({ total_amount: '18.25', tip_amount: '2.00', pretax_amount: '14.00', tax_amount: '2.25' });
    expect(created.cart_level_discounts).toEqual([{ id: expect.any(String), amount: '1.00', description: 'Stammkunde' }]);

    const wrongTotal = expectApiError(await post({ ...body, total_amount: '19.25', pretax_amount: '15.00' }), 422, 'validation_error');
    expect(wrongTotal.details.field).toBe('total_amount');
    expect(wrongTotal.details.expected_total_amount).toBe('18.25');
    expect(wrongTotal.details.violations.map((v: any) => v.field)).toEqual(['total_amount']);
  });

  it('pretax_amount + tax_amount + tip_amount = total_amount', async () => {
    const error = expectApiError(await post(saleBody(fx.registerId, { pretax_amount: '10.01' })), 422, 'validation_error');
    expect(error.details.field).toBe('pretax_amount');
    expect(error.details.expected_pretax_amount).toBe('10.00');
  });

  it('tax_amount must agree with the lines’ taxes', async () => {
    const error = expectApiError(await post(saleBody(fx.registerId, { pretax_amount: '9.00', tax_amount: '2.90' })), 422, 'validation_error');
    expect(error.details.field).toBe('tax_amount');
  });

  it('a mismatch of several fields names each of them', async () => {
    const error = expectApiError(await post(saleBody(fx.registerId, { total_amount: '12.90', tip_amount: '0.50' })), 422, 'validation_error');
    expect(error.details.field).toBe('total_amount');
    expect(error.details.violations.map((v: any) => v.field)).toEqual(['total_amount', 'pretax_amount']);
  });

  it('a cart-level discount amount must be positive', async () => {
    const body = saleBody(fx.registerId, { cart_level_discounts: [{ amount: '0.00' }] });
    expect(expectApiError(await post(body), 422, 'validation_error').details.field).toBe('cart_level_discounts[0].amount');
  });
});
