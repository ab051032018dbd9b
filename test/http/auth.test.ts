// Contract section 5: authentication (401), scoping by tenant (404), country and organization (403),
// and the merchant header of Style M merchant-scoped calls (400).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '../../src/lib/apiKeys.js';
import { createApiKey, revokeApiKey } from '../../src/modules/admin/service.js';
import {
  auth,
  createDeuSetup,
  createTenantWithKey,
  createTestApp,
  DEU_ADDRESS,
  deuMerchantBody,
  expectError,
  json,
  type Tenant,
  type TestApp,
} from '../support/testApp.js';

const AUT_ADDRESS = { line1: 'Stephansplatz 1', city: 'Wien', postal_code: '1010', country_code: 'AUT' };
const autMerchantBody = () => ({
  legal_name: 'Wiener Kaffeehaus GmbH',
  country_code: 'AUT',
  address: AUT_ADDRESS,
  fiscal_identities: [{ country_code: 'AUT', legal_entity_id_type: 'VAT_ID', vat_id: 'ATU12345678' }],
});

let t: TestApp;
let deu: Tenant; // tenant A, DEU key
let autKey: string; // tenant A, AUT key
let stranger: Tenant; // tenant B, DEU key
let setupA: { merchantId: string; locationId: string; registerId: string };
let autMerchantId: string;

beforeAll(async () => {
  t = await createTestApp();
  deu = await createTenantWithKey(t.database, 'DEU');
  autKey = (await createApiKey(t.database.prisma, deu.tenantId, 'test', { kind: 'tenant', country_code: 'AUT' })).apiKey;
  stranger = await createTenantWithKey(t.database, 'DEU');
  setupA = await createDeuSetup(t.app, deu.apiKey);
  const aut = await t.app.inject({ method: 'POST', url: '/v1/merchants', headers: auth(autKey), payload: autMerchantBody() });
  expect(aut.statusCode).toBe(201);
  autMerchantId = json(aut).id;
});
afterAll(() => t.close());

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });

describe('401 unauthorized', () => {
  const malformed: [string, Record<string, string>][] = [
    ['no Authorization header', {}],
    ['an empty header', { authorization: '' }],
    ['Bearer with no key', { authorization: 'Bearer' }],
    ['Bearer and a space', { authorization: 'Bearer ' }],
    ['Bearer abc', { authorization: 'Bearer abc' }],
    ['Basic credentials', { authorization: 'Basic x' }],
    ['Basic with a base64 pair', { authorization: `Basic ${Buffer.from('user:pass').toString('base64')}` }],
    ['a two-letter country', { authorization: `Bearer svc_test_de_${'a'.repeat(32)}` }],
    ['an uppercase country', { authorization: `Bearer svc_test_DEU_${'a'.repeat(32)}` }],
    ['an unknown environment', { authorization: `Bearer svc_prod_deu_${'a'.repeat(32)}` }],
    ['a too short random part', { authorization: 'Bearer svc_test_deu_abc' }],
    ['punctuation in the random part', { authorization: `Bearer svc_test_deu_${'a'.repeat(30)}-!` }],
  ];

  it.each(malformed)('for %s', async (_label, headers) => {
    const body = expectError(await get('/v1/merchants', headers), 401, 'unauthorized');
    expect(body.retryable).toBe(false);
  });

  it('for a key sent without the Bearer scheme, or with trailing text', async () => {
    expectError(await get('/v1/merchants', { authorization: deu.apiKey }), 401, 'unauthorized');
    expectError(await get('/v1/merchants', { authorization: `Token ${deu.apiKey}` }), 401, 'unauthorized');
    expectError(await get('/v1/merchants', { authorization: `Bearer ${deu.apiKey} extra` }), 401, 'unauthorized');
  });

  it('for a well-formed key that was never issued', async () => {
    const { apiKey } = generateApiKey('tenant', 'test', 'DEU');
    expectError(await get('/v1/merchants', auth(apiKey)), 401, 'unauthorized');
    expectError(await get('/v1/merchants', auth(`${deu.apiKey}x`)), 401, 'unauthorized');
    const platform = generateApiKey('platform', 'test');
    expectError(await get('/v1/merchants', auth(platform.apiKey)), 401, 'unauthorized');
  });

  it('for a revoked key, from the next request on', async () => {
    const { record, apiKey } = await createApiKey(t.database.prisma, deu.tenantId, 'test', { kind: 'tenant', country_code: 'DEU' });
    expect((await get('/v1/merchants', auth(apiKey))).statusCode).toBe(200);
    await revokeApiKey(t.database.prisma, record.id);
    expectError(await get('/v1/merchants', auth(apiKey)), 401, 'unauthorized');
    expectError(await get('/v1/locations', auth(apiKey, setupA.merchantId)), 401, 'unauthorized');
  });

  it('for a key of the other environment (svc_live_ on the sandbox), even one that exists', async () => {
    const live = await createTenantWithKey(t.database, 'DEU', 'live');
    expect(live.apiKey).toMatch(/^svc_live_deu_/);
    expectError(await get('/v1/merchants', auth(live.apiKey)), 401, 'unauthorized');
    const livePlatform = await createApiKey(t.database.prisma, deu.tenantId, 'live', { kind: 'platform' });
    expectError(await get('/v1/merchants', auth(livePlatform.apiKey)), 401, 'unauthorized');
  });

  it('before anything else: a bad key on a merchant-scoped call without merchant header or with a bad body is 401', async () => {
    expectError(await get('/v1/locations'), 401, 'unauthorized');
    expectError(
      await t.app.inject({ method: 'POST', url: '/v1/merchants', headers: { authorization: 'Bearer nope' }, payload: { bad: true } }),
      401,
      'unauthorized',
    );
    expectError(await get(`/v1/merchants/${setupA.merchantId}`, { authorization: 'Bearer nope' }), 401, 'unauthorized');
  });

  it('on every /v1 route', async () => {
    const routes: [string, string][] = [
      ['GET', '/v1/merchants'],
      ['POST', '/v1/merchants'],
      ['GET', `/v1/merchants/${setupA.merchantId}`],
      ['PATCH', `/v1/merchants/${setupA.merchantId}`],
      ['DELETE', `/v1/merchants/${setupA.merchantId}`],
      ['GET', '/v1/locations'],
      ['POST', '/v1/locations'],
      ['GET', `/v1/locations/${setupA.locationId}`],
      ['PATCH', `/v1/locations/${setupA.locationId}`],
      ['DELETE', `/v1/locations/${setupA.locationId}`],
      ['GET', '/v1/registers'],
      ['POST', '/v1/registers'],
      ['GET', `/v1/registers/${setupA.registerId}`],
      ['PATCH', `/v1/registers/${setupA.registerId}`],
      ['DELETE', `/v1/registers/${setupA.registerId}`],
    ];
    for (const [method, url] of routes) {
      const response = await t.app.inject({
        method: method as 'GET',
        url,
        headers: { 'x-service-merchant': setupA.merchantId },
        ...(method === 'POST' || method === 'PATCH' ? { payload: {} } : {}),
      });
      expectError(response, 401, 'unauthorized');
    }
    // nothing was deleted
    expect((await get(`/v1/registers/${setupA.registerId}`, auth(deu.apiKey, setupA.merchantId))).statusCode).toBe(200);
  });
});

describe('a production service', () => {
  it('accepts svc_live_ keys and answers 401 to svc_test_ keys', async () => {
    const production = await createTestApp({ SERVICE_ENV: 'production' });
    try {
      const live = await createTenantWithKey(production.database, 'DEU', 'live');
      const test = await createTenantWithKey(production.database, 'DEU', 'test');
      expect((await production.app.inject({ method: 'GET', url: '/v1/merchants', headers: auth(live.apiKey) })).statusCode).toBe(200);
      expectError(await production.app.inject({ method: 'GET', url: '/v1/merchants', headers: auth(test.apiKey) }), 401, 'unauthorized');
    } finally {
      await production.close();
    }
  });
});

describe('403 forbidden: a valid key outside its country', () => {
  it('cannot create a merchant of another country', async () => {
    const body = expectError(
      await t.app.inject({ method: 'POST', url: '/v1/merchants', headers: auth(deu.apiKey), payload: autMerchantBody() }),
      403,
      'forbidden',
    );
    expect(body.retryable).toBe(false);
    expectError(
      await t.app.inject({ method: 'POST', url: '/v1/merchants', headers: auth(autKey), payload: deuMerchantBody() }),
      403,
      'forbidden',
    );
  });

  it('cannot read, change or delete a merchant of its own tenant in another country', async () => {
    expectError(await get(`/v1/merchants/${autMerchantId}`, auth(deu.apiKey)), 403, 'forbidden');
    expectError(
      await t.app.inject({ method: 'PATCH', url: `/v1/merchants/${autMerchantId}`, headers: auth(deu.apiKey), payload: { legal_name: 'X' } }),
      403,
      'forbidden',
    );
    expectError(await t.app.inject({ method: 'DELETE', url: `/v1/merchants/${autMerchantId}`, headers: auth(deu.apiKey) }), 403, 'forbidden');
    // the AUT key of the same tenant can
    expect((await get(`/v1/merchants/${autMerchantId}`, auth(autKey))).statusCode).toBe(200);
    expectError(await get(`/v1/merchants/${setupA.merchantId}`, auth(autKey)), 403, 'forbidden');
  });

  it('cannot act for it through X-Service-Merchant', async () => {
    expectError(await get('/v1/locations', auth(deu.apiKey, autMerchantId)), 403, 'forbidden');
    expectError(await get('/v1/registers', auth(deu.apiKey, autMerchantId)), 403, 'forbidden');
    expectError(
      await t.app.inject({
        method: 'POST',
        url: '/v1/locations',
        headers: auth(deu.apiKey, autMerchantId),
        payload: { name: 'Filiale', address: AUT_ADDRESS },
      }),
      403,
      'forbidden',
    );
    expectError(await get('/v1/locations', auth(autKey, setupA.merchantId)), 403, 'forbidden');
  });

  it('lists only the merchants of its country', async () => {
    const ids = json(await get('/v1/merchants', auth(deu.apiKey))).data.map((m: { id: string }) => m.id);
    expect(ids).toContain(setupA.merchantId);
    expect(ids).not.toContain(autMerchantId);
    const autIds = json(await get('/v1/merchants', auth(autKey))).data.map((m: { id: string }) => m.id);
    expect(autIds).toEqual([autMerchantId]);
  });
});

describe('404 not_found: another tenant’s resources are invisible', () => {
  it('merchant by id (read, update, delete)', async () => {
    expectError(await get(`/v1/merchants/${setupA.merchantId}`, auth(stranger.apiKey)), 404, 'not_found');
    expectError(
      await t.app.inject({
        method: 'PATCH',
        url: `/v1/merchants/${setupA.merchantId}`,
        headers: auth(stranger.apiKey),
        payload: { legal_name: 'Stolen' },
      }),
      404,
      'not_found',
    );
    expectError(await t.app.inject({ method: 'DELETE', url: `/v1/merchants/${setupA.merchantId}`, headers: auth(stranger.apiKey) }), 404, 'not_found');
    const list = json(await get('/v1/merchants', auth(stranger.apiKey)));
    expect(list.data.map((m: { id: string }) => m.id)).not.toContain(setupA.merchantId);
    // an id that does not exist at all answers the same
    expectError(await get('/v1/merchants/mer_doesnotexist', auth(stranger.apiKey)), 404, 'not_found');
  });

  it('merchant through X-Service-Merchant', async () => {
    expectError(await get('/v1/locations', auth(stranger.apiKey, setupA.merchantId)), 404, 'not_found');
    expectError(await get(`/v1/registers/${setupA.registerId}`, auth(stranger.apiKey, setupA.merchantId)), 404, 'not_found');
    expectError(await get('/v1/locations', auth(stranger.apiKey, 'mer_doesnotexist')), 404, 'not_found');
  });

  it('location and register ids under the caller’s own merchant', async () => {
    const own = await createDeuSetup(t.app, stranger.apiKey);
    const h = auth(stranger.apiKey, own.merchantId);
    expectError(await get(`/v1/locations/${setupA.locationId}`, h), 404, 'not_found');
    expectError(await get(`/v1/registers/${setupA.registerId}`, h), 404, 'not_found');
    expectError(
      await t.app.inject({ method: 'PATCH', url: `/v1/locations/${setupA.locationId}`, headers: h, payload: { name: 'X' } }),
      404,
      'not_found',
    );
    expectError(
      await t.app.inject({ method: 'PATCH', url: `/v1/registers/${setupA.registerId}`, headers: h, payload: { name: 'X' } }),
      404,
      'not_found',
    );
    expectError(await t.app.inject({ method: 'DELETE', url: `/v1/registers/${setupA.registerId}`, headers: h }), 404, 'not_found');
    expectError(await t.app.inject({ method: 'DELETE', url: `/v1/locations/${setupA.locationId}`, headers: h }), 404, 'not_found');
    expectError(
      await t.app.inject({ method: 'POST', url: '/v1/registers', headers: h, payload: { location_id: setupA.locationId, name: 'Kasse X' } }),
      404,
      'not_found',
    );
    const locations = json(await get('/v1/locations', h)).data.map((l: { id: string }) => l.id);
    expect(locations).toEqual([own.locationId]);
    // tenant A's records are untouched
    const location = json(await get(`/v1/locations/${setupA.locationId}`, auth(deu.apiKey, setupA.merchantId)));
    expect(location.name).toBe('Filiale Mitte');
  });
});

describe('400 invalid_request: merchant-scoped calls need X-Service-Merchant', () => {
  // PATCH /v1/locations/{id} also exists in Style O (contract 4.3): without the header it is that call.
  it.each([
    ['GET', '/v1/locations'],
    ['POST', '/v1/locations'],
    ['GET', '/v1/locations/loc_x'],
    ['DELETE', '/v1/locations/loc_x'],
    ['GET', '/v1/registers'],
    ['POST', '/v1/registers'],
    ['GET', '/v1/registers/reg_x'],
    ['PATCH', '/v1/registers/reg_x'],
    ['DELETE', '/v1/registers/reg_x'],
  ])('%s %s', async (method, url) => {
    const response = await t.app.inject({
      method: method as 'GET',
      url,
      headers: auth(deu.apiKey),
      ...(method === 'POST' || method === 'PATCH' ? { payload: { name: 'x', address: DEU_ADDRESS } } : {}),
    });
    const body = expectError(response, 400, 'invalid_request');
    expect(JSON.stringify(body.details)).toMatch(/X-Service-Merchant/i);
  });

  it('the key is checked first: an unknown key is 401 with or without the header', async () => {
    const unknown = auth(`${deu.apiKey.slice(0, -4)}zzzz`);
    expectError(await get('/v1/locations', unknown), 401, 'unauthorized');
    expectError(await get('/v1/locations', { ...unknown, 'x-service-merchant': setupA.merchantId }), 401, 'unauthorized');
  });

  it('a blank header counts as missing', async () => {
    expectError(await get('/v1/locations', { ...auth(deu.apiKey), 'x-service-merchant': '   ' }), 400, 'invalid_request');
  });

  it('the merchant itself needs no header', async () => {
    expect((await get(`/v1/merchants/${setupA.merchantId}`, auth(deu.apiKey))).statusCode).toBe(200);
    expect((await get('/v1/merchants', auth(deu.apiKey))).statusCode).toBe(200);
  });
});

describe('organization keys', () => {
  let orgKey: string;
  let sibling: string;

  beforeAll(async () => {
    orgKey = (
      await createApiKey(t.database.prisma, deu.tenantId, 'test', { kind: 'organization', organization_id: setupA.merchantId })
    ).apiKey;
    expect(orgKey).toMatch(/^svc_test_deu_/);
    sibling = json(await t.app.inject({ method: 'POST', url: '/v1/merchants', headers: auth(deu.apiKey), payload: deuMerchantBody() })).id;
  });

  it('work for their own merchant', async () => {
    expect((await get(`/v1/merchants/${setupA.merchantId}`, auth(orgKey))).statusCode).toBe(200);
    expect((await get('/v1/locations', auth(orgKey, setupA.merchantId))).statusCode).toBe(200);
    expect((await get(`/v1/registers/${setupA.registerId}`, auth(orgKey, setupA.merchantId))).statusCode).toBe(200);
    const patched = await t.app.inject({
      method: 'PATCH',
      url: `/v1/merchants/${setupA.merchantId}`,
      headers: auth(orgKey),
      payload: { legal_name: 'Bäckerei Müller GmbH' },
    });
    expect(patched.statusCode).toBe(200);
    expect(json(await get('/v1/merchants', auth(orgKey))).data.map((m: { id: string }) => m.id)).toEqual([setupA.merchantId]);
  });

  it('are 403 for another merchant of the same tenant and country', async () => {
    expectError(await get(`/v1/merchants/${sibling}`, auth(orgKey)), 403, 'forbidden');
    expectError(await get('/v1/locations', auth(orgKey, sibling)), 403, 'forbidden');
    expectError(
      await t.app.inject({ method: 'PATCH', url: `/v1/merchants/${sibling}`, headers: auth(orgKey), payload: { legal_name: 'X' } }),
      403,
      'forbidden',
    );
    expectError(await get(`/v1/merchants/${autMerchantId}`, auth(orgKey)), 403, 'forbidden');
  });

  it('cannot create merchants', async () => {
    expectError(await t.app.inject({ method: 'POST', url: '/v1/merchants', headers: auth(orgKey), payload: deuMerchantBody() }), 403, 'forbidden');
  });

  it('of another tenant see nothing of this one (404)', async () => {
    const own = json(await t.app.inject({ method: 'POST', url: '/v1/merchants', headers: auth(stranger.apiKey), payload: deuMerchantBody() }));
    const strangerOrg = (await createApiKey(t.database.prisma, stranger.tenantId, 'test', { kind: 'organization', organization_id: own.id }))
      .apiKey;
    expectError(await get(`/v1/merchants/${setupA.merchantId}`, auth(strangerOrg)), 404, 'not_found');
  });
});

describe('platform keys', () => {
  it('are refused on Style M merchant-scoped calls (they act through Service-Organization)', async () => {
    const platform = (await createApiKey(t.database.prisma, deu.tenantId, 'test', { kind: 'platform' })).apiKey;
    expect(platform).toMatch(/^svc_platform_test_[0-9A-Za-z]{22,}$/);
    expectError(await get('/v1/locations', auth(platform, setupA.merchantId)), 403, 'forbidden');
  });
});
