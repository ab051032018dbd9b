// Style O organization resolution (contract 5.4, DESIGN "Keys") and Style O locations (contract 2.7, 4.3).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, createDeuSetup, createTenantWithKey, createTestApp, DEU_ADDRESS, expectError, json, type TestApp } from '../support/testApp.js';
import { organizationKey, orgAuth, platformKey, tenantKey, uuid } from '../support/styleO.js';

let t: TestApp;
let tenantId: string;
let deuKey: string;
let orgA: string;
let orgB: string;
let orgAKey: string;
let platform: string;
let autOrg: string;
let stranger: { apiKey: string; orgId: string; platform: string };

const ADDRESS = { line1: 'Friedrichstraße 1', city: 'Berlin', postal_code: '10117', country: 'DE' };
const locationBody = (overrides: Record<string, unknown> = {}) => ({ name: 'Filiale Nord', address: ADDRESS, ...overrides });

function postLocation(headers: Record<string, string>, organizationId: string, payload: object = locationBody()) {
  return t.app.inject({ method: 'POST', url: `/v1/organizations/${organizationId}/locations`, headers, payload });
}

function patchLocation(headers: Record<string, string>, id: string, payload: object) {
  return t.app.inject({ method: 'PATCH', url: `/v1/locations/${id}`, headers, payload });
}

beforeAll(async () => {
  t = await createTestApp();
  const tenant = await createTenantWithKey(t.database, 'DEU');
  tenantId = tenant.tenantId;
  deuKey = tenant.apiKey;
  orgA = (await createDeuSetup(t.app, deuKey)).merchantId;
  orgB = (await createDeuSetup(t.app, deuKey)).merchantId;
  orgAKey = await organizationKey(t.database, tenantId, orgA);
  platform = await platformKey(t.database, tenantId);
  // An Austrian organization of the same tenant, created with the tenant's AUT key.
  const autKey = await tenantKey(t.database, tenantId, 'AUT');
  const aut = await t.app.inject({
    method: 'POST',
    url: '/v1/merchants',
    headers: auth(autKey),
    payload: {
      legal_name: 'Wiener Kaffee GmbH',
      country_code: 'AUT',
      address: { line1: 'Graben 1', city: 'Wien', postal_code: '1010', country_code: 'AUT' },
      fiscal_identities: [{ country_code: 'AUT', legal_entity_id_type: 'VAT_ID', vat_id: 'ATU12345678' }],
    },
  });
  expect(aut.statusCode).toBe(201);
  autOrg = json(aut).id;
  const other = await createTenantWithKey(t.database, 'DEU');
  stranger = {
    apiKey: other.apiKey,
    orgId: (await createDeuSetup(t.app, other.apiKey)).merchantId,
    platform: await platformKey(t.database, other.tenantId),
  };
});
afterAll(() => t.close());

describe('organization resolution', () => {
  it('platform key: Service-Organization is required (400 naming the header)', async () => {
    const body = expectError(await postLocation(orgAuth(platform), orgA), 400, 'invalid_request');
    expect(body.details).toMatchObject({ header: 'Service-Organization' });
    expect(body.message).toContain('Service-Organization');
    // also where the path names no organization
    const refund = await t.app.inject({ method: 'POST', url: '/v1/registers/reg_x/refunds', headers: orgAuth(platform), payload: {} });
    expect(expectError(refund, 400, 'invalid_request').details).toMatchObject({ header: 'Service-Organization' });
  });

  it('platform key: reaches its tenant’s organizations, not another tenant’s (404)', async () => {
    expect((await postLocation(orgAuth(platform, orgA), orgA)).statusCode).toBe(201);
    expectError(await postLocation(orgAuth(platform, stranger.orgId), stranger.orgId), 404, 'not_found');
    expectError(await postLocation(orgAuth(stranger.platform, orgA), orgA), 404, 'not_found');
    expectError(await postLocation(orgAuth(platform, 'mer_doesnotexist'), 'mer_doesnotexist'), 404, 'not_found');
  });

  it('platform key: an organization in the path other than the one named in the header is 404', async () => {
    expectError(await postLocation(orgAuth(platform, orgA), orgB), 404, 'not_found');
  });

  it('organization key: works without the header; naming another organization is 403', async () => {
    const created = await postLocation(orgAuth(orgAKey), orgA);
    expect(created.statusCode).toBe(201);
    expect(json(created).organization_id).toBe(orgA);
    expect((await postLocation(orgAuth(orgAKey, orgA), orgA)).statusCode).toBe(201);
    const other = expectError(await postLocation(orgAuth(orgAKey, orgB), orgB), 403, 'forbidden');
    expect(other.details).toMatchObject({ header: 'Service-Organization' });
  });

  it('organization key: another organization in the path is 404', async () => {
    expectError(await postLocation(orgAuth(orgAKey), orgB), 404, 'not_found');
    expectError(await postLocation(orgAuth(orgAKey), stranger.orgId), 404, 'not_found');
  });

  it('tenant key: acts with the header, or for the organization in the path; other country 403 by header, 404 by path', async () => {
    expect((await postLocation(orgAuth(deuKey, orgB), orgB)).statusCode).toBe(201);
    expect((await postLocation(orgAuth(deuKey), orgB)).statusCode).toBe(201);
    expectError(await postLocation(orgAuth(deuKey, autOrg), autOrg), 403, 'forbidden');
    expectError(await postLocation(orgAuth(deuKey), autOrg), 404, 'not_found');
    expectError(await postLocation(orgAuth(deuKey), stranger.orgId), 404, 'not_found');
    expectError(await postLocation(orgAuth(deuKey, stranger.orgId), stranger.orgId), 404, 'not_found');
    const noOrg = await t.app.inject({ method: 'POST', url: '/v1/registers/reg_x/refunds', headers: orgAuth(deuKey), payload: {} });
    expect(expectError(noOrg, 400, 'invalid_request').details).toMatchObject({ header: 'Service-Organization' });
  });

  it('still needs a valid key (401 before anything else)', async () => {
    expectError(await postLocation({ 'service-organization': orgA }, orgA), 401, 'unauthorized');
    expectError(await postLocation(orgAuth('svc_test_deu_notarealkey000000000000000', orgA), orgA), 401, 'unauthorized');
  });
});

describe('POST /v1/organizations/{organizationId}/locations', () => {
  it('creates the location of contract 2.7, visible in Style M with the alpha-3 country', async () => {
    const response = await postLocation(orgAuth(orgAKey), orgA, {
      name: 'Filiale Süd',
      address: { line1: 'Marienplatz 1', line2: '2. OG', city: 'München', state: 'BY', postal_code: '80331', country: 'DE' },
      timezone: 'Europe/Berlin',
      metadata: { store_code: 'M-01', floors: 2, flagship: true },
    });
    expect(response.statusCode).toBe(201);
    const location = json(response);
    expect(location).toEqual({
      object: 'location',
      id: expect.stringMatching(/^loc_/),
      organization_id: orgA,
      name: 'Filiale Süd',
      address: { line1: 'Marienplatz 1', line2: '2. OG', city: 'München', state: 'BY', postal_code: '80331', country: 'DE' },
      timezone: 'Europe/Berlin',
      metadata: { store_code: 'M-01', floors: 2, flagship: true },
      created_at: expect.any(String),
    });
    const styleM = await t.app.inject({ method: 'GET', url: `/v1/locations/${location.id}`, headers: auth(deuKey, orgA) });
    expect(styleM.statusCode).toBe(200);
    expect(json(styleM)).toMatchObject({
      id: location.id,
      merchant_id: orgA,
      name: 'Filiale Süd',
      address: { line1: 'Marienplatz 1', line2: '2. OG', city: 'München', postal_code: '80331', country_code: 'DEU' },
      timezone: 'Europe/Berlin',
    });
    expect(json(styleM).address).not.toHaveProperty('state');
  });

  it('defaults the time zone from the country and converts other countries', async () => {
    const berlin = json(await postLocation(orgAuth(orgAKey), orgA));
    expect(berlin.timezone).toBe('Europe/Berlin');
    expect(berlin.address).toEqual({ ...ADDRESS, line2: null, state: null });
    expect(berlin.metadata).toEqual({});
    const vienna = json(await postLocation(orgAuth(orgAKey), orgA, locationBody({ address: { ...ADDRESS, city: 'Wien', country: 'AT' } })));
    expect(vienna.timezone).toBe('Europe/Vienna');
    const paris = json(await postLocation(orgAuth(orgAKey), orgA, locationBody({ address: { ...ADDRESS, country: 'FR' }, timezone: 'Europe/Paris' })));
    const styleM = json(await t.app.inject({ method: 'GET', url: `/v1/locations/${paris.id}`, headers: auth(deuKey, orgA) }));
    expect(styleM.address.country_code).toBe('FRA');
  });

  it('rejects a timezone that is no IANA zone (400, naming the field)', async () => {
    const body = expectError(await postLocation(orgAuth(orgAKey), orgA, locationBody({ timezone: 'Mars/Olympus' })), 400, 'invalid_request');
    expect(body.details).toMatchObject({ field: 'timezone' });
  });

  it('rejects countries that are not supported alpha-2 codes (400, naming the field)', async () => {
    for (const country of ['DEU', 'de', 'D', 'XX']) {
      const body = expectError(await postLocation(orgAuth(orgAKey), orgA, locationBody({ address: { ...ADDRESS, country } })), 400, 'invalid_request');
      expect(body.details).toMatchObject({ field: 'address.country' });
    }
  });

  it('rejects unknown fields, missing fields and bad metadata (400)', async () => {
    expect(expectError(await postLocation(orgAuth(orgAKey), orgA, locationBody({ external_id: 'x' })), 400, 'invalid_request').details).toMatchObject({
      field: 'external_id',
    });
    expect(expectError(await postLocation(orgAuth(orgAKey), orgA, { address: ADDRESS }), 400, 'invalid_request').details).toMatchObject({ field: 'name' });
    const { city: _city, ...noCity } = ADDRESS;
    expect(expectError(await postLocation(orgAuth(orgAKey), orgA, locationBody({ address: noCity })), 400, 'invalid_request').details).toMatchObject({
      field: 'address.city',
    });
    expectError(await postLocation(orgAuth(orgAKey), orgA, locationBody({ metadata: { nested: { no: 1 } } })), 400, 'invalid_request');
    expectError(await postLocation(orgAuth(orgAKey), orgA, locationBody({ metadata: { ['k'.repeat(41)]: 'v' } })), 400, 'invalid_request');
  });

  it('takes an optional UUID Idempotency-Key: replays, conflicts, and 400 for a non-UUID', async () => {
    const key = uuid();
    const headers = { ...orgAuth(orgAKey), 'idempotency-key': key };
    const first = await postLocation(headers, orgA);
    const again = await postLocation(headers, orgA);
    expect(first.statusCode).toBe(201);
    expect(again.statusCode).toBe(201);
    expect(json(again).id).toBe(json(first).id);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expectError(await postLocation(headers, orgA, locationBody({ name: 'Anders' })), 409, 'idempotency_key_conflict');
    const bad = expectError(await postLocation({ ...orgAuth(orgAKey), 'idempotency-key': 'not-a-uuid' }, orgA), 400, 'invalid_request');
    expect(bad.details).toMatchObject({ header: 'Idempotency-Key' });
  });
});

describe('PATCH /v1/locations/{locationId} (Style O)', () => {
  let id: string;
  beforeAll(async () => {
    id = json(
      await postLocation(orgAuth(orgAKey), orgA, {
        name: 'Filiale Ost',
        address: { line1: 'Alexanderplatz 1', line2: 'EG', city: 'Berlin', state: 'BE', postal_code: '10178', country: 'DE' },
        metadata: { a: '1', b: '2' },
      }),
    ).id;
  });

  it('changes only the fields sent', async () => {
    const renamed = await patchLocation(orgAuth(orgAKey), id, { name: 'Filiale Ost (neu)' });
    expect(renamed.statusCode).toBe(200);
    expect(json(renamed)).toMatchObject({
      object: 'location',
      id,
      name: 'Filiale Ost (neu)',
      address: { line1: 'Alexanderplatz 1', line2: 'EG', city: 'Berlin', state: 'BE', postal_code: '10178', country: 'DE' },
      timezone: 'Europe/Berlin',
      metadata: { a: '1', b: '2' },
    });
    const moved = json(await patchLocation(orgAuth(orgAKey), id, { address: { postal_code: '10179', line2: null } }));
    expect(moved.name).toBe('Filiale Ost (neu)');
    expect(moved.address).toEqual({ line1: 'Alexanderplatz 1', line2: null, city: 'Berlin', state: 'BE', postal_code: '10179', country: 'DE' });
    const tz = json(await patchLocation(orgAuth(orgAKey), id, { timezone: 'Europe/Vienna', metadata: { b: null, c: 3 } }));
    expect(tz).toMatchObject({ timezone: 'Europe/Vienna', metadata: { a: '1', c: 3 }, name: 'Filiale Ost (neu)' });
    expect(tz.metadata).not.toHaveProperty('b');
    const unchanged = json(await patchLocation(orgAuth(orgAKey), id, {}));
    expect(unchanged).toEqual(tz);
  });

  it('is the same record in Style M: country alpha-3, resource_version moved on, Style O state kept through Style M edits', async () => {
    const before = json(await t.app.inject({ method: 'GET', url: `/v1/locations/${id}`, headers: auth(deuKey, orgA) }));
    await patchLocation(orgAuth(orgAKey), id, { address: { country: 'AT', city: 'Wien', state: null } });
    const after = json(await t.app.inject({ method: 'GET', url: `/v1/locations/${id}`, headers: auth(deuKey, orgA) }));
    expect(after.address).toMatchObject({ country_code: 'AUT', city: 'Wien' });
    expect(after.resource_version).toBe(before.resource_version + 1);

    await patchLocation(orgAuth(orgAKey), id, { address: { state: 'W' } });
    const styleM = await t.app.inject({
      method: 'PATCH',
      url: `/v1/locations/${id}`,
      headers: auth(deuKey, orgA),
      payload: { address: { line1: 'Graben 2', city: 'Wien', postal_code: '1010', country_code: 'AUT' } },
    });
    expect(styleM.statusCode).toBe(200);
    expect(json(styleM)).toHaveProperty('merchant_id', orgA); // the Style M route answered
    const styleO = json(await patchLocation(orgAuth(orgAKey), id, {}));
    expect(styleO.address).toEqual({ line1: 'Graben 2', line2: null, city: 'Wien', state: 'W', postal_code: '1010', country: 'AT' });
  });

  it('validates like create (400 naming the field)', async () => {
    expect(expectError(await patchLocation(orgAuth(orgAKey), id, { timezone: 'Berlin' }), 400, 'invalid_request').details).toMatchObject({
      field: 'timezone',
    });
    expect(expectError(await patchLocation(orgAuth(orgAKey), id, { address: { country: 'DEU' } }), 400, 'invalid_request').details).toMatchObject({
      field: 'address.country',
    });
    expect(expectError(await patchLocation(orgAuth(orgAKey), id, { external_id: 'x' }), 400, 'invalid_request').details).toMatchObject({
      field: 'external_id',
    });
    expectError(await patchLocation(orgAuth(orgAKey), id, { name: '' }), 400, 'invalid_request');
  });

  it('cannot reach another organization’s location (404), and needs the organization header as everywhere (platform 400)', async () => {
    expectError(await patchLocation(orgAuth(deuKey, orgB), id, { name: 'x' }), 404, 'not_found');
    expectError(await patchLocation(orgAuth(stranger.apiKey, stranger.orgId), id, { name: 'x' }), 404, 'not_found');
    expectError(await patchLocation(orgAuth(platform), id, { name: 'x' }), 400, 'invalid_request');
    expect((await patchLocation(orgAuth(platform, orgA), id, { name: 'Über Plattform' })).statusCode).toBe(200);
    expectError(await patchLocation(orgAuth(orgAKey), 'loc_missing', { name: 'x' }), 404, 'not_found');
  });

  it('routes by style: with X-Service-Merchant the Style M rules apply', async () => {
    // Style M body (a Style O-only field is unknown there)
    const response = await t.app.inject({
      method: 'PATCH',
      url: `/v1/locations/${id}`,
      headers: auth(deuKey, orgA),
      payload: { metadata: { a: 1 } },
    });
    expect(expectError(response, 400, 'invalid_request').details).toMatchObject({ field: 'metadata' });
    // and a Style M key of the right merchant without the header is Style O, where it needs Service-Organization
    expectError(await patchLocation(orgAuth(deuKey), id, { name: 'x' }), 400, 'invalid_request');
  });
});

describe('Style M sees Style O locations', () => {
  it('lists them with the alpha-3 country', async () => {
    const list = json(await t.app.inject({ method: 'GET', url: '/v1/locations', headers: auth(deuKey, orgA) }));
    expect(list.data.length).toBeGreaterThan(1);
    for (const location of list.data) {
      expect(location.address.country_code).toMatch(/^[A-Z]{3}$/);
      expect(location.address).not.toHaveProperty('state');
    }
    expect(DEU_ADDRESS.country_code).toBe('DEU');
  });
});
