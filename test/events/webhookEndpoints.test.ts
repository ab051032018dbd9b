// Webhook endpoints: registration with a secret shown once and sealed at rest, the event types of
// DESIGN.md only, list, get, delete; both styles reach a merchant's endpoints, no other scope does.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox } from '../../src/lib/secretBox.js';
import { MAX_ENDPOINTS_PER_MERCHANT } from '../../src/modules/webhookEndpoints/service.js';
import { EVENT_TYPES } from '../../src/outbox/eventTypes.js';
import { orgAuth, organizationKey, platformKey } from '../support/styleO.js';
import { auth, createTenantWithKey, createTestApp, deuMerchantBody, expectError, json, TEST_SECRETS_KEY, type Tenant, type TestApp } from '../support/testApp.js';

let t: TestApp;
let tenant: Tenant;
let other: Tenant;
let merchantId: string;
let secondMerchantId: string;
let foreignMerchantId: string;

const URL_OK = 'https://hooks.example.com/fiscal';

beforeAll(async () => {
  t = await createTestApp();
  tenant = await createTenantWithKey(t.database);
  other = await createTenantWithKey(t.database);
  const create = async (apiKey: string) => json(await t.app.inject({ method: 'POST', url: '/v1/merchants', headers: auth(apiKey), payload: deuMerchantBody() })).id as string;
  merchantId = await create(tenant.apiKey);
  secondMerchantId = await create(tenant.apiKey);
  foreignMerchantId = await create(other.apiKey);
});
afterAll(() => t.close());

const post = (headers: Record<string, string>, payload: object) => t.app.inject({ method: 'POST', url: '/v1/webhook-endpoints', headers, payload });

describe('registration', () => {
  it('answers 201 with the secret once; reads never show it, and it is stored sealed', async () => {
    const response = await post(auth(tenant.apiKey, merchantId), { url: URL_OK, events: ['operation.fiscal_state_changed', 'export.completed'], description: 'ERP' });
    expect(response.statusCode).toBe(201);
    const created = json(response);
    expect(created).toEqual({
      id: expect.stringMatching(/^we_[A-Za-z0-9]{20}$/),
      object: 'webhook_endpoint',
      url: URL_OK,
      events: ['operation.fiscal_state_changed', 'export.completed'],
      description: 'ERP',
      created_at: expect.any(String),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9]{32}$/),
    });
    const { secret, ...shown } = created;
    const read = json(await t.app.inject({ method: 'GET', url: `/v1/webhook-endpoints/${created.id}`, headers: auth(tenant.apiKey, merchantId) }));
    expect(read).toEqual(shown);
    const listed = json(await t.app.inject({ method: 'GET', url: '/v1/webhook-endpoints', headers: auth(tenant.apiKey, merchantId) }));
    expect(listed).toMatchObject({ object: 'list', cursor: null });
    expect(listed.data).toContainEqual(shown);
    expect(JSON.stringify(listed)).not.toContain(secret);

    const [row] = await t.database.sql.query<Record<string, unknown>>('SELECT * FROM webhook_endpoints WHERE id = $1', [created.id]);
    expect(JSON.stringify(row)).not.toContain(secret);
    expect(new SecretBox(TEST_SECRETS_KEY).open(row.sealed_secret as string)).toBe(secret);
    await t.app.inject({ method: 'DELETE', url: `/v1/webhook-endpoints/${created.id}`, headers: auth(tenant.apiKey, merchantId) });
  });

  it('takes every type of DESIGN.md, and "*" alone', async () => {
    for (const events of [[...EVENT_TYPES], ['*']]) {
      const response = await post(auth(tenant.apiKey, merchantId), { url: URL_OK, events });
      expect(response.statusCode).toBe(201);
      expect(json(response).events).toEqual(events);
      await t.app.inject({ method: 'DELETE', url: `/v1/webhook-endpoints/${json(response).id}`, headers: auth(tenant.apiKey, merchantId) });
    }
  });

  it.each([
    [{ url: URL_OK, events: ['export.completed', 'export.started'] }, 'events[1]', /Unknown event type export\.started/],
    [{ url: URL_OK, events: ['*', 'export.failed'] }, 'events', /stands alone/],
    [{ url: 'ftp://hooks.example.com/x', events: ['*'] }, 'url', /http or https/],
    [{ url: 'hooks.example.com/x', events: ['*'] }, 'url', /absolute http or https URL/],
    [{ url: 'https://user:secret@hooks.example.com/x', events: ['*'] }, 'url', /must not carry credentials/],
  ])('%j is 422 validation_error naming %s', async (payload, field, message) => {
    const body = expectError(await post(auth(tenant.apiKey, merchantId), payload), 422, 'validation_error');
    expect(body.details).toEqual({ field });
    expect(body.message).toMatch(message);
  });

  it.each([
    [{ url: URL_OK }, 'events'],
    [{ url: URL_OK, events: [] }, 'events'],
    [{ url: URL_OK, events: ['*'], secret: 'mine' }, 'secret'],
  ])('%j is 400 invalid_request', async (payload, field) => {
    const body = expectError(await post(auth(tenant.apiKey, merchantId), payload), 400, 'invalid_request');
    expect(JSON.stringify(body.details)).toContain(field);
  });

  it(`allows ${MAX_ENDPOINTS_PER_MERCHANT} endpoints per merchant, then 409`, async () => {
    const headers = orgAuth(tenant.apiKey, secondMerchantId);
    for (let i = 0; i < MAX_ENDPOINTS_PER_MERCHANT; i += 1) expect((await post(headers, { url: `${URL_OK}/${i}`, events: ['*'] })).statusCode).toBe(201);
    expectError(await post(headers, { url: URL_OK, events: ['*'] }), 409, 'resource_conflict');

    // Pages, newest first.
    const first = json(await t.app.inject({ method: 'GET', url: '/v1/webhook-endpoints?limit=10', headers }));
    expect(first.data).toHaveLength(10);
    expect(first.data[0].url).toBe(`${URL_OK}/${MAX_ENDPOINTS_PER_MERCHANT - 1}`);
    const rest = json(await t.app.inject({ method: 'GET', url: `/v1/webhook-endpoints?limit=10&cursor=${first.cursor}`, headers }));
    expect(rest.cursor).toBeNull();
    expect([...first.data, ...rest.data].map((endpoint: any) => endpoint.url)).toEqual(
      Array.from({ length: MAX_ENDPOINTS_PER_MERCHANT }, (_, i) => `${URL_OK}/${MAX_ENDPOINTS_PER_MERCHANT - 1 - i}`),
    );
    for (const endpoint of [...first.data, ...rest.data]) {
      const deleted = await t.app.inject({ method: 'DELETE', url: `/v1/webhook-endpoints/${endpoint.id}`, headers });
      expect(json(deleted)).toEqual({ id: endpoint.id, object: 'webhook_endpoint', deleted: true });
    }
    expect(json(await t.app.inject({ method: 'GET', url: '/v1/webhook-endpoints', headers })).data).toEqual([]);
  });
});

describe('tenancy', () => {
  let endpointId: string;

  beforeAll(async () => {
    endpointId = json(await post(auth(tenant.apiKey, merchantId), { url: URL_OK, events: ['*'] })).id;
  });

  const calls = (id: string) => [
    { method: 'GET' as const, url: `/v1/webhook-endpoints/${id}` },
    { method: 'GET' as const, url: `/v1/webhook-endpoints/${id}/deliveries` },
    { method: 'DELETE' as const, url: `/v1/webhook-endpoints/${id}` },
  ];

  it('both styles reach the merchant\'s endpoint: its key with X-Service-Merchant, its organization key, a platform key naming it', async () => {
    const platform = await platformKey(t.database, tenant.tenantId);
    for (const headers of [
      auth(tenant.apiKey, merchantId),
      orgAuth(tenant.apiKey, merchantId),
      orgAuth(await organizationKey(t.database, tenant.tenantId, merchantId)),
      orgAuth(platform, merchantId),
    ]) {
      const response = await t.app.inject({ method: 'GET', url: `/v1/webhook-endpoints/${endpointId}`, headers });
      expect(response.statusCode).toBe(200);
      expect(json(await t.app.inject({ method: 'GET', url: '/v1/webhook-endpoints', headers })).data.map((e: any) => e.id)).toContain(endpointId);
    }
  });

  it('another merchant of the tenant, its organization key, another tenant: 404, and the lists leave it out', async () => {
    const platform = await platformKey(t.database, tenant.tenantId);
    for (const headers of [
      auth(tenant.apiKey, secondMerchantId),
      orgAuth(await organizationKey(t.database, tenant.tenantId, secondMerchantId)),
      orgAuth(platform, secondMerchantId),
      auth(other.apiKey, foreignMerchantId),
    ]) {
      for (const call of calls(endpointId)) expectError(await t.app.inject({ ...call, headers }), 404, 'not_found');
      expect(json(await t.app.inject({ method: 'GET', url: '/v1/webhook-endpoints', headers })).data.map((e: any) => e.id)).not.toContain(endpointId);
    }
    // Naming the merchant is no way in for another tenant's key.
    expectError(await t.app.inject({ method: 'GET', url: `/v1/webhook-endpoints/${endpointId}`, headers: auth(other.apiKey, merchantId) }), 404, 'not_found');
    expectError(await t.app.inject({ method: 'GET', url: `/v1/webhook-endpoints/${endpointId}`, headers: orgAuth(await platformKey(t.database, other.tenantId), merchantId) }), 404, 'not_found');
  });

  it('follows the header rules of each style', async () => {
    // A platform key acts through Service-Organization only; a tenant key must name the merchant.
    expectError(await t.app.inject({ method: 'GET', url: '/v1/webhook-endpoints', headers: auth(await platformKey(t.database, tenant.tenantId), merchantId) }), 403, 'forbidden');
    expectError(await t.app.inject({ method: 'GET', url: '/v1/webhook-endpoints', headers: orgAuth(tenant.apiKey) }), 400, 'invalid_request');
    expectError(await t.app.inject({ method: 'GET', url: '/v1/webhook-endpoints', headers: { ...orgAuth(tenant.apiKey), 'x-service-merchant': '' } }), 400, 'invalid_request');
    expectError(await t.app.inject({ method: 'GET', url: '/v1/webhook-endpoints' }), 401, 'unauthorized');
  });
});
