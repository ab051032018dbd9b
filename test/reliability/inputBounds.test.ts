// Input the service cannot store, print or walk is a 400 with the envelope, never a 500:
// date-times outside 1970-9999 (completed_at also no more than a day ahead), cursors
// the service did not issue, and JSON nested deeper than the service accepts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findInputViolation, MAX_JSON_DEPTH } from '../../src/http/nulGuard.js';
import { fiscalizedRegisterWithSession, idem, mustCreate, saleBody, type OperationsFixture } from '../support/operations.js';
import { getReceipt, organizationKey, orgAuth } from '../support/styleO.js';
import { ADMIN_TOKEN, createTenantWithKey, createTestApp, expectError, json, type TestApp } from '../support/testApp.js';

let t: TestApp;
let fx: OperationsFixture;
let styleO: Record<string, string>;
let openSale: { id: string; resource_version: number; total_amount: string };

beforeAll(async () => {
  t = await createTestApp({ EXPORT_POLL_MS: '100' });
  const tenant = await createTenantWithKey(t.database, 'DEU');
  fx = await fiscalizedRegisterWithSession(t.app, tenant.apiKey);
  styleO = orgAuth(await organizationKey(t.database, tenant.tenantId, fx.merchantId));
  openSale = await mustCreate(t.app, fx.headers, saleBody(fx.registerId));
});
afterAll(() => t.close());

const HOUR_MS = 3_600_000;
const OUT_OF_RANGE = [
  '0000-01-01T00:00:00Z',
  '1969-12-31T23:59:59Z',
  '1970-01-01T00:30:00+01:00', // 1969 in UTC
  '9999-12-31T23:30:00-01:00', // 10000 in UTC
  '10000-01-01T00:00:00Z',
];

const complete = (operation: { id: string; resource_version: number }, payload: object) =>
  t.app.inject({
    method: 'POST',
    url: `/v1/operations/${operation.id}/complete`,
    headers: { ...fx.headers, 'idempotency-key': idem(), 'if-match': `"${operation.resource_version}"` },
    payload,
  });
const cashPayment = (overrides: Record<string, unknown> = {}) => ({ method: 'cash', amount: openSale.total_amount, currency: 'EUR', ...overrides });
const createExport = (from: string, to: string) =>
  t.app.inject({ method: 'POST', url: '/v1/exports', headers: fx.headers, payload: { type: 'dsfinvk', from, to } });
const list = (query: string) => t.app.inject({ method: 'GET', url: `/v1/operations?${query}`, headers: fx.headers });

function expectInvalidField(response: Awaited<ReturnType<typeof list>>, field: string) {
  expect(expectError(response, 400, 'invalid_request').details).toMatchObject({ field });
}

describe('date-time inputs outside 1970-9999', () => {
  it('are 400 naming the field for completed_at and processed_at', async () => {
    for (const value of OUT_OF_RANGE) {
      expectInvalidField(await complete(openSale, { payments: [cashPayment()], completed_at: value }), 'completed_at');
      expectInvalidField(await complete(openSale, { payments: [cashPayment({ processed_at: value })] }), 'payments[0].processed_at');
    }
  });

  it('are 400 for completed_at more than 24 hours ahead, and the message says the window', async () => {
    for (const value of ['9999-12-31T23:59:59Z', new Date(Date.now() + 25 * HOUR_MS).toISOString()]) {
      const body = expectError(await complete(openSale, { payments: [cashPayment()], completed_at: value }), 400, 'invalid_request');
      expect(body.details).toMatchObject({ field: 'completed_at' });
      expect(body.message).toMatch(/1970-01-01T00:00:00Z.*24 hours/);
    }
  });

  it('are 400 for export from and to', async () => {
    for (const value of OUT_OF_RANGE) {
      expectInvalidField(await createExport(value, '2030-01-01T00:00:00Z'), 'from');
      expectInvalidField(await createExport('2020-01-01T00:00:00Z', value), 'to');
    }
  });

  it('are 400 for created_from and created_to of the operation list; the edges are accepted', async () => {
    for (const value of OUT_OF_RANGE) {
      expectInvalidField(await list(`created_from=${encodeURIComponent(value)}`), 'created_from');
      expectInvalidField(await list(`created_to=${encodeURIComponent(value)}`), 'created_to');
    }
    const edges = await list('created_from=1970-01-01T00:00:00Z&created_to=9999-12-31T23:59:59.999Z');
    expect(edges.statusCode).toBe(200);
    expect(json(edges).data.map((operation: { id: string }) => operation.id)).toContain(openSale.id);
  });

  it('describe their window in the served OpenAPI document', async () => {
    const doc = json(await t.app.inject({ method: 'GET', url: '/openapi-json' }));
    const listParameters = doc.paths['/v1/operations'].get.parameters as { name: string; description?: string }[];
    expect(listParameters.find((parameter) => parameter.name === 'created_from')?.description).toMatch(/1970-01-01T00:00:00Z.*9999-12-31T23:59:59Z/);
    expect(JSON.stringify(doc.paths['/v1/operations/{id}/complete'].post.requestBody)).toMatch(/24 hours/);
  });
});

describe('cursors the service did not issue', () => {
  const encode = (text: string) => Buffer.from(text).toString('base64url');
  const malformed: Record<string, string> = {
    'random base64': Buffer.from('c2f1e0a9b8d7c6f5e4d3c2b1a0f9e8d7c6b5a4', 'hex').toString('base64url'),
    'year 0000': encode('0000-01-01T00:00:00.000Z|op_00000000000000000000'),
    'year 1969': encode('1969-12-31T23:59:59.000Z|op_00000000000000000000'),
    'year 275760': encode('+275760-09-13T00:00:00.000Z|op_00000000000000000000'),
    'a date not in the issued form': encode('2026-01-01|op_00000000000000000000'),
    'a NUL in the id': encode('2026-01-01T00:00:00.000Z|op_\u0000'),
    'an id that is no id': encode(`2026-01-01T00:00:00.000Z|${"x' OR 1=1 --".repeat(3)}`),
    'a third part': encode('2026-01-01T00:00:00.000Z|op_00000000000000000000|x'),
    'not base64': '!!not*base64!!',
    'padded base64': `${encode('2026-01-01T00:00:00.000Z|op_00000000000000000000')}=`,
    empty: '',
    overlong: 'A'.repeat(5000),
  };

  it.each(Object.entries(malformed))('%s is 400 naming cursor', async (_name, cursor) => {
    expectInvalidField(await list(`cursor=${encodeURIComponent(cursor)}`), 'cursor');
  });

  it('an issued cursor still pages', async () => {
    await mustCreate(t.app, fx.headers, saleBody(fx.registerId));
    const first = json(await list('limit=1'));
    expect(first.cursor).toEqual(expect.any(String));
    const second = await list(`limit=1&cursor=${first.cursor}`);
    expect(second.statusCode).toBe(200);
    expect(json(second).data[0].id).not.toBe(first.data[0].id);
  });
});

describe('a sale completed at the earliest instant', () => {
  it('lists, prints its canonical receipt and exports', async () => {
    const completed = await complete(openSale, {
      payments: [cashPayment({ processed_at: '9999-12-31T23:59:59Z' })],
      completed_at: '1970-01-01T00:00:00Z',
    });
    expect(completed.statusCode).toBe(200);
    expect(json(completed).completed_at).toBe('1970-01-01T00:00:00.000Z');
    const ahead = await mustCreate(t.app, fx.headers, saleBody(fx.registerId));
    const aheadAt = new Date(Date.now() + 23 * HOUR_MS).toISOString();
    const completedAhead = await complete(ahead, { payments: [cashPayment()], completed_at: aheadAt });
    expect(completedAhead.statusCode).toBe(200);

    const listed = await list('limit=200');
    expect(listed.statusCode).toBe(200);
    expect(json(listed).data.find((operation: { id: string }) => operation.id === openSale.id)?.completed_at).toBe('1970-01-01T00:00:00.000Z');

    const receipt = await getReceipt(t.app, styleO, openSale.id);
    expect(receipt.statusCode).toBe(200);
    expect(json(receipt).operation.completed_at).toBe('1970-01-01T00:00:00.000Z');
    expect((await t.app.inject({ method: 'GET', url: `/v1/receipts/${json(completed).receipt_id}`, headers: fx.headers })).statusCode).toBe(200);

    for (const type of ['session_cash_count', 'session_close']) {
      await mustCreate(t.app, fx.headers, { type, register_id: fx.registerId, ...(type === 'session_cash_count' ? { counted_closing_amount: '123.80' } : {}) });
    }
    const created = await createExport('1970-01-01T00:00:00Z', '9999-12-31T23:59:59Z');
    expect(created.statusCode).toBe(202);
    const deadline = Date.now() + 20_000;
    let job = json(created);
    while (job.status === 'pending' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      job = json(await t.app.inject({ method: 'GET', url: `/v1/exports/${job.id}`, headers: fx.headers }));
    }
    expect(job).toMatchObject({ status: 'completed', from: '1970-01-01T00:00:00.000Z', to: '9999-12-31T23:59:59.000Z' });
  });
});

// ---- deep JSON ----

const nestedArrays = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const nestedObjects = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
/** A body that is valid but for one placeholder value replaced with deep JSON. */
const embed = (body: object, deep: string) => JSON.stringify(body).replace('"__deep__"', deep);

describe('deeply nested JSON', () => {
  const routes = () => [
    { name: 'Style M create operation', method: 'POST' as const, url: '/v1/operations', headers: { ...fx.headers, 'idempotency-key': idem() } },
    { name: 'Style M merchants', method: 'POST' as const, url: '/v1/merchants', headers: { authorization: fx.headers.authorization } },
    { name: 'Style O refund', method: 'POST' as const, url: `/v1/registers/${fx.registerId}/refunds`, headers: styleO },
    { name: 'Style O complete', method: 'POST' as const, url: `/v1/operations/${openSale.id}/complete`, headers: styleO },
    { name: 'admin tenants', method: 'POST' as const, url: '/admin/v1/tenants', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } },
  ];

  it.each([5_000, 100_000])('%i levels are 400 with the envelope on every route kind', async (depth) => {
    const bodies = [
      nestedArrays(depth),
      nestedObjects(depth),
      embed(saleBody(fx.registerId, { line_items: [{ ...saleBody(null).line_items[0], taxes: '__deep__' }] }), nestedArrays(depth)),
      embed({ original_operation_id: openSale.id, metadata: { note: '__deep__' } }, nestedObjects(depth)),
    ];
    for (const route of routes()) {
      for (const payload of bodies) {
        expect(payload.length).toBeLessThan(t.config.bodyLimitBytes);
        const response = await t.app.inject({ ...route, headers: { ...route.headers, 'content-type': 'application/json' }, payload });
        const body = expectError(response, 400, 'invalid_request');
        expect(body.details).toMatchObject({ field: 'body', max_depth: MAX_JSON_DEPTH });
        expect(body.message).toContain(String(MAX_JSON_DEPTH));
      }
    }
  });

  it(`accepts ${MAX_JSON_DEPTH} levels for validation and refuses ${MAX_JSON_DEPTH + 1}`, async () => {
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
    // The body object is the first level.
    const atLimit = await t.app.inject({ method: 'POST', url: '/admin/v1/tenants', headers: admin, payload: embed({ name: 'x', extra: '__deep__' }, nestedArrays(MAX_JSON_DEPTH - 1)) });
    expect(expectError(atLimit, 400, 'invalid_request').details).toMatchObject({ field: 'extra' });
    const overLimit = await t.app.inject({ method: 'POST', url: '/admin/v1/tenants', headers: admin, payload: embed({ name: 'x', extra: '__deep__' }, nestedArrays(MAX_JSON_DEPTH)) });
    expect(expectError(overLimit, 400, 'invalid_request').details).toMatchObject({ field: 'body', max_depth: MAX_JSON_DEPTH });
  });
});

describe('the input walk', () => {
  const deepArray = (depth: number, leaf: unknown): unknown => {
    let value: unknown = leaf;
    for (let level = 0; level < depth; level += 1) value = [value];
    return value;
  };

  it('walks 200,000 levels without a stack overflow', () => {
    const deep = deepArray(200_000, 'a\u0000');
    expect(findInputViolation(deep, Infinity)).toEqual({ problem: 'nul', path: new Array(200_000).fill(0) });
    expect(findInputViolation(deep)).toEqual({ problem: 'too_deep', path: new Array(MAX_JSON_DEPTH).fill(0) });
    expect(findInputViolation(deepArray(MAX_JSON_DEPTH, 'fine'))).toBeNull();
    expect(findInputViolation(deepArray(MAX_JSON_DEPTH + 1, 'fine'))).toMatchObject({ problem: 'too_deep' });
  });

  it('reports the first NUL in document order, in values and in keys', () => {
    expect(findInputViolation({ a: ['ok', { b: 'x\u0000' }], c: '\u0000' })).toEqual({ problem: 'nul', path: ['a', 1, 'b'] });
    expect(findInputViolation({ a: 'ok', ['k\u0000']: 1, z: '\u0000' })).toEqual({ problem: 'nul', path: ['k\u0000'] });
    expect(findInputViolation({ a: [1, true, null, { b: 'ok' }] })).toBeNull();
  });
});
