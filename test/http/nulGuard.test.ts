import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, createTenantWithKey, createTestApp, deuMerchantBody, expectError, type TestApp } from '../support/testApp.js';

let t: TestApp;
let apiKey: string;

beforeAll(async () => {
  t = await createTestApp();
  apiKey = (await createTenantWithKey(t.database, 'DEU')).apiKey;
});
afterAll(() => t.close());

describe('NUL characters (PostgreSQL cannot store them)', () => {
  it('are refused in a body field with 400 naming the field, and nothing is written', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/merchants',
      headers: auth(apiKey),
      payload: deuMerchantBody({ address: { line1: 'A\u0000B', city: 'Berlin', postal_code: '10117', country_code: 'DEU' } }),
    });
    expect(expectError(response, 400, 'invalid_request').details).toMatchObject({ field: 'address.line1', location: 'body' });
    expect(await t.database.prisma.merchant.count()).toBe(0);
  });

  it('are refused in a path parameter and in the query', async () => {
    expectError(await t.app.inject({ method: 'GET', url: '/v1/merchants/mer_%00', headers: auth(apiKey) }), 400, 'invalid_request');
    const merchant = (await t.app.inject({ method: 'POST', url: '/v1/merchants', headers: auth(apiKey), payload: deuMerchantBody() })).json();
    const listed = await t.app.inject({ method: 'GET', url: '/v1/operations?register_id=%00', headers: auth(apiKey, merchant.id) });
    expect(expectError(listed, 400, 'invalid_request').details).toMatchObject({ field: 'register_id', location: 'query' });
  });
});
