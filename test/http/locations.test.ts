// Style M locations: create, list ({data}), get, update with ETag / If-Match, delete (409 while registers remain).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, createTenantWithKey, createTestApp, DEU_ADDRESS, deuMerchantBody, expectError, json, type TestApp } from '../support/testApp.js';

let t: TestApp;
let key: string;
let merchantId: string;
let h: Record<string, string>;

beforeAll(async () => {
  t = await createTestApp();
  key = (await createTenantWithKey(t.database)).apiKey;
  merchantId = json(await t.app.inject({ method: 'POST', url: '/v1/merchants', headers: auth(key), payload: deuMerchantBody() })).id;
  h = auth(key, merchantId);
});
afterAll(() => t.close());

const createLocation = (payload: object = { name: 'Filiale Mitte', address: DEU_ADDRESS }) =>
  t.app.inject({ method: 'POST', url: '/v1/locations', headers: h, payload });
const getLocation = (id: string) => t.app.inject({ method: 'GET', url: `/v1/locations/${id}`, headers: h });
const patchLocation = (id: string, payload: object, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'PATCH', url: `/v1/locations/${id}`, headers: { ...h, ...headers }, payload });

describe('locations', () => {
  it('create: 201, resource_version 1, ETag, the merchant’s id, a default time zone', async () => {
    const response = await createLocation();
    expect(response.statusCode).toBe(201);
    expect(response.headers.etag).toBe('"1"');
    const location = json(response);
    expect(location).toEqual({
      id: expect.stringMatching(/^loc_/),
      merchant_id: merchantId,
      name: 'Filiale Mitte',
      address: { ...DEU_ADDRESS, line2: null },
      timezone: 'Europe/Berlin',
      external_id: null,
      resource_version: 1,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
  });

  it('create with every field', async () => {
    const location = json(
      await createLocation({ name: 'Flughafen', address: { ...DEU_ADDRESS, line2: 'Terminal 1' }, timezone: 'Europe/Berlin', external_id: 'store-42' }),
    );
    expect(location).toMatchObject({ name: 'Flughafen', external_id: 'store-42', address: { line2: 'Terminal 1' } });
  });

  it('create validates: missing name, bad address, bad time zone, unknown fields', async () => {
    expect(expectError(await createLocation({ address: DEU_ADDRESS }), 400, 'invalid_request').details?.field).toBe('name');
    expect(expectError(await createLocation({ name: 'x', address: { ...DEU_ADDRESS, country_code: 'DE' } }), 400, 'invalid_request').details?.field).toBe(
      'address.country_code',
    );
    expect(expectError(await createLocation({ name: 'x', address: DEU_ADDRESS, timezone: 'Mars/Olympus' }), 400, 'invalid_request').details?.field).toBe(
      'timezone',
    );
    expect(expectError(await createLocation({ name: 'x', address: DEU_ADDRESS, metadata: {} }), 400, 'invalid_request').details?.field).toBe('metadata');
  });

  it('list wraps the merchant’s locations in data; get one has the ETag', async () => {
    const location = json(await createLocation({ name: 'Listed', address: DEU_ADDRESS }));
    const list = await t.app.inject({ method: 'GET', url: '/v1/locations', headers: h });
    expect(list.statusCode).toBe(200);
    const body = json(list);
    expect(Object.keys(body)).toEqual(['data']);
    expect(body.data.find((l: { id: string }) => l.id === location.id)).toEqual(location);
    expect(body.data.every((l: { merchant_id: string }) => l.merchant_id === merchantId)).toBe(true);

    const one = await getLocation(location.id);
    expect(one.statusCode).toBe(200);
    expect(one.headers.etag).toBe('"1"');
    expect(json(one)).toEqual(location);
    expectError(await getLocation('loc_doesnotexist'), 404, 'not_found');
  });

  it('update changes only the fields sent, with ETag and resource_version', async () => {
    const location = json(await createLocation({ name: 'Alt', address: DEU_ADDRESS, external_id: 'ext-1' }));
    const renamed = await patchLocation(location.id, { name: 'Neu' }, { 'if-match': '"1"' });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.headers.etag).toBe('"2"');
    expect(json(renamed)).toMatchObject({ name: 'Neu', external_id: 'ext-1', resource_version: 2, address: location.address });

    const moved = json(
      await patchLocation(location.id, { address: { line1: 'Marienplatz 1', city: 'München', postal_code: '80331', country_code: 'DEU' }, external_id: null }),
    );
    expect(moved).toMatchObject({ name: 'Neu', external_id: null, resource_version: 3, address: { city: 'München' } });
    expect((await getLocation(location.id)).headers.etag).toBe('"3"');
    expectError(await patchLocation(location.id, { name: '' }), 400, 'invalid_request');
    expectError(await patchLocation(location.id, { timezone: 'Berlin' }), 400, 'invalid_request');
    expectError(await patchLocation('loc_doesnotexist', { name: 'x' }), 404, 'not_found');
  });

  it('If-Match: malformed 400, stale 412 with both versions', async () => {
    const location = json(await createLocation());
    expect(expectError(await patchLocation(location.id, { name: 'x' }, { 'if-match': '1' }), 400, 'invalid_request').details?.header).toBe('If-Match');
    expectError(await patchLocation(location.id, { name: 'x' }, { 'if-match': 'W/"1"' }), 400, 'invalid_request');
    await patchLocation(location.id, { name: 'v2' });
    const stale = expectError(await patchLocation(location.id, { name: 'v3' }, { 'if-match': '"1"' }), 412, 'precondition_failed');
    expect(stale).toMatchObject({ retryable: true, details: { expected_resource_version: 1, current_resource_version: 2 } });
    expect(json(await getLocation(location.id)).name).toBe('v2');
  });

  it('delete: 409 location_has_registers while registers remain, then 200 and gone', async () => {
    const location = json(await createLocation({ name: 'Mit Kassen', address: DEU_ADDRESS }));
    const registers = [];
    for (const name of ['Kasse 1', 'Kasse 2']) {
      registers.push(json(await t.app.inject({ method: 'POST', url: '/v1/registers', headers: h, payload: { location_id: location.id, name } })));
    }
    const blocked = expectError(await t.app.inject({ method: 'DELETE', url: `/v1/locations/${location.id}`, headers: h }), 409, 'location_has_registers');
    expect(blocked.retryable).toBe(false);

    await t.app.inject({ method: 'DELETE', url: `/v1/registers/${registers[0].id}`, headers: h });
    expectError(await t.app.inject({ method: 'DELETE', url: `/v1/locations/${location.id}`, headers: h }), 409, 'location_has_registers');
    await t.app.inject({ method: 'DELETE', url: `/v1/registers/${registers[1].id}`, headers: h });

    const deleted = await t.app.inject({ method: 'DELETE', url: `/v1/locations/${location.id}`, headers: h });
    expect(deleted.statusCode).toBe(200);
    expect(json(deleted)).toEqual({ id: location.id, deleted: true });
    expectError(await getLocation(location.id), 404, 'not_found');
    expectError(await t.app.inject({ method: 'DELETE', url: `/v1/locations/${location.id}`, headers: h }), 404, 'not_found');
  });

  it('belong to their merchant: another merchant of the same tenant does not see them', async () => {
    const location = json(await createLocation());
    const other = json(await t.app.inject({ method: 'POST', url: '/v1/merchants', headers: auth(key), payload: deuMerchantBody() })).id;
    expectError(await t.app.inject({ method: 'GET', url: `/v1/locations/${location.id}`, headers: auth(key, other) }), 404, 'not_found');
    expect(json(await t.app.inject({ method: 'GET', url: '/v1/locations', headers: auth(key, other) })).data).toEqual([]);
  });
});
