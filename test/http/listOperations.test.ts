// GET /v1/operations (DESIGN): newest first, filters register_id, session_id,
// type, status, created_from, created_to, and cursor pagination (limit 1-200).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenantWithKey, createTestApp, json, type TestApp } from '../support/testApp.js';
import {
  expectApiError,
  fiscalizedRegisterWithSession,
  mustComplete,
  mustCreate,
  plainRegister,
  returnBody,
  saleBody,
  voidOp,
  type OperationsFixture,
} from '../support/operations.js';

let t: TestApp;
let a: OperationsFixture;
let b: { registerId: string };
let all: any[];
let firstSession: string;
let secondSession: string;

const list = (query = '', headers = a.headers) => t.app.inject({ method: 'GET', url: `/v1/operations${query ? `?${query}` : ''}`, headers });
const ids = (ops: any[]) => ops.map((op) => op.id);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  t = await createTestApp();
  const apiKey = (await createTenantWithKey(t.database, 'DEU')).apiKey;
  a = await fiscalizedRegisterWithSession(t.app, apiKey);
  // A second register of the same merchant (its location and register created through the API).
  const location = json(await t.app.inject({ method: 'POST', url: '/v1/locations', headers: a.headers, payload: { name: 'Filiale Süd', address: { line1: 'Marienplatz 1', city: 'München', postal_code: '80331', country_code: 'DEU' } } }));
  b = { registerId: json(await t.app.inject({ method: 'POST', url: '/v1/registers', headers: a.headers, payload: { location_id: location.id, name: 'Kasse 2' } })).id };

  const completed = await mustComplete(t.app, a.headers, await mustCreate(t.app, a.headers, saleBody(a.registerId)));
  firstSession = completed.session_id;
  await mustCreate(t.app, a.headers, saleBody(a.registerId)); // open
  await voidOp(t.app, a.headers, await mustCreate(t.app, a.headers, saleBody(a.registerId)));
  await mustComplete(t.app, a.headers, await mustCreate(t.app, a.headers, returnBody(a.registerId, completed.id)));
  await mustCreate(t.app, a.headers, saleBody(null));
  await mustCreate(t.app, a.headers, { type: 'session_open', register_id: b.registerId, opening_amount: '5.00' });
  await mustCreate(t.app, a.headers, { type: 'session_cash_adjustment', register_id: b.registerId, amount: '2.00' });
  await mustCreate(t.app, a.headers, { type: 'session_cash_count', register_id: a.registerId, counted_closing_amount: '100.00' });
  await mustCreate(t.app, a.headers, { type: 'session_close', register_id: a.registerId });
  await sleep(5);
  secondSession = (await mustCreate(t.app, a.headers, { type: 'session_open', register_id: a.registerId })).session_id;
  await mustCreate(t.app, a.headers, saleBody(a.registerId));

  // Another merchant's operations never show.
  const other = await plainRegister(t.app, apiKey);
  await mustCreate(t.app, other.headers, saleBody(null));

  const response = await list('limit=200');
  expect(response.statusCode).toBe(200);
  const body = json(response);
  expect(body.cursor).toBeNull();
  all = body.data;
});
afterAll(() => t.close());

describe('listing', () => {
  it('lists every operation of the merchant, newest first, in the Operation union', () => {
    // session_open of the fixture + 11 created above
    expect(all).toHaveLength(12);
    expect(all.every((op) => op.merchant_id === a.merchantId)).toBe(true);
    for (let i = 1; i < all.length; i++) {
      const [newer, older] = [all[i - 1], all[i]];
      const order = Date.parse(newer.created_at) - Date.parse(older.created_at);
      expect(order > 0 || (order === 0 && newer.id > older.id)).toBe(true);
    }
    expect(all[0].type).toBe('sale');
    expect(all[0].session_id).toBe(secondSession);
    const adjustment = all.find((op) => op.type === 'session_cash_adjustment');
    expect(adjustment).not.toHaveProperty('total_amount');
    expect(adjustment).not.toHaveProperty('line_items');
  });

  it('defaults to a page of 50 and says so with a null cursor when all fit', async () => {
    const body = json(await list());
    expect(ids(body.data)).toEqual(ids(all));
    expect(body.cursor).toBeNull();
  });
});

describe('filters', () => {
  const expectFiltered = async (query: string, predicate: (op: any) => boolean) => {
    const response = await list(`${query}&limit=200`);
    expect(response.statusCode).toBe(200);
    const expected = all.filter(predicate);
    expect(expected.length).toBeGreaterThan(0);
    expect(ids(json(response).data)).toEqual(ids(expected));
  };

  it('register_id', async () => {
    await expectFiltered(`register_id=${a.registerId}`, (op) => op.register_id === a.registerId);
    await expectFiltered(`register_id=${b.registerId}`, (op) => op.register_id === b.registerId);
  });

  it('session_id', async () => {
    await expectFiltered(`session_id=${firstSession}`, (op) => op.session_id === firstSession);
    await expectFiltered(`session_id=${secondSession}`, (op) => op.session_id === secondSession);
  });

  it('type', async () => {
    await expectFiltered('type=sale', (op) => op.type === 'sale');
    await expectFiltered('type=return', (op) => op.type === 'return');
    await expectFiltered('type=session_open', (op) => op.type === 'session_open');
    await expectFiltered('type=session_close', (op) => op.type === 'session_close');
  });

  it('status', async () => {
    await expectFiltered('status=open', (op) => op.status === 'open');
    await expectFiltered('status=voided', (op) => op.status === 'voided');
    await expectFiltered('status=completed', (op) => op.status === 'completed');
  });

  it('created_from and created_to are inclusive bounds', async () => {
    const pivot = all[Math.floor(all.length / 2)];
    await expectFiltered(`created_from=${encodeURIComponent(pivot.created_at)}`, (op) => op.created_at >= pivot.created_at);
    await expectFiltered(`created_to=${encodeURIComponent(pivot.created_at)}`, (op) => op.created_at <= pivot.created_at);
    const first = all[all.length - 1];
    await expectFiltered(
      `created_from=${encodeURIComponent(first.created_at)}&created_to=${encodeURIComponent(pivot.created_at)}`,
      (op) => op.created_at >= first.created_at && op.created_at <= pivot.created_at,
    );
    const empty = json(await list(`created_from=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`));
    expect(empty).toEqual({ data: [], cursor: null });
  });

  it('combines filters', async () => {
    await expectFiltered(`register_id=${a.registerId}&type=sale&status=open`, (op) => op.register_id === a.registerId && op.type === 'sale' && op.status === 'open');
  });

  it('rejects unknown filter values and parameters (400)', async () => {
    expectApiError(await list('type=refund'), 400, 'invalid_request');
    expectApiError(await list('status=cancelled'), 400, 'invalid_request');
    expectApiError(await list('created_from=yesterday'), 400, 'invalid_request');
    expectApiError(await list('colour=blue'), 400, 'invalid_request');
  });
});

describe('cursor pagination', () => {
  it.each([1, 3, 5])('pages of %i neither overlap nor skip, newest first', async (limit) => {
    const pages: any[][] = [];
    let cursor: string | null = null;
    do {
      const response = await list(`limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(response.statusCode).toBe(200);
      const body = json(response);
      expect(body.data.length).toBeLessThanOrEqual(limit);
      pages.push(body.data);
      cursor = body.cursor;
    } while (cursor);
    expect(pages.slice(0, -1).every((page) => page.length === limit)).toBe(true);
    const walked = ids(pages.flat());
    expect(new Set(walked).size).toBe(walked.length);
    expect(walked).toEqual(ids(all));
  });

  it('paginates within a filter', async () => {
    const sales = all.filter((op) => op.type === 'sale');
    const first = json(await list('type=sale&limit=2'));
    const second = json(await list(`type=sale&limit=2&cursor=${encodeURIComponent(first.cursor)}`));
    expect([...ids(first.data), ...ids(second.data)]).toEqual(ids(sales).slice(0, 4));
  });

  it('limit is 1-200: 0 and 201 are 400', async () => {
    expect(expectApiError(await list('limit=0'), 400, 'invalid_request').details.field).toBe('limit');
    expect(expectApiError(await list('limit=201'), 400, 'invalid_request').details.field).toBe('limit');
    expectApiError(await list('limit=-1'), 400, 'invalid_request');
    expectApiError(await list('limit=2.5'), 400, 'invalid_request');
    expectApiError(await list('limit=ten'), 400, 'invalid_request');
    expect((await list('limit=1')).statusCode).toBe(200);
    expect((await list('limit=200')).statusCode).toBe(200);
  });

  it('a cursor the service did not issue is 400', async () => {
    expect(expectApiError(await list('cursor=not-a-cursor'), 400, 'invalid_request').details.field).toBe('cursor');
  });
});
