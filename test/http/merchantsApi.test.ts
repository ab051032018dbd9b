// Merchants (contract 2.1, 4.1): create, list, read, update (merge of fiscal identities), delete;
// resource_version / ETag / If-Match (5.8); country codes exactly three uppercase letters.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseIfMatch } from '../../src/http/concurrency.js';
import { ApiError } from '../../src/http/errors.js';
import { auth, createTenantWithKey, createTestApp, DEU_ADDRESS, deuMerchantBody, expectError, json, type Tenant, type TestApp } from '../support/testApp.js';

let t: TestApp;
let deu: Tenant;

beforeAll(async () => {
  t = await createTestApp();
  deu = await createTenantWithKey(t.database, 'DEU');
});
afterAll(() => t.close());

const create = (payload: object = deuMerchantBody()) => t.app.inject({ method: 'POST', url: '/v1/merchants', headers: auth(deu.apiKey), payload });
const read = (id: string) => t.app.inject({ method: 'GET', url: `/v1/merchants/${id}`, headers: auth(deu.apiKey) });
const patch = (id: string, payload: object, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'PATCH', url: `/v1/merchants/${id}`, headers: { ...auth(deu.apiKey), ...headers }, payload });

const MERCHANT_FIELDS = ['address', 'country_code', 'created_at', 'fiscal_identities', 'id', 'legal_name', 'resource_version', 'status', 'updated_at'];

describe('create, read, list', () => {
  it('POST answers 201 with the merchant, resource_version 1 and ETag "1"', async () => {
    const response = await create(deuMerchantBody({ address: { ...DEU_ADDRESS, line2: 'Hinterhaus' } }));
    expect(response.statusCode).toBe(201);
    expect(response.headers.etag).toBe('"1"');
    const merchant = json(response);
    expect(Object.keys(merchant).sort()).toEqual(MERCHANT_FIELDS);
    expect(merchant).toMatchObject({
      id: expect.stringMatching(/^mer_/),
      legal_name: 'Bäckerei Müller GmbH',
      country_code: 'DEU',
      status: 'active',
      resource_version: 1,
      address: { ...DEU_ADDRESS, line2: 'Hinterhaus' },
      fiscal_identities: [{ country_code: 'DEU', tax_number: '21/815/08150', vat_id: 'DE123456789' }],
    });
    expect(merchant.created_at).toBe(new Date(merchant.created_at).toISOString());
    expect(merchant).not.toHaveProperty('tax_id');
  });

  it('accepts status inactive on create', async () => {
    expect(json(await create(deuMerchantBody({ status: 'inactive' }))).status).toBe('inactive');
    expectError(await create(deuMerchantBody({ status: 'closed' })), 400, 'invalid_request');
  });

  it('GET one carries the ETag; GET list wraps the merchants in data', async () => {
    const merchant = json(await create());
    const one = await read(merchant.id);
    expect(one.statusCode).toBe(200);
    expect(one.headers.etag).toBe('"1"');
    expect(json(one)).toEqual(merchant);

    const list = await t.app.inject({ method: 'GET', url: '/v1/merchants', headers: auth(deu.apiKey) });
    expect(list.statusCode).toBe(200);
    const body = json(list);
    expect(Object.keys(body)).toEqual(['data']);
    expect(body.data.find((m: { id: string }) => m.id === merchant.id)).toEqual(merchant);
  });

  it('rejects fields of the old contract: top-level tax_id on create and on update', async () => {
    expectError(await create(deuMerchantBody({ tax_id: 'DE123456789' })), 400, 'invalid_request');
    const merchant = json(await create());
    const body = expectError(await patch(merchant.id, { tax_id: 'DE123456789' }), 400, 'invalid_request');
    expect(body.details?.field).toBe('tax_id');
  });
});

describe('country codes are exactly three uppercase letters', () => {
  for (const bad of ['DE', 'deu', 'DEUT', 'De', 'D1U', '', 276]) {
    it(`rejects ${JSON.stringify(bad)}`, async () => {
      const top = expectError(await create(deuMerchantBody({ country_code: bad })), 400, 'invalid_request');
      expect(top.details?.field).toBe('country_code');
      const address = expectError(await create(deuMerchantBody({ address: { ...DEU_ADDRESS, country_code: bad } })), 400, 'invalid_request');
      expect(address.details?.field).toBe('address.country_code');
      const identity = expectError(
        await create(deuMerchantBody({ fiscal_identities: [{ country_code: bad, tax_number: '1', vat_id: 'DE1' }] })),
        400,
        'invalid_request',
      );
      expect(identity.details?.field).toBe('fiscal_identities[0].country_code');
    });
  }

  it('on update too', async () => {
    const merchant = json(await create());
    const body = expectError(await patch(merchant.id, { address: { ...DEU_ADDRESS, country_code: 'DE' } }), 400, 'invalid_request');
    expect(body.details?.field).toBe('address.country_code');
  });
});

describe('update', () => {
  it('changes only what is sent, bumps resource_version and the ETag', async () => {
    const merchant = json(await create());
    const response = await patch(merchant.id, { legal_name: 'Bäckerei Müller & Söhne GmbH' }, { 'if-match': '"1"' });
    expect(response.statusCode).toBe(200);
    expect(response.headers.etag).toBe('"2"');
    const updated = json(response);
    expect(updated).toMatchObject({ ...merchant, legal_name: 'Bäckerei Müller & Söhne GmbH', resource_version: 2, updated_at: expect.any(String) });
    expect(new Date(updated.updated_at).getTime()).toBeGreaterThanOrEqual(new Date(merchant.updated_at).getTime());
    expect(updated.created_at).toBe(merchant.created_at);

    const status = json(await patch(merchant.id, { status: 'inactive' }));
    expect(status).toMatchObject({ status: 'inactive', resource_version: 3, legal_name: 'Bäckerei Müller & Söhne GmbH' });
    const address = json(await patch(merchant.id, { address: { line1: 'Unter den Linden 5', city: 'Berlin', postal_code: '10117', country_code: 'DEU' } }));
    expect(address.address).toEqual({ line1: 'Unter den Linden 5', line2: null, city: 'Berlin', postal_code: '10117', country_code: 'DEU' });
    expect(address.resource_version).toBe(4);
    const read4 = await read(merchant.id);
    expect(read4.headers.etag).toBe('"4"');
    expect(json(read4)).toEqual(address);
  });

  it('merges fiscal_identities by country_code', async () => {
    const merchant = json(await create());
    const aut = { country_code: 'AUT', legal_entity_id_type: 'VAT_ID', vat_id: 'ATU12345678' };
    const added = json(await patch(merchant.id, { fiscal_identities: [aut] }));
    expect(added.fiscal_identities).toEqual([merchant.fiscal_identities[0], aut]);

    const newDeu = { country_code: 'DEU', tax_number: '30/123/45678', vat_id: 'DE987654321' };
    const replaced = json(await patch(merchant.id, { fiscal_identities: [newDeu] }));
    expect(replaced.fiscal_identities).toHaveLength(2);
    expect(replaced.fiscal_identities).toEqual(expect.arrayContaining([newDeu, aut]));

    const untouched = json(await patch(merchant.id, { legal_name: 'Same identities' }));
    expect(untouched.fiscal_identities).toEqual(replaced.fiscal_identities);
    const emptyList = json(await patch(merchant.id, { fiscal_identities: [] }));
    expect(emptyList.fiscal_identities).toEqual(replaced.fiscal_identities);
  });

  it('validates like create: shape 400, regime rules 422 naming the field', async () => {
    const merchant = json(await create());
    const shape = expectError(await patch(merchant.id, { fiscal_identities: [{ country_code: 'DEU', tax_number: '1' }] }), 400, 'invalid_request');
    expect(shape.details?.field).toBe('fiscal_identities[0].vat_id');
    const regime = expectError(
      await patch(merchant.id, { fiscal_identities: [{ country_code: 'AUT', legal_entity_id_type: 'GLN' }] }),
      422,
      'regime_validation_failed',
    );
    expect(regime.details?.field).toBe('fiscal_identities[0].gln');
    expectError(await patch(merchant.id, { legal_name: '' }), 400, 'invalid_request');
    expectError(await patch(merchant.id, { status: 'deleted' }), 400, 'invalid_request');
    // nothing changed
    expect(json(await read(merchant.id)).resource_version).toBe(1);
  });

  it('of an unknown merchant is 404', async () => {
    expectError(await patch('mer_doesnotexist', { legal_name: 'x' }), 404, 'not_found');
  });
});

describe('If-Match (optimistic concurrency)', () => {
  it('a malformed If-Match is 400 invalid_request naming the header', async () => {
    const merchant = json(await create());
    for (const value of ['1', "'1'", 'W/"1"', '"0"', '"-1"', '"1.0"', '"abc"', '"1', '1"', '*', '"1", "2"', '""']) {
      const body = expectError(await patch(merchant.id, { legal_name: 'x' }, { 'if-match': value }), 400, 'invalid_request');
      expect(body.details?.header).toBe('If-Match');
    }
    expect(json(await read(merchant.id)).resource_version).toBe(1);
  });

  it('a stale If-Match is 412 precondition_failed with both versions as integers, retryable', async () => {
    const merchant = json(await create());
    expect((await patch(merchant.id, { legal_name: 'v2' }, { 'if-match': '"1"' })).statusCode).toBe(200);
    const stale = await patch(merchant.id, { legal_name: 'v3' }, { 'if-match': '"1"' });
    const body = expectError(stale, 412, 'precondition_failed');
    expect(body.retryable).toBe(true);
    expect(body.details).toMatchObject({ expected_resource_version: 1, current_resource_version: 2 });
    expect(Number.isInteger(body.details?.expected_resource_version)).toBe(true);
    expect(Number.isInteger(body.details?.current_resource_version)).toBe(true);
    expect(body.message).toMatch(/version/i);
    // a version from the future is stale too
    expectError(await patch(merchant.id, { legal_name: 'v3' }, { 'if-match': '"7"' }), 412, 'precondition_failed');
    expect(json(await read(merchant.id))).toMatchObject({ legal_name: 'v2', resource_version: 2 });
    // the current one works
    const ok = await patch(merchant.id, { legal_name: 'v3' }, { 'if-match': '"2"' });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers.etag).toBe('"3"');
  });

  it('two writers with the same If-Match: exactly one wins, the other gets 412', async () => {
    const merchant = json(await create());
    const [a, b] = await Promise.all([
      patch(merchant.id, { legal_name: 'Writer A' }, { 'if-match': '"1"' }),
      patch(merchant.id, { legal_name: 'Writer B' }, { 'if-match': '"1"' }),
    ]);
    expect([a.statusCode, b.statusCode].sort()).toEqual([200, 412]);
    expect(json(await read(merchant.id)).resource_version).toBe(2);
  });

  it('a missing If-Match where it is required is 428 precondition_required (complete/void)', () => {
    for (const missing of [undefined, '']) {
      let thrown: unknown;
      try {
        parseIfMatch(missing, true);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(ApiError);
      const error = thrown as ApiError;
      expect(error.statusCode).toBe(428);
      expect(error.toBody()).toMatchObject({ code: 'precondition_required', retryable: false });
    }
    expect(parseIfMatch('"12"', true)).toBe(12);
    expect(parseIfMatch(undefined, false)).toBeUndefined();
    expect(() => parseIfMatch('12', true)).toThrow(expect.objectContaining({ statusCode: 400, code: 'invalid_request' }));
  });
});

describe('delete', () => {
  it('409 resource_conflict while locations exist, then 200 and gone', async () => {
    const merchant = json(await create());
    const location = json(
      await t.app.inject({ method: 'POST', url: '/v1/locations', headers: auth(deu.apiKey, merchant.id), payload: { name: 'Filiale', address: DEU_ADDRESS } }),
    );
    expectError(await t.app.inject({ method: 'DELETE', url: `/v1/merchants/${merchant.id}`, headers: auth(deu.apiKey) }), 409, 'resource_conflict');
    expect((await read(merchant.id)).statusCode).toBe(200);

    expect((await t.app.inject({ method: 'DELETE', url: `/v1/locations/${location.id}`, headers: auth(deu.apiKey, merchant.id) })).statusCode).toBe(200);
    const deleted = await t.app.inject({ method: 'DELETE', url: `/v1/merchants/${merchant.id}`, headers: auth(deu.apiKey) });
    expect(deleted.statusCode).toBe(200);
    expect(json(deleted)).toEqual({ id: merchant.id, deleted: true });
    expectError(await read(merchant.id), 404, 'not_found');
    expectError(await t.app.inject({ method: 'DELETE', url: `/v1/merchants/${merchant.id}`, headers: auth(deu.apiKey) }), 404, 'not_found');
    const list = json(await t.app.inject({ method: 'GET', url: '/v1/merchants', headers: auth(deu.apiKey) }));
    expect(list.data.map((m: { id: string }) => m.id)).not.toContain(merchant.id);
  });
});
