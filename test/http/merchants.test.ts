import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, createTenantWithKey, createTestApp, deuMerchantBody, json, type TestApp } from '../support/testApp.js';

let t: TestApp;
let deu: { tenantId: string; apiKey: string };

beforeAll(async () => {
  t = await createTestApp();
  deu = await createTenantWithKey(t.database, 'DEU');
});
afterAll(() => t.close());

describe('merchants', () => {
  it('creates, reads, lists a merchant with ETag and request id', async () => {
    const created = await t.app.inject({ method: 'POST', url: '/v1/merchants', headers: auth(deu.apiKey), payload: deuMerchantBody() });
    expect(created.statusCode).toBe(201);
    const merchant = json(created);
    expect(merchant).toMatchObject({ legal_name: 'Bäckerei Müller GmbH', country_code: 'DEU', status: 'active', resource_version: 1 });
    expect(merchant.address.line2).toBeNull();
    expect(created.headers.etag).toBe('"1"');
    expect(created.headers['x-request-id']).toBeTruthy();

    const read = await t.app.inject({ method: 'GET', url: `/v1/merchants/${merchant.id}`, headers: auth(deu.apiKey) });
    expect(read.statusCode).toBe(200);
    expect(json(read)).toEqual(merchant);
    const list = json(await t.app.inject({ method: 'GET', url: '/v1/merchants', headers: auth(deu.apiKey) }));
    expect(list.data.map((m: { id: string }) => m.id)).toContain(merchant.id);
  });

  it('rejects a top-level tax_id and `country` in place of country_code with 400 naming the field', async () => {
    const taxId = await t.app.inject({
      method: 'POST',
      url: '/v1/merchants',
      headers: auth(deu.apiKey),
      payload: deuMerchantBody({ tax_id: 'DE1' }),
    });
    expect(taxId.statusCode).toBe(400);
    expect(json(taxId)).toMatchObject({ code: 'invalid_request', retryable: false, details: { field: 'tax_id' } });

    const country = await t.app.inject({
      method: 'POST',
      url: '/v1/merchants',
      headers: auth(deu.apiKey),
      payload: deuMerchantBody({ fiscal_identities: [{ country: 'DEU', tax_number: '1', vat_id: 'DE1' }] }),
    });
    expect(country.statusCode).toBe(400);
    expect(json(country).details.field).toMatch(/^fiscal_identities\[0\]/);
  });

  it('validates regime formats with 422 regime_validation_failed', async () => {
    const gln = await t.app.inject({
      method: 'POST',
      url: '/v1/merchants',
      headers: auth(deu.apiKey),
      payload: deuMerchantBody({ fiscal_identities: [{ country_code: 'AUT', legal_entity_id_type: 'GLN', gln: '123' }] }),
    });
    expect(gln.statusCode).toBe(422);
    expect(json(gln)).toMatchObject({ code: 'regime_validation_failed', details: { field: 'fiscal_identities[0].gln' } });
  });

  it('answers 403 for a merchant of another country and 404 for another tenant', async () => {
    const other = await t.app.inject({
      method: 'POST',
      url: '/v1/merchants',
      headers: auth(deu.apiKey),
      payload: deuMerchantBody({ country_code: 'AUT' }),
    });
    expect(other.statusCode).toBe(403);
    expect(json(other).code).toBe('forbidden');

    const merchant = json(await t.app.inject({ method: 'POST', url: '/v1/merchants', headers: auth(deu.apiKey), payload: deuMerchantBody() }));
    const stranger = await createTenantWithKey(t.database, 'DEU');
    const hidden = await t.app.inject({ method: 'GET', url: `/v1/merchants/${merchant.id}`, headers: auth(stranger.apiKey) });
    expect(hidden.statusCode).toBe(404);
  });

  it('replays an idempotent create and refuses a different payload', async () => {
    const headers = { ...auth(deu.apiKey), 'idempotency-key': 'merchant-create-1' };
    const first = await t.app.inject({ method: 'POST', url: '/v1/merchants', headers, payload: deuMerchantBody() });
    const second = await t.app.inject({ method: 'POST', url: '/v1/merchants', headers, payload: deuMerchantBody() });
    expect(second.statusCode).toBe(201);
    expect(json(second)).toEqual(json(first));
    expect(second.headers['idempotent-replayed']).toBe('true');
    const different = await t.app.inject({
      method: 'POST',
      url: '/v1/merchants',
      headers,
      payload: deuMerchantBody({ legal_name: 'Other' }),
    });
    expect(different.statusCode).toBe(409);
    expect(json(different).code).toBe('idempotency_key_conflict');
  });

  it('serves the OpenAPI document', async () => {
    const doc = await t.app.inject({ method: 'GET', url: '/openapi-json' });
    expect(doc.statusCode).toBe(200);
    expect(json(doc).info.version).toBe('1.1.0');
    const redirect = await t.app.inject({ method: 'GET', url: '/docs-json' });
    expect(redirect.statusCode).toBe(301);
  });
});
