// Style O refunds (contract 2.8, 3.4, 4.3): create, complete (signed), cancel, fiscal failure and retry.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseReceiptQrData } from '../../src/fiscal/kassensichv/receiptQr.js';
import { FiscalRetryWorker, runFiscalRetryPass } from '../../src/modules/refunds/fiscalRetry.js';
import { verifiesFiscalEvent } from '../fiscal/independentDtbs.js';
import {
  createAndCompleteSale,
  createOperation,
  fiscalizedRegisterWithSession,
  getOp,
  mustComplete,
  mustCreate,
  plainRegister,
  returnBody,
  saleBody,
  sessionEvent,
  simulate,
  type OperationsFixture,
} from '../support/operations.js';
import { auth, createTenantWithKey, createTestApp, expectError, json, type TestApp } from '../support/testApp.js';
import {
  expectDerivedTotals,
  mustCompleteRefund,
  mustRefund,
  organizationKey,
  orgAuth,
  postRefund,
  styleOAction,
  uuid,
} from '../support/styleO.js';

let t: TestApp;
let fx: OperationsFixture;
let tenantKeyDeu: string;
let headers: Record<string, string>; // Style O, organization key

/** Two lines: 3 x 3.33 (19 %) and 1 x 5.35 (7 %), a cart discount of 1.00; total 14.34. */
const twoLineSale = (registerId: string) =>
  saleBody(registerId, {
    pretax_amount: '13.05896067',
    tax_amount: '1.28103933',
    total_amount: '14.34',
    line_items: [
      {
        title: 'Brötchen',
        quantity: 3,
        unit_price: '3.33',
        total_amount: '9.99',
        sku_identifier: 'SKU-BR',
        taxes: [{ name: 'MwSt', rate: '0.19', tax_amount: '1.59504202' }],
      },
      {
        title: 'Milch',
        quantity: 1,
        unit_price: '5.35',
        total_amount: '5.35',
        sku_identifier: 'SKU-MI',
        taxes: [{ name: 'MwSt', rate: '0.07', tax_amount: '0.35' }],
      },
    ],
    cart_level_discounts: [{ amount: '1.00', description: 'Stammkunde' }],
  });

async function saleOf(body: object, payments?: unknown[]) {
  const created = await mustCreate(t.app, fx.headers, body);
  return mustComplete(t.app, fx.headers, created, payments);
}

beforeAll(async () => {
  t = await createTestApp();
  const tenant = await createTenantWithKey(t.database, 'DEU');
  tenantKeyDeu = tenant.apiKey;
  fx = await fiscalizedRegisterWithSession(t.app, tenant.apiKey);
  headers = orgAuth(await organizationKey(t.database, tenant.tenantId, fx.merchantId));
});
afterAll(() => t.close());

describe('POST /v1/registers/{registerId}/refunds', () => {
  it('creates an open full refund: operation envelope of 2.8 in minor units, the register’s next sequence number', async () => {
    const sale = await createAndCompleteSale(t.app, fx);
    const response = await postRefund(t.app, headers, fx.registerId, {
      original_operation_id: sale.id,
      reason: 'Kunde unzufrieden',
      cashier: { id: 'emp-7', display_name: 'Anna' },
      external_id: 'pos-refund-1',
      metadata: { ticket: 'T-1' },
    });
    expect(response.statusCode).toBe(201);
    const refund = json(response);
    expect(refund).toMatchObject({
      id: expect.stringMatching(/^op_/),
      object: 'operation',
      type: 'refund',
      state: 'open',
      fiscal_state: 'pending',
      fiscal: null,
      register_id: fx.registerId,
      location_id: fx.locationId,
      organization_id: fx.merchantId,
      external_id: 'pos-refund-1',
      sequence_number: sale.sequence_number + 1,
      cashier: { id: 'emp-7', display_name: 'Anna' },
      references: { original_operation_id: sale.id, reason: 'Kunde unzufrieden' },
      metadata: { ticket: 'T-1' },
      started_at: null,
      completed_at: null,
      created_at: expect.any(String),
    });
    expect(refund.data).toMatchObject({
      original_operation_id: sale.id,
      refund_type: 'full',
      reason: 'Kunde unzufrieden',
      currency: 'EUR',
      cart_discounts: [],
    });
    expect(refund.data.line_items).toHaveLength(1);
    expect(refund.data.line_items[0]).toMatchObject({
      position: 1,
      description: 'Brot',
      quantity: 1,
      unit_price_gross: 1190,
      product_ref: 'SKU-BROT',
      subtotal_gross: 1190,
      line_discount_amount: 0,
      subtotal_after_line_discounts: 1190,
      cart_discount_amount: 0,
      total_gross: 1190,
      tax: { rate: '0.19', category: 'standard', included_in_price: true, taxable_amount: 1000, tax_amount: 190 },
      total_net: 1000,
      original_line_item_id: sale.line_items[0].id,
    });
    expect(refund.data.totals).toEqual({
      subtotal_gross: 1190,
      total_line_discounts: 0,
      subtotal_after_line_discounts: 1190,
      total_cart_discounts: 0,
      subtotal_after_all_discounts: 1190,
      rounding_adjustment: 0,
      total_gross: 1190,
      total_net: 1000,
      total_tax: 190,
      tax_breakdown: [{ rate: '0.19', category: 'standard', taxable_amount: 1000, tax_amount: 190, total_gross: 1190 }],
      net_payable: -1190,
    });
    expect(refund.data.payments).toEqual([
      expect.objectContaining({ method: 'cash', direction: 'refund', amount: 1190, currency: 'EUR', status: 'refunded' }),
    ]);
  });

  it('shares the sequence numbers of the register with every operation', async () => {
    const sale = await createAndCompleteSale(t.app, fx);
    const refund = await mustRefund(t.app, headers, fx.registerId, { original_operation_id: sale.id });
    const next = await mustCreate(t.app, fx.headers, saleBody(fx.registerId));
    expect(refund.sequence_number).toBe(sale.sequence_number + 1);
    expect(next.sequence_number).toBe(refund.sequence_number + 1);
  });

  it('refunds partially by line and quantity, never more than the sale (422 naming the field)', async () => {
    const sale = await saleOf(twoLineSale(fx.registerId));
    const [bread, milk] = sale.line_items;
    const first = await mustRefund(t.app, headers, fx.registerId, {
      original_operation_id: sale.id,
      refund_type: 'partial',
      line_items: [{ line_item_id: bread.id, quantity: 1 }],
    });
    expect(first.data.refund_type).toBe('partial');
    expect(first.data.line_items[0]).toMatchObject({ quantity: 1, original_line_item_id: bread.id, unit_price_gross: 333 });
    expectDerivedTotals(first.data.totals);
    expect(first.data.cart_discounts).toEqual([
      expect.objectContaining({ id: sale.cart_level_discounts[0].id, label: 'Stammkunde', amount: 100, total_amount: first.data.totals.total_cart_discounts }),
    ]);

    const second = await mustRefund(t.app, headers, fx.registerId, {
      original_operation_id: sale.id,
      refund_type: 'partial',
      line_items: [
        { line_item_id: bread.id, quantity: 2 },
        { line_item_id: milk.id, quantity: 1 },
      ],
    });
    expectDerivedTotals(second.data.totals);
    // Together they return exactly the sale's 14.34, its tax and its discount.
    expect(first.data.totals.total_gross + second.data.totals.total_gross).toBe(1434);
    expect(first.data.totals.total_cart_discounts + second.data.totals.total_cart_discounts).toBe(100);
    expect(first.data.totals.subtotal_gross + second.data.totals.subtotal_gross).toBe(999 + 535);
    const receipt = json(await t.app.inject({ method: 'GET', url: `/v1/operations/${sale.id}/receipt`, headers }));
    expect(first.data.totals.total_tax + second.data.totals.total_tax).toBe(receipt.totals.total_tax);
    expect(second.data.totals.net_payable).toBe(-second.data.totals.total_gross);

    const more = await postRefund(t.app, headers, fx.registerId, {
      original_operation_id: sale.id,
      refund_type: 'partial',
      line_items: [{ line_item_id: bread.id, quantity: 0.5 }],
    });
    expect(expectError(more, 422, 'validation_error').details).toMatchObject({
      field: 'line_items[0].quantity',
      line_item_id: bread.id,
      quantity_refundable: 0,
    });
    const full = await postRefund(t.app, headers, fx.registerId, { original_operation_id: sale.id });
    expect(expectError(full, 422, 'validation_error').details).toMatchObject({ field: 'refund_type' });
  });

  it('returns a sale with sub-cent Style M amounts to the cent: the last refund carries its rounding_adjustment', async () => {
    const line = { title: 'Schraube', quantity: 1, unit_price: '0.005', total_amount: '0.005', sku_identifier: 'SKU-S', taxes: [{ name: 'MwSt', rate: '0', tax_amount: '0' }] };
    const created = await mustCreate(t.app, fx.headers, saleBody(null, { pretax_amount: '0.01', tax_amount: '0', total_amount: '0.01', line_items: [line, line] }));
    const sale = await mustComplete(t.app, fx.headers, created, [{ payment_id: 'x', method: 'card', amount: '0.01', currency: 'EUR' }]);
    const partial = (id: string) => ({ original_operation_id: sale.id, refund_type: 'partial', line_items: [{ line_item_id: id, quantity: 1 }] });
    const first = await mustRefund(t.app, headers, fx.registerId, partial(sale.line_items[0].id));
    const last = await mustRefund(t.app, headers, fx.registerId, partial(sale.line_items[1].id));
    expect(first.data.totals).toMatchObject({ total_gross: 1, rounding_adjustment: 0 });
    expect(last.data.totals).toMatchObject({ subtotal_after_all_discounts: 1, rounding_adjustment: -1, total_gross: 0, net_payable: 0 });
    expect(last.data.payments).toEqual([]);
    expectDerivedTotals(last.data.totals);
    expect(first.data.totals.total_gross + last.data.totals.total_gross).toBe(1);
    expect((await mustCompleteRefund(t.app, headers, first.id)).fiscal_state).toBe('succeeded');
  });

  it('counts open refunds against the sale and frees the quantities of cancelled ones', async () => {
    const sale = await createAndCompleteSale(t.app, fx);
    const open = await mustRefund(t.app, headers, fx.registerId, { original_operation_id: sale.id });
    expectError(await postRefund(t.app, headers, fx.registerId, { original_operation_id: sale.id }), 422, 'validation_error');
    expect(json(await styleOAction(t.app, headers, open.id, 'cancel')).state).toBe('cancelled');
    expect((await postRefund(t.app, headers, fx.registerId, { original_operation_id: sale.id })).statusCode).toBe(201);
  });

  it('names unknown line items and needs line_items exactly for partial refunds', async () => {
    const sale = await createAndCompleteSale(t.app, fx);
    const unknown = await postRefund(t.app, headers, fx.registerId, {
      original_operation_id: sale.id,
      refund_type: 'partial',
      line_items: [{ line_item_id: 'li_nope', quantity: 1 }],
    });
    expect(expectError(unknown, 422, 'validation_error').details).toMatchObject({ field: 'line_items[0].line_item_id' });
    const twice = await postRefund(t.app, headers, fx.registerId, {
      original_operation_id: sale.id,
      refund_type: 'partial',
      line_items: [
        { line_item_id: sale.line_items[0].id, quantity: 0.25 },
        { line_item_id: sale.line_items[0].id, quantity: 0.25 },
      ],
    });
    expect(expectError(twice, 422, 'validation_error').details).toMatchObject({ field: 'line_items[1].line_item_id' });
    const missing = await postRefund(t.app, headers, fx.registerId, { original_operation_id: sale.id, refund_type: 'partial' });
    expect(expectError(missing, 400, 'invalid_request').details).toMatchObject({ field: 'line_items' });
    const withFull = await postRefund(t.app, headers, fx.registerId, {
      original_operation_id: sale.id,
      line_items: [{ line_item_id: sale.line_items[0].id, quantity: 1 }],
    });
    expect(expectError(withFull, 400, 'invalid_request').details).toMatchObject({ field: 'line_items' });
    const zero = await postRefund(t.app, headers, fx.registerId, {
      original_operation_id: sale.id,
      refund_type: 'partial',
      line_items: [{ line_item_id: sale.line_items[0].id, quantity: 0 }],
    });
    expect(expectError(zero, 400, 'invalid_request').details).toMatchObject({ field: 'line_items[0].quantity' });
  });

  it('refunds only a completed sale of the same organization (422 original_operation_id)', async () => {
    const openSale = await mustCreate(t.app, fx.headers, saleBody(fx.registerId));
    const sale = await createAndCompleteSale(t.app, fx);
    const ret = await saleOf(returnBody(fx.registerId, sale.id), [{ payment_id: 'r', method: 'cash', amount: '-11.90', currency: 'EUR' }]);
    const other = await createTenantWithKey(t.database, 'DEU');
    const otherFx = await fiscalizedRegisterWithSession(t.app, other.apiKey);
    const foreignSale = await createAndCompleteSale(t.app, otherFx);
    for (const id of [openSale.id, ret.id, foreignSale.id, 'op_missing']) {
      const response = await postRefund(t.app, headers, fx.registerId, { original_operation_id: id });
      expect(expectError(response, 422, 'validation_error').details).toMatchObject({ field: 'original_operation_id' });
    }
    // a refund is not refundable either
    const refund = await mustRefund(t.app, headers, fx.registerId, { original_operation_id: sale.id });
    await mustCompleteRefund(t.app, headers, refund.id);
    expectError(await postRefund(t.app, headers, fx.registerId, { original_operation_id: refund.id }), 422, 'validation_error');
  });

  it('answers 404 for a register outside the organization and 409 without an open session', async () => {
    const sale = await createAndCompleteSale(t.app, fx);
    expectError(await postRefund(t.app, headers, 'reg_missing', { original_operation_id: sale.id }), 404, 'not_found');
    const other = await createTenantWithKey(t.database, 'DEU');
    const otherFx = await fiscalizedRegisterWithSession(t.app, other.apiKey);
    expectError(await postRefund(t.app, headers, otherFx.registerId, { original_operation_id: sale.id }), 404, 'not_found');

    const idle = await plainRegister(t.app, tenantKeyDeu);
    const idleSale = await createAndCompleteSale(t.app, fx);
    const styleO = orgAuth(tenantKeyDeu, idle.merchantId);
    const noSession = await postRefund(t.app, styleO, idle.registerId, { original_operation_id: idleSale.id });
    // the sale belongs to fx's organization, not idle's: the register is checked first, the sale next
    expectError(noSession, 422, 'validation_error');
    const idleOwnSale = await t.app.inject({ method: 'POST', url: '/v1/operations', headers: { ...idle.headers, 'idempotency-key': uuid() }, payload: saleBody(null) });
    const online = await mustComplete(t.app, idle.headers, json(idleOwnSale));
    const response = await postRefund(t.app, styleO, idle.registerId, { original_operation_id: online.id });
    expect(expectError(response, 409, 'no_open_session').details).toMatchObject({ alias: 'register_no_open_session' });
  });

  it('takes payments: their sum must be the refund total, in the sale currency; gift cards need their id', async () => {
    const split = await saleOf(saleBody(fx.registerId), [
      { payment_id: 'a', method: 'cash', amount: '5.00', currency: 'EUR' },
      { payment_id: 'b', method: 'card', amount: '6.90', currency: 'EUR', card_brand: 'visa' },
    ]);
    // full refund of a split payment: the sale's payments come back as they were
    const full = await mustRefund(t.app, headers, fx.registerId, { original_operation_id: split.id });
    expect(full.data.payments.map((p: any) => [p.method, p.amount, p.direction])).toEqual([
      ['cash', 500, 'refund'],
      ['card', 690, 'refund'],
    ]);
    expect(full.data.payments[1].card).toMatchObject({ scheme: 'visa' });
    await styleOAction(t.app, headers, full.id, 'cancel');

    const partial = { original_operation_id: split.id, refund_type: 'partial', line_items: [{ line_item_id: split.line_items[0].id, quantity: 0.5 }] };
    expect(expectError(await postRefund(t.app, headers, fx.registerId, partial), 422, 'validation_error').details).toMatchObject({ field: 'payments' });
    const wrongSum = await postRefund(t.app, headers, fx.registerId, { ...partial, payments: [{ method: 'cash', amount: 100 }] });
    expect(expectError(wrongSum, 422, 'validation_error').details).toMatchObject({ field: 'payments', refund_total: 595, payments_total: 100 });
    const currency = await postRefund(t.app, headers, fx.registerId, { ...partial, payments: [{ method: 'cash', amount: 595, currency: 'USD' }] });
    expect(expectError(currency, 422, 'validation_error').details).toMatchObject({ field: 'payments[0].currency' });
    const giftCard = await postRefund(t.app, headers, fx.registerId, { ...partial, payments: [{ method: 'gift_card', amount: 595 }] });
    expect(expectError(giftCard, 422, 'gift_card_id_required').details).toMatchObject({ field: 'payments[0].gift_card.gift_card_id' });
    const decimal = await postRefund(t.app, headers, fx.registerId, { ...partial, payments: [{ method: 'cash', amount: 5.95 }] });
    expect(expectError(decimal, 400, 'invalid_request').details).toMatchObject({ field: 'payments[0].amount' });
    const ok = await mustRefund(t.app, headers, fx.registerId, {
      ...partial,
      payments: [
        { method: 'cash', amount: 295, cash: { amount_tendered: 295 } },
        { method: 'gift_card', amount: 300, gift_card: { gift_card_id: 'GC-1' } },
      ],
    });
    expect(ok.data.payments).toEqual([
      expect.objectContaining({ method: 'cash', amount: 295, direction: 'refund', cash: { amount_tendered: 295 } }),
      expect.objectContaining({ method: 'gift_card', amount: 300, gift_card: { gift_card_id: 'GC-1', last4: null } }),
    ]);
  });

  it('rejects malformed bodies (400 naming the field)', async () => {
    const sale = await createAndCompleteSale(t.app, fx);
    const cases: [object, string][] = [
      [{}, 'original_operation_id'],
      [{ original_operation_id: sale.id, refund_type: 'half' }, 'refund_type'],
      [{ original_operation_id: sale.id, unknown: 1 }, 'unknown'],
      [{ original_operation_id: sale.id, cashier: { display_name: 'x' } }, 'cashier.id'],
      [{ original_operation_id: sale.id, metadata: { k: { deep: true } } }, 'metadata.k'],
    ];
    for (const [payload, field] of cases) {
      expect(expectError(await postRefund(t.app, headers, fx.registerId, payload), 400, 'invalid_request').details?.field).toBe(field);
    }
  });

  it('takes an optional UUID Idempotency-Key (400 when not a UUID; replay; conflict)', async () => {
    const sale = await createAndCompleteSale(t.app, fx);
    const bad = await postRefund(t.app, headers, fx.registerId, { original_operation_id: sale.id }, 'refund-1');
    expect(expectError(bad, 400, 'invalid_request').details).toMatchObject({ header: 'Idempotency-Key' });
    const key = uuid();
    const first = await postRefund(t.app, headers, fx.registerId, { original_operation_id: sale.id }, key);
    const again = await postRefund(t.app, headers, fx.registerId, { original_operation_id: sale.id }, key);
    expect(first.statusCode).toBe(201);
    expect(again.statusCode).toBe(201);
    expect(json(again).id).toBe(json(first).id);
    expect(again.headers['idempotent-replayed']).toBe('true');
    const conflict = await postRefund(t.app, headers, fx.registerId, { original_operation_id: sale.id, reason: 'x' }, key);
    expectError(conflict, 409, 'idempotency_key_conflict');
  });

  it('is Style O only: with X-Service-Merchant there is no such route (404)', async () => {
    const sale = await createAndCompleteSale(t.app, fx);
    expectError(await postRefund(t.app, fx.headers, fx.registerId, { original_operation_id: sale.id }), 404, 'not_found');
  });
});

describe('complete and cancel (Style O, contract 3.4)', () => {
  it('completes: signs with the register’s TSE (Kassenbeleg-V1, negative amounts), fiscal_state succeeded, both events', async () => {
    const sale = await createAndCompleteSale(t.app, fx);
    const refund = await mustRefund(t.app, headers, fx.registerId, { original_operation_id: sale.id });
    const response = await styleOAction(t.app, headers, refund.id, 'complete');
    expect(response.statusCode).toBe(200);
    const done = json(response);
    expect(done).toMatchObject({ state: 'completed', fiscal_state: 'succeeded', completed_at: expect.any(String) });
    const fiscal = done.fiscal;
    expect(fiscal).toMatchObject({
      regime: 'KassenSichV',
      document_type: 'Beleg',
      transmission_status: 'succeeded',
      document_number: String(refund.sequence_number),
      error: null,
    });
    expect(fiscal.tse_serial).toBe(sale.fiscal_information.tss_serial_number);
    expect(fiscal.client_id).toBe(sale.fiscal_information.pos_client_serial_number);
    expect(fiscal.end_event.process_type).toBe('Kassenbeleg-V1');
    expect(fiscal.end_event.process_data).toBe('Beleg^-11.90_0.00_0.00_0.00_0.00^-11.90:Bar');
    expect(fiscal.start_event.transaction_counter).toBe(fiscal.end_event.transaction_counter);
    expect(fiscal.end_event.transaction_counter).toBe(sale.fiscal_information.end_event.transaction_counter + 1);
    expect(fiscal.end_event.signature_counter).toBe(fiscal.start_event.signature_counter + 1);
    expect(done.started_at).toBe(fiscal.start_event.signed_at);
    expect(verifiesFiscalEvent(fiscal, 'start_event')).toBe(true);
    expect(verifiesFiscalEvent(fiscal, 'end_event')).toBe(true);
    const qr = parseReceiptQrData(fiscal.verification.qr_data);
    expect(qr.processData).toBe(fiscal.end_event.process_data);
    expect(qr.signatureCounter).toBe(fiscal.end_event.signature_counter);

    expect(json(await t.app.inject({ method: 'GET', url: `/v1/operations/${refund.id}`, headers }))).toEqual(done);
  });

  it('accepts {} or no body, refuses anything else (400), and a non-UUID Idempotency-Key (400)', async () => {
    const sale = await createAndCompleteSale(t.app, fx);
    const refund = await mustRefund(t.app, headers, fx.registerId, { original_operation_id: sale.id });
    const withBody = await styleOAction(t.app, headers, refund.id, 'complete', { payload: { payments: [] } });
    expect(expectError(withBody, 400, 'invalid_request').details).toMatchObject({ field: 'payments' });
    expectError(await styleOAction(t.app, headers, refund.id, 'complete', { idempotencyKey: 'abc' }), 400, 'invalid_request');
    const key = uuid();
    const done = await styleOAction(t.app, { ...headers, 'content-type': 'application/json' }, refund.id, 'complete', { payload: {}, idempotencyKey: key });
    expect(done.statusCode).toBe(200);
    const replay = await styleOAction(t.app, { ...headers, 'content-type': 'application/json' }, refund.id, 'complete', { payload: {}, idempotencyKey: key });
    expect(replay.statusCode).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(json(replay)).toEqual(json(done));

    const other = await mustRefund(t.app, headers, fx.registerId, { original_operation_id: (await createAndCompleteSale(t.app, fx)).id });
    const noBody = await t.app.inject({ method: 'POST', url: `/v1/operations/${other.id}/cancel`, headers: { ...headers, 'content-type': 'application/json' } });
    expect(noBody.statusCode).toBe(200);
  });

  it('moves open -> completed and open -> cancelled only; anything else is 409 operation_invalid_state', async () => {
    const sale = await createAndCompleteSale(t.app, fx);
    const completed = await mustRefund(t.app, headers, fx.registerId, { original_operation_id: sale.id });
    await mustCompleteRefund(t.app, headers, completed.id);
    for (const action of ['complete', 'cancel'] as const) {
      const body = expectError(await styleOAction(t.app, headers, completed.id, action), 409, 'operation_invalid_state');
      expect(body.details).toMatchObject({ state: 'completed', type: 'refund' });
    }
    const sale2 = await createAndCompleteSale(t.app, fx);
    const cancelled = json(await styleOAction(t.app, headers, (await mustRefund(t.app, headers, fx.registerId, { original_operation_id: sale2.id })).id, 'cancel'));
    expect(cancelled).toMatchObject({ state: 'cancelled', fiscal_state: 'pending', fiscal: null, completed_at: null });
    for (const action of ['complete', 'cancel'] as const) {
      expectError(await styleOAction(t.app, headers, cancelled.id, action), 409, 'operation_invalid_state');
    }
    // Style M operations are completed in Style M
    const openSale = await mustCreate(t.app, fx.headers, saleBody(fx.registerId));
    expect(expectError(await styleOAction(t.app, headers, openSale.id, 'complete'), 409, 'operation_invalid_state').details).toMatchObject({
      type: 'sale',
    });
    expectError(await styleOAction(t.app, headers, openSale.id, 'cancel'), 409, 'operation_invalid_state');
    expectError(await styleOAction(t.app, headers, 'op_missing', 'complete'), 404, 'not_found');
  });

  it('is 404 for another organization’s refund', async () => {
    const sale = await createAndCompleteSale(t.app, fx);
    const refund = await mustRefund(t.app, headers, fx.registerId, { original_operation_id: sale.id });
    const other = await createTenantWithKey(t.database, 'DEU');
    const otherFx = await fiscalizedRegisterWithSession(t.app, other.apiKey);
    const strangerHeaders = orgAuth(other.apiKey, otherFx.merchantId);
    expectError(await styleOAction(t.app, strangerHeaders, refund.id, 'complete'), 404, 'not_found');
    expectError(await t.app.inject({ method: 'GET', url: `/v1/operations/${refund.id}`, headers: strangerHeaders }), 404, 'not_found');
  });

  it('does not complete on a register that cannot sign (422 validation_error, refund stays open)', async () => {
    const plain = await plainRegister(t.app, tenantKeyDeu);
    await sessionEvent(t.app, plain.headers, plain.registerId, 'session_open', { opening_amount: '0' });
    const sale = json(await createOperation(t.app, plain.headers, saleBody(null)));
    const online = await mustComplete(t.app, plain.headers, sale);
    const styleO = orgAuth(tenantKeyDeu, plain.merchantId);
    const refund = await mustRefund(t.app, styleO, plain.registerId, { original_operation_id: online.id });
    const body = expectError(await styleOAction(t.app, styleO, refund.id, 'complete'), 422, 'validation_error');
    expect(body.details).toMatchObject({ field: 'register_id' });
    expect(json(await t.app.inject({ method: 'GET', url: `/v1/operations/${refund.id}`, headers: styleO })).state).toBe('open');
  });
});

describe('fiscal failure and the background retry', () => {
  for (const [mode, phase] of [
    ['unreachable', 1],
    ['reject_after_start', 2],
  ] as const) {
    it(`device ${mode}: the refund is completed with fiscal_state failed, and the retry signs it`, async () => {
      const sale = await createAndCompleteSale(t.app, fx);
      const refund = await mustRefund(t.app, headers, fx.registerId, { original_operation_id: sale.id });
      await simulate(t.app, fx.headers, fx.registerId, mode);
      try {
        const response = await styleOAction(t.app, headers, refund.id, 'complete');
        expect(response.statusCode).toBe(200);
        const failed = json(response);
        expect(failed).toMatchObject({ state: 'completed', fiscal_state: 'failed', started_at: null, completed_at: expect.any(String) });
        expect(failed.fiscal).toMatchObject({
          regime: 'KassenSichV',
          transmission_status: 'failed',
          start_event: null,
          end_event: null,
          verification: null,
          tse_serial: sale.fiscal_information.tss_serial_number,
          error: { phase, reason: phase === 1 ? 'unreachable' : 'rejected', attempts: 1, next_attempt_at: expect.any(String) },
        });
        expect(failed.fiscal.error.message).toContain('sandbox simulation');
        // nothing lost: the refund and its receipt exist
        const receipt = json(await t.app.inject({ method: 'GET', url: `/v1/operations/${refund.id}/receipt`, headers }));
        expect(receipt.fiscal.transmission_status).toBe('failed');
        expect(receipt.notes).toEqual([expect.objectContaining({ type: 'fiscal' })]);
        expect(receipt.version).toBe(1);

        // still failing: the retry records another attempt (a background worker, if running, may add more)
        await runFiscalRetryPass(t.app.ctx, { now: new Date(Date.now() + 3_600_000) });
        const stillFailed = json(await t.app.inject({ method: 'GET', url: `/v1/operations/${refund.id}`, headers }));
        expect(stillFailed.fiscal_state).toBe('failed');
        expect(stillFailed.fiscal.error.attempts).toBeGreaterThanOrEqual(2);
        expect(Date.parse(stillFailed.fiscal.error.next_attempt_at)).toBeGreaterThan(Date.parse(failed.fiscal.error.next_attempt_at));
      } finally {
        await simulate(t.app, fx.headers, fx.registerId, 'ok');
      }
      // not due yet: a pass now leaves it alone
      const early = await runFiscalRetryPass(t.app.ctx);
      expect(early.succeeded).not.toContain(refund.id);

      const pass = await runFiscalRetryPass(t.app.ctx, { now: new Date(Date.now() + 3_600_000) });
      expect(pass.failed).toEqual([]);
      const signed = json(await t.app.inject({ method: 'GET', url: `/v1/operations/${refund.id}`, headers }));
      expect(signed).toMatchObject({ state: 'completed', fiscal_state: 'succeeded' });
      expect(signed.fiscal).toMatchObject({ transmission_status: 'succeeded', error: null });
      expect(signed.fiscal.end_event.process_data).toBe('Beleg^-11.90_0.00_0.00_0.00_0.00^-11.90:Bar');
      expect(verifiesFiscalEvent(signed.fiscal, 'end_event')).toBe(true);
      expect(verifiesFiscalEvent(signed.fiscal, 'start_event')).toBe(true);
      // the failed attempts left no trace on the TSE: the next transaction number follows the sale's
      expect(signed.fiscal.end_event.transaction_counter).toBe(sale.fiscal_information.end_event.transaction_counter + 1);

      const receipt = json(await t.app.inject({ method: 'GET', url: `/v1/operations/${refund.id}/receipt`, headers }));
      expect(receipt.version).toBe(2);
      expect(receipt.fiscal.verification.qr_data).toBe(signed.fiscal.verification.qr_data);
      expect(receipt.notes).toEqual([]);
      const hosted = await t.app.inject({ method: 'GET', url: new URL(receipt.links.pdf).pathname.replace(/\/pdf$/, '') });
      expect(hosted.headers['content-type']).toContain('text/html');
      expect(hosted.body).toContain(signed.fiscal.tse_serial);
      const pdf = await t.app.inject({ method: 'GET', url: new URL(receipt.links.pdf).pathname });
      expect(pdf.statusCode).toBe(200);
      expect(pdf.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');

      // nothing left to do
      const idle = await runFiscalRetryPass(t.app.ctx, { now: new Date(Date.now() + 3_600_000) });
      expect(idle.attempted).toBe(0);
    });
  }
});

describe('FiscalRetryWorker', () => {
  it('signs failed refunds in the background and stops cleanly', async () => {
    const sale = await createAndCompleteSale(t.app, fx);
    const refund = await mustRefund(t.app, headers, fx.registerId, { original_operation_id: sale.id });
    await simulate(t.app, fx.headers, fx.registerId, 'unreachable');
    const failed = json(await styleOAction(t.app, headers, refund.id, 'complete'));
    await simulate(t.app, fx.headers, fx.registerId, 'ok');
    expect(failed.fiscal_state).toBe('failed');
    // due at once
    await t.database.prisma.operation.update({ where: { id: refund.id }, data: { fiscalRetryAt: new Date(Date.now() - 1000) } });
    const worker = new FiscalRetryWorker(t.app.ctx, t.app.log, 50);
    worker.start();
    try {
      const deadline = Date.now() + 10_000;
      let state = 'failed';
      while (state !== 'succeeded' && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        state = json(await t.app.inject({ method: 'GET', url: `/v1/operations/${refund.id}`, headers })).fiscal_state;
      }
      expect(state).toBe('succeeded');
    } finally {
      await worker.stop();
    }
  });
});

describe('refunds and Style M', () => {
  it('are invisible to Style M reads and writes (404) and left out of its list', async () => {
    const sale = await createAndCompleteSale(t.app, fx);
    const refund = await mustRefund(t.app, headers, fx.registerId, { original_operation_id: sale.id });
    expectError(await getOp(t.app, fx.headers, refund.id), 404, 'not_found');
    const complete = await t.app.inject({
      method: 'POST',
      url: `/v1/operations/${refund.id}/complete`,
      headers: { ...fx.headers, 'idempotency-key': uuid(), 'if-match': '"1"' },
      payload: { payments: [] },
    });
    expectError(complete, 404, 'not_found');
    const list = json(await t.app.inject({ method: 'GET', url: '/v1/operations?limit=200', headers: fx.headers }));
    expect(list.data.map((op: any) => op.id)).not.toContain(refund.id);
    expect(list.data.every((op: any) => op.type !== 'refund')).toBe(true);
    // and Style O does not show Style M operations as operations
    expectError(await t.app.inject({ method: 'GET', url: `/v1/operations/${sale.id}`, headers }), 404, 'not_found');
  });

  it('a completed cash refund pays out of the drawer: the cash count expects it', async () => {
    const own = await fiscalizedRegisterWithSession(t.app, tenantKeyDeu); // opening 100.00
    const styleO = orgAuth(tenantKeyDeu, own.merchantId);
    const sale = await createAndCompleteSale(t.app, own); // +11.90 cash
    const refund = await mustRefund(t.app, styleO, own.registerId, { original_operation_id: sale.id });
    await mustCompleteRefund(t.app, styleO, refund.id); // -11.90 cash
    const count = await sessionEvent(t.app, own.headers, own.registerId, 'session_cash_count', { counted_closing_amount: '100.00' });
    expect(count.statusCode).toBe(201);
    expect(json(count)).toMatchObject({ expected_closing_amount: '100.00', closing_cashcount_diff: '0.00' });
    // a counted session takes no refunds
    const late = await postRefund(t.app, styleO, own.registerId, { original_operation_id: (await createAndCompleteSale(t.app, fx)).id });
    expect(late.statusCode).toBe(422);
  });

  it('a tenant key with Service-Organization works like the organization key', async () => {
    const sale = await createAndCompleteSale(t.app, fx);
    const refund = await mustRefund(t.app, orgAuth(tenantKeyDeu, fx.merchantId), fx.registerId, { original_operation_id: sale.id });
    expect(refund.organization_id).toBe(fx.merchantId);
    // the organization key reads the very refund the tenant key created
    expect(json(await t.app.inject({ method: 'GET', url: `/v1/operations/${refund.id}`, headers }))).toEqual(refund);
    // without the header the tenant key names no organization
    const unnamed = expectError(await postRefund(t.app, auth(tenantKeyDeu), fx.registerId, { original_operation_id: sale.id }), 400, 'invalid_request');
    expect(unnamed.details).toEqual({ header: 'Service-Organization' });
  });
});
