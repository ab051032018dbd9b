// POST /v1/operations as a union of seven types with the response rules of
// contract 2.2, the idempotency rules of 5.7, and the operation state machine of 3.1.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, createTenantWithKey, createTestApp, json, type TestApp } from '../support/testApp.js';
import {
  createAndCompleteSale,
  exchangeBody,
  expectApiError,
  fiscalizedRegisterWithSession,
  getOp,
  idem,
  mustComplete,
  mustCreate,
  plainRegister,
  returnBody,
  saleBody,
  sessionEvent,
  voidOp,
  type OperationsFixture,
} from '../support/operations.js';

let t: TestApp;
let apiKey: string;
let fx: OperationsFixture;
let completedSale: any;

beforeAll(async () => {
  t = await createTestApp();
  apiKey = (await createTenantWithKey(t.database, 'DEU')).apiKey;
  fx = await fiscalizedRegisterWithSession(t.app, apiKey);
  completedSale = await createAndCompleteSale(t.app, fx);
});
afterAll(() => t.close());

const SESSION_OMITTED = ['pretax_amount', 'tax_amount', 'tip_amount', 'total_amount', 'line_items', 'payments', 'fiscal_information'];

describe('the seven operation types', () => {
  it('creates a POS sale as open, version 1, bound to the open session, with the sale variant rules', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/operations',
      headers: { ...fx.headers, 'idempotency-key': idem() },
      payload: saleBody(fx.registerId, { external_id: 'order-1', note: 'Tisch 4' }),
    });
    expect(response.statusCode).toBe(201);
    expect(response.headers.etag).toBe('"1"');
    const sale = json(response);
    expect(sale).toMatchObject({
      type: 'sale',
      merchant_id: fx.merchantId,
      source: 'POS',
      status: 'open',
      currency: 'EUR',
      resource_version: 1,
      register_id: fx.registerId,
      location_id: fx.locationId,
      external_id: 'order-1',
      note: 'Tisch 4',
      pretax_amount: '10.00',
      tax_amount: '1.90',
      tip_amount: '0.00',
      total_amount: '11.90',
      payments: [],
      cart_level_discounts: [],
      fiscal_information: null,
      receipt_id: null,
      completed_at: null,
      voided_at: null,
      void_reason: null,
    });
    expect(sale.session_id).toMatch(/\S/);
    expect(sale).not.toHaveProperty('related_operation_id');
    expect(sale).not.toHaveProperty('external_related_operation');
    expect(sale.line_items).toEqual([
      {
        id: expect.any(String),
        type: 'item',
        title: 'Brot',
        quantity: 1,
        unit_price: '11.90',
        total_amount: '11.90',
        sku_identifier: 'SKU-BROT',
        taxes: [{ id: expect.any(String), name: 'MwSt', rate: '0.19', tax_amount: '1.90' }],
        gift_card_id: null,
      },
    ]);
    for (const omitted of ['opening_amount', 'amount', 'counted_closing_amount', 'closing_adjustment_amount']) {
      expect(sale).not.toHaveProperty(omitted);
    }
    const read = await getOp(t.app, fx.headers, sale.id);
    expect(read.statusCode).toBe(200);
    expect(read.headers.etag).toBe('"1"');
    expect(json(read)).toEqual(sale);
  });

  it('an ONLINE sale has no register, location or session', async () => {
    const sale = await mustCreate(t.app, fx.headers, saleBody(null));
    expect(sale).toMatchObject({ source: 'ONLINE', register_id: null, location_id: null, session_id: null, cart_level_discounts: [] });
  });

  it('return and exchange carry exactly the related field they were given', async () => {
    const ret = await mustCreate(t.app, fx.headers, returnBody(fx.registerId, completedSale.id));
    expect(ret).toMatchObject({ type: 'return', status: 'open', related_operation_id: completedSale.id, total_amount: '-11.90' });
    expect(ret.session_id).toBe(completedSale.session_id);
    expect(ret).not.toHaveProperty('external_related_operation');
    expect(ret).not.toHaveProperty('cart_level_discounts');

    const exchange = await mustCreate(t.app, fx.headers, exchangeBody(fx.registerId, null));
    expect(exchange).toMatchObject({
      type: 'exchange',
      external_related_operation: { description: 'Bon 4711 aus Altsystem', external_operation_id: 'legacy-4711' },
    });
    expect(exchange).not.toHaveProperty('related_operation_id');

    const onlineReturn = await mustCreate(t.app, fx.headers, returnBody(null, completedSale.id));
    expect(onlineReturn.session_id).toBeNull();
    // A create answers with the operation as stored: each reads back the same.
    for (const created of [ret, exchange, onlineReturn]) expect(json(await getOp(t.app, fx.headers, created.id))).toEqual(created);
  });

  it('session events are created completed and omit the goods-movement fields', async () => {
    const reg = await plainRegister(t.app, apiKey);
    const opened = await mustCreate(t.app, reg.headers, { type: 'session_open', register_id: reg.registerId, opening_amount: '50' });
    const adjusted = await mustCreate(t.app, reg.headers, { type: 'session_cash_adjustment', register_id: reg.registerId, amount: '-5.5', note: 'Wechselgeld' });
    const counted = await mustCreate(t.app, reg.headers, { type: 'session_cash_count', register_id: reg.registerId, counted_closing_amount: '44.50' });
    const closed = await mustCreate(t.app, reg.headers, { type: 'session_close', register_id: reg.registerId, closing_adjustment_note: 'ok' });

    expect(opened).toMatchObject({ type: 'session_open', opening_amount: '50.00' });
    expect(adjusted).toMatchObject({ type: 'session_cash_adjustment', amount: '-5.50', note: 'Wechselgeld' });
    expect(counted).toMatchObject({ type: 'session_cash_count', counted_closing_amount: '44.50', expected_closing_amount: '44.50', closing_cashcount_diff: '0.00' });
    expect(closed).toMatchObject({ type: 'session_close', closing_adjustment_amount: null, closing_adjustment_note: 'ok' });
    for (const event of [opened, adjusted, counted, closed]) {
      expect(event).toMatchObject({ status: 'completed', source: 'POS', register_id: reg.registerId, location_id: reg.locationId, resource_version: 1 });
      expect(event.session_id).toBe(opened.session_id);
      for (const field of SESSION_OMITTED) expect(event).not.toHaveProperty(field);
      expect(event).not.toHaveProperty('cart_level_discounts');
      expect(event).not.toHaveProperty('related_operation_id');
    }
  });
});

describe('idempotency (contract 5.7)', () => {
  it('replays the original response for the same key and payload, and creates nothing new', async () => {
    const key = idem();
    const send = (payload: object) =>
      t.app.inject({ method: 'POST', url: '/v1/operations', headers: { ...fx.headers, 'idempotency-key': key }, payload });
    const first = await send(saleBody(fx.registerId, { external_id: 'idem-1' }));
    expect(first.statusCode).toBe(201);
    // Same payload with its keys in another order is the same payload.
    const reordered = Object.fromEntries(Object.entries(saleBody(fx.registerId, { external_id: 'idem-1' })).reverse());
    const second = await send(reordered);
    expect(second.statusCode).toBe(201);
    expect(second.headers.etag).toBe('"1"');
    expect(json(second)).toEqual(json(first));

    const list = json(await t.app.inject({ method: 'GET', url: `/v1/operations?register_id=${fx.registerId}&limit=200`, headers: fx.headers }));
    expect(list.data.filter((op: any) => op.external_id === 'idem-1')).toHaveLength(1);

    const conflict = await send(saleBody(fx.registerId, { external_id: 'idem-2' }));
    expect(expectApiError(conflict, 409, 'idempotency_key_conflict').details).toBeDefined();
  });

  it('scopes a key per endpoint, merchant and tenant', async () => {
    const key = idem();
    const create = (headers: Record<string, string>, payload: object) =>
      t.app.inject({ method: 'POST', url: '/v1/operations', headers: { ...headers, 'idempotency-key': key }, payload });

    const mine = json(await create(fx.headers, saleBody(null)));
    // Another merchant of the same tenant.
    const sibling = await plainRegister(t.app, apiKey);
    const theirs = await create(sibling.headers, saleBody(null));
    expect(theirs.statusCode).toBe(201);
    expect(json(theirs).id).not.toBe(mine.id);
    // Another tenant.
    const otherTenant = await createTenantWithKey(t.database, 'DEU');
    const foreign = await plainRegister(t.app, otherTenant.apiKey);
    const foreignResponse = await create(foreign.headers, saleBody(null));
    expect(foreignResponse.statusCode).toBe(201);
    expect(json(foreignResponse).id).not.toBe(mine.id);
    // Another endpoint: the same key on complete is a new request.
    const completed = await t.app.inject({
      method: 'POST',
      url: `/v1/operations/${mine.id}/complete`,
      headers: { ...fx.headers, 'idempotency-key': key, 'if-match': '"1"' },
      payload: { payments: [{ payment_id: 'p', method: 'card', amount: '11.90', currency: 'EUR', status: 'captured' }] },
    });
    expect(completed.statusCode).toBe(200);
  });

  it('replays a completion, and treats a changed If-Match under the same key as a different request', async () => {
    const sale = await mustCreate(t.app, fx.headers, saleBody(fx.registerId));
    const key = idem();
    const payload = { payments: [{ payment_id: 'p1', method: 'cash', amount: '11.90', currency: 'EUR', status: 'captured' }] };
    const complete = (ifMatch: string) =>
      t.app.inject({ method: 'POST', url: `/v1/operations/${sale.id}/complete`, headers: { ...fx.headers, 'idempotency-key': key, 'if-match': ifMatch }, payload });
    const first = await complete('"1"');
    expect(first.statusCode).toBe(200);
    const replay = await complete('"1"');
    expect(replay.statusCode).toBe(200);
    expect(replay.headers.etag).toBe('"2"');
    expect(json(replay)).toEqual(json(first));
    expectApiError(await complete('"2"'), 409, 'idempotency_key_conflict');
  });

  it('does not claim the key for a missing or malformed If-Match, nor keep a retryable 412', async () => {
    const sale = await mustCreate(t.app, fx.headers, saleBody(fx.registerId));
    const key = idem();
    const payload = { payments: [{ payment_id: 'p1', method: 'cash', amount: '11.90', currency: 'EUR', status: 'captured' }] };
    const complete = (ifMatch?: string) =>
      t.app.inject({
        method: 'POST',
        url: `/v1/operations/${sale.id}/complete`,
        headers: { ...fx.headers, 'idempotency-key': key, ...(ifMatch ? { 'if-match': ifMatch } : {}) },
        payload,
      });
    expectApiError(await complete(), 428, 'precondition_required');
    expectApiError(await complete('1'), 400, 'invalid_request');
    expectApiError(await complete('"7"'), 412, 'precondition_failed');
    const done = await complete('"1"');
    expect(done.statusCode).toBe(200);
    expect(json(done).status).toBe('completed');
  });
});

describe('operation state machine (contract 3.1)', () => {
  const payCash = (amount: string) => ({ payments: [{ payment_id: 'p1', method: 'cash', amount, currency: 'EUR', status: 'captured' }] });
  const call = (id: string, action: 'complete' | 'void', headers: Record<string, string>, payload: object) =>
    t.app.inject({ method: 'POST', url: `/v1/operations/${id}/${action}`, headers: { ...fx.headers, 'idempotency-key': idem(), ...headers }, payload });

  it.each(['complete', 'void'] as const)('%s needs a current If-Match: 428 missing, 400 malformed, 412 stale', async (action) => {
    const sale = await mustCreate(t.app, fx.headers, saleBody(fx.registerId));
    const payload = action === 'complete' ? payCash('11.90') : { reason: 'operator_cancelled' };
    const missing = expectApiError(await call(sale.id, action, {}, payload), 428, 'precondition_required');
    expect(missing.details.header).toBe('If-Match');
    for (const malformed of ['1', '"abc"', '"0"', '"-1"', 'W/"1"', '"1.5"']) {
      expect(expectApiError(await call(sale.id, action, { 'if-match': malformed }, payload), 400, 'invalid_request').details.header).toBe('If-Match');
    }
    const stale = expectApiError(await call(sale.id, action, { 'if-match': '"2"' }, payload), 412, 'precondition_failed');
    expect(stale.details).toEqual({ expected_resource_version: 2, current_resource_version: 1 });
    expect(stale.message).toMatch(/resource version mismatch/i);
    expect(json(await getOp(t.app, fx.headers, sale.id))).toMatchObject({ status: 'open', resource_version: 1 });
  });

  it('complete attaches the payments, signs, bumps resource_version and the ETag', async () => {
    const sale = await mustCreate(t.app, fx.headers, saleBody(fx.registerId));
    const response = await call(sale.id, 'complete', { 'if-match': '"1"' }, {
      completed_at: '2026-01-02T10:00:00.000Z',
      payments: [
        { payment_id: 'p1', method: 'cash', amount: '5.00', currency: 'EUR', status: 'captured' },
        {
          payment_id: 'p2',
          method: 'card',
          amount: '6.90',
          currency: 'EUR',
          status: 'captured',
          processor: 'adyen',
          card_brand: 'visa',
          processor_reference: 'psp-1',
          processed_at: '2026-01-02T09:59:59.000Z',
        },
      ],
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers.etag).toBe('"2"');
    const done = json(response);
    expect(done).toMatchObject({ status: 'completed', resource_version: 2, completed_at: '2026-01-02T10:00:00.000Z' });
    expect(done.payments).toEqual([
      { id: expect.any(String), payment_id: 'p1', method: 'cash', amount: '5.00', currency: 'EUR', status: 'captured', processor: null, card_brand: null, processor_reference: null, processed_at: null, gift_card_id: null },
      { id: expect.any(String), payment_id: 'p2', method: 'card', amount: '6.90', currency: 'EUR', status: 'captured', processor: 'adyen', card_brand: 'visa', processor_reference: 'psp-1', processed_at: '2026-01-02T09:59:59.000Z', gift_card_id: null },
    ]);
    expect(done.fiscal_information).not.toBeNull();
    expect(done.receipt_id).toMatch(/\S/);
    const read = await getOp(t.app, fx.headers, sale.id);
    expect(read.headers.etag).toBe('"2"');
    expect(json(read)).toEqual(done);
  });

  it('complete rejects payments that do not sum to total_amount (422, field payments)', async () => {
    const sale = await mustCreate(t.app, fx.headers, saleBody(fx.registerId));
    for (const payload of [payCash('11.89'), { payments: [] }, {}]) {
      const error = expectApiError(await call(sale.id, 'complete', { 'if-match': '"1"' }, payload), 422, 'validation_error');
      expect(error.details).toMatchObject({ field: 'payments', payments_total: expect.any(String), total_amount: '11.90' });
    }
    expect(json(await getOp(t.app, fx.headers, sale.id))).toMatchObject({ status: 'open', resource_version: 1, fiscal_information: null });
  });

  it('void takes one of the four reasons and bumps resource_version', async () => {
    for (const reason of ['void_before_completion', 'customer_abandoned_checkout', 'operator_cancelled', 'payment_failed']) {
      const sale = await mustCreate(t.app, fx.headers, saleBody(fx.registerId));
      const response = await voidOp(t.app, fx.headers, sale, reason);
      expect(response.statusCode).toBe(200);
      expect(response.headers.etag).toBe('"2"');
      const voided = json(response);
      expect(voided).toMatchObject({ status: 'voided', void_reason: reason, resource_version: 2, fiscal_information: null, completed_at: null });
      expect(Date.parse(voided.voided_at)).not.toBeNaN();
    }
    const sale = await mustCreate(t.app, fx.headers, saleBody(fx.registerId));
    expect(expectApiError(await voidOp(t.app, fx.headers, sale, 'other'), 400, 'invalid_request').details.field).toBe('reason');
    expectApiError(await call(sale.id, 'void', { 'if-match': '"1"' }, {}), 400, 'invalid_request');
  });

  it('anything on a completed or voided operation is 409 operation_invalid_state', async () => {
    const completed = await mustComplete(t.app, fx.headers, await mustCreate(t.app, fx.headers, saleBody(fx.registerId)));
    const voided = json(await voidOp(t.app, fx.headers, await mustCreate(t.app, fx.headers, saleBody(fx.registerId))));
    for (const op of [completed, voided]) {
      const current = { 'if-match': `"${op.resource_version}"` };
      expectApiError(await call(op.id, 'complete', current, payCash('11.90')), 409, 'operation_invalid_state');
      expectApiError(await call(op.id, 'void', current, { reason: 'operator_cancelled' }), 409, 'operation_invalid_state');
    }
  });

  it('complete and void of a session event are 409 operation_invalid_state', async () => {
    const adjustment = await mustCreate(t.app, fx.headers, { type: 'session_cash_adjustment', register_id: fx.registerId, amount: '1.00' });
    expectApiError(await call(adjustment.id, 'complete', { 'if-match': '"1"' }, { payments: [] }), 409, 'operation_invalid_state');
    expectApiError(await call(adjustment.id, 'void', { 'if-match': '"1"' }, { reason: 'operator_cancelled' }), 409, 'operation_invalid_state');
    const reg = await plainRegister(t.app, apiKey);
    const opened = json(await sessionEvent(t.app, reg.headers, reg.registerId, 'session_open'));
    const callOn = (action: 'complete' | 'void', payload: object) =>
      t.app.inject({
        method: 'POST',
        url: `/v1/operations/${opened.id}/${action}`,
        headers: { ...reg.headers, 'idempotency-key': idem(), 'if-match': '"1"' },
        payload,
      });
    expectApiError(await callOn('complete', { payments: [] }), 409, 'operation_invalid_state');
    expectApiError(await callOn('void', { reason: 'payment_failed' }), 409, 'operation_invalid_state');
  });

  it('an unknown operation, or one of another merchant, is 404', async () => {
    expectApiError(await getOp(t.app, fx.headers, 'op_unknown'), 404, 'not_found');
    expectApiError(await call('op_unknown', 'complete', { 'if-match': '"1"' }, payCash('1.00')), 404, 'not_found');
    const sale = await mustCreate(t.app, fx.headers, saleBody(fx.registerId));
    const sibling = await plainRegister(t.app, apiKey);
    expectApiError(await getOp(t.app, sibling.headers, sale.id), 404, 'not_found');
    const foreignComplete = await t.app.inject({
      method: 'POST',
      url: `/v1/operations/${sale.id}/complete`,
      headers: { ...auth(apiKey, sibling.merchantId), 'idempotency-key': idem(), 'if-match': '"1"' },
      payload: payCash('11.90'),
    });
    expectApiError(foreignComplete, 404, 'not_found');
    expect(json(await getOp(t.app, fx.headers, sale.id)).status).toBe('open');
  });
});

describe('Idempotency-Key on complete and void', () => {
  it('is required (400) and must be 1-255 visible characters', async () => {
    const sale = await mustCreate(t.app, fx.headers, saleBody(fx.registerId));
    for (const [action, payload] of [
      ['complete', { payments: [{ payment_id: 'p1', method: 'cash', amount: '11.90', currency: 'EUR', status: 'captured' }] }],
      ['void', { reason: 'operator_cancelled' }],
    ] as const) {
      const url = `/v1/operations/${sale.id}/${action}`;
      const missing = await t.app.inject({ method: 'POST', url, headers: { ...fx.headers, 'if-match': '"1"' }, payload });
      expect(expectApiError(missing, 400, 'invalid_request').details.header).toBe('Idempotency-Key');
      const tooLong = await t.app.inject({ method: 'POST', url, headers: { ...fx.headers, 'if-match': '"1"', 'idempotency-key': 'k'.repeat(256) }, payload });
      expectApiError(tooLong, 400, 'invalid_request');
    }
    expect(json(await getOp(t.app, fx.headers, sale.id))).toMatchObject({ status: 'open', resource_version: 1 });
  });

  it('a trailing slash does not make another endpoint: the same key replays', async () => {
    const key = idem();
    const send = (url: string) =>
      t.app.inject({ method: 'POST', url, headers: { ...fx.headers, 'idempotency-key': key }, payload: saleBody(null, { external_id: 'slash' }) });
    const first = await send('/v1/operations');
    const second = await send('/v1/operations/');
    expect(first.statusCode).toBe(201);
    expect(second.statusCode).toBe(201);
    expect(json(second).id).toBe(json(first).id);
  });
});

describe('OpenAPI document (GET /openapi-json)', () => {
  let doc: any;
  beforeAll(async () => {
    const response = await t.app.inject({ method: 'GET', url: '/openapi-json' });
    expect(response.statusCode).toBe(200);
    doc = json(response);
  });
  const resolve = (schema: any) => (schema?.$ref ? doc.components.schemas[schema.$ref.split('/').pop()] : schema);
  const TYPES = ['sale', 'return', 'exchange', 'session_open', 'session_cash_adjustment', 'session_cash_count', 'session_close'];
  const variantTypes = (union: any) =>
    union.oneOf.map((variant: any) => {
      const type = resolve(variant).properties.type;
      return type.const ?? (type.enum.length === 1 ? type.enum[0] : type.enum);
    });

  it('describes the create body as a oneOf of the seven types with discriminator type', () => {
    const body = resolve(doc.paths['/v1/operations'].post.requestBody.content['application/json'].schema);
    expect(body.discriminator).toMatchObject({ propertyName: 'type' });
    expect(variantTypes(body)).toEqual(TYPES);
    const sale = resolve(body.oneOf[0]);
    expect(sale.required).toEqual(expect.arrayContaining(['type', 'source', 'currency', 'total_amount', 'line_items']));
    expect(sale.properties.line_items.items.required).toContain('sku_identifier');
  });

  it('describes every operation response as the Operation union with discriminator type', () => {
    const responses = [
      doc.paths['/v1/operations'].post.responses['201'],
      doc.paths['/v1/operations/{id}'].get.responses['200'],
      doc.paths['/v1/operations/{id}/complete'].post.responses['200'],
      doc.paths['/v1/operations/{id}/void'].post.responses['200'],
    ];
    for (const response of responses) {
      // Paths shared with Style O (DESIGN) may offer both styles' shapes; the Style M one is the Operation union.
      const schema = resolve(response.content['application/json'].schema);
      const candidates = [schema, ...(schema.anyOf ?? []).map(resolve)];
      const union = candidates.find((candidate) => candidate.oneOf && candidate.discriminator?.propertyName === 'type');
      expect(union).toBeDefined();
      expect(variantTypes(union)).toEqual(TYPES);
    }
    const list = doc.paths['/v1/operations'].get.responses['200'].content['application/json'].schema;
    expect(resolve(list.properties.data.items).discriminator).toMatchObject({ propertyName: 'type' });
    const session = resolve(doc.components.schemas.Operation.oneOf[3]);
    for (const omitted of ['pretax_amount', 'total_amount', 'line_items', 'payments', 'fiscal_information']) {
      expect(session.properties).not.toHaveProperty(omitted);
    }
  });

  it('documents the error statuses, the list filters and the fiscal and receipt routes', () => {
    expect(Object.keys(doc.paths['/v1/operations/{id}/complete'].post.responses)).toEqual(expect.arrayContaining(['400', '404', '409', '412', '422', '428']));
    expect(Object.keys(doc.paths['/v1/operations'].post.responses)).toEqual(expect.arrayContaining(['400', '409', '422']));
    const parameters = doc.paths['/v1/operations'].get.parameters.filter((p: any) => p.in === 'query');
    expect(parameters.map((p: any) => p.name).sort()).toEqual(['created_from', 'created_to', 'cursor', 'limit', 'register_id', 'session_id', 'status', 'type']);
    expect(parameters.find((p: any) => p.name === 'limit').schema).toMatchObject({ minimum: 1, maximum: 200 });
    for (const path of ['/v1/registers/{id}/fiscalize', '/v1/registers/{id}/decommission']) {
      expect(Object.keys(doc.paths[path].post.responses)).toEqual(expect.arrayContaining(['200', '409', '422']));
    }
    expect(doc.paths['/v1/registers/{id}/simulation'].put).toBeDefined();
    expect(doc.paths['/v1/receipts/{id}'].get.responses['200']).toBeDefined();
    expect(doc.paths['/receipts/{token}'].get).toBeDefined();
    expect(doc.paths['/receipts/{token}/pdf'].get).toBeDefined();
    const fiscal = doc.components.schemas.KassenSichVFiscalInformation;
    expect(fiscal.required).toEqual(expect.arrayContaining(['tss_serial_number', 'pos_client_serial_number', 'start_event', 'end_event', 'verification']));
    expect(fiscal.properties.end_event.required).toContain('public_key');
    expect(fiscal.properties.start_event.required).toEqual(['signed_at']);
  });
});
