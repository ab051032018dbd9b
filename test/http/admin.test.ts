// The operator API under /admin/v1: only with ADMIN_TOKEN; tenants, keys shown once and stored hashed, revocation.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, auth, createTestApp, deuMerchantBody, expectError, json, type TestApp } from '../support/testApp.js';

let t: TestApp;
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

async function newTenant(name = 'Acme') {
  const response = await t.app.inject({ method: 'POST', url: '/admin/v1/tenants', headers: admin, payload: { name } });
  expect(response.statusCode).toBe(201);
  return json(response);
}

async function newKey(tenantId: string, payload: Record<string, unknown>) {
  return t.app.inject({ method: 'POST', url: `/admin/v1/tenants/${tenantId}/api-keys`, headers: admin, payload });
}

describe('without ADMIN_TOKEN', () => {
  it('the admin API does not exist: 404 envelope', async () => {
    const closed = await createTestApp({ ADMIN_TOKEN: '' });
    try {
      expect(closed.config.adminToken).toBeUndefined();
      const routes: [string, string][] = [
        ['POST', '/admin/v1/tenants'],
        ['GET', '/admin/v1/tenants'],
        ['GET', '/admin/v1/tenants/ten_x/api-keys'],
        ['POST', '/admin/v1/tenants/ten_x/api-keys'],
        ['DELETE', '/admin/v1/api-keys/key_x'],
      ];
      for (const [method, url] of routes) {
        const response = await closed.app.inject({
          method: method as 'GET',
          url,
          headers: admin,
          ...(method === 'POST' ? { payload: { name: 'x', kind: 'tenant', country_code: 'DEU' } } : {}),
        });
        expectError(response, 404, 'not_found');
      }
      // no tenant was created
      expect(await closed.database.prisma.tenant.count()).toBe(0);
    } finally {
      await closed.close();
    }
  });
});

describe('with ADMIN_TOKEN', () => {
  it('401 without the token, with a wrong one, or with an API key', async () => {
    const tenant = await newTenant();
    const key = json(await newKey(tenant.id, { kind: 'tenant', country_code: 'DEU' })).api_key;
    const attempts: Record<string, string>[] = [
      {},
      { authorization: 'Bearer wrong-token-0123456789' },
      { authorization: `Bearer ${ADMIN_TOKEN}x` },
      { authorization: `Bearer ${ADMIN_TOKEN.slice(0, -1)}` },
      { authorization: ADMIN_TOKEN },
      { authorization: `Basic ${ADMIN_TOKEN}` },
      auth(key),
    ];
    for (const headers of attempts) {
      expectError(await t.app.inject({ method: 'POST', url: '/admin/v1/tenants', headers, payload: { name: 'x' } }), 401, 'unauthorized');
      expectError(await t.app.inject({ method: 'GET', url: `/admin/v1/tenants/${tenant.id}/api-keys`, headers }), 401, 'unauthorized');
      expectError(await t.app.inject({ method: 'GET', url: '/admin/v1/tenants', headers }), 401, 'unauthorized');
    }
  });

  it('creates a tenant: 201 {id, name, created_at}', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/admin/v1/tenants', headers: admin, payload: { name: 'Acme GmbH' } });
    expect(response.statusCode).toBe(201);
    const tenant = json(response);
    expect(tenant).toEqual({ id: expect.stringMatching(/^ten_/), name: 'Acme GmbH', created_at: expect.any(String) });
    expect(new Date(tenant.created_at).toISOString()).toBe(tenant.created_at);
    expectError(await t.app.inject({ method: 'POST', url: '/admin/v1/tenants', headers: admin, payload: {} }), 400, 'invalid_request');
    expectError(
      await t.app.inject({ method: 'POST', url: '/admin/v1/tenants', headers: admin, payload: { name: 'x', extra: 1 } }),
      400,
      'invalid_request',
    );
  });

  it('lists every tenant, oldest first, in the view it was created with', async () => {
    const first = await newTenant('First GmbH');
    const second = await newTenant('Second GmbH');
    const response = await t.app.inject({ method: 'GET', url: '/admin/v1/tenants', headers: admin });
    expect(response.statusCode).toBe(200);
    const { data } = json(response) as { data: { id: string; name: string; created_at: string }[] };
    expect(data).toEqual(expect.arrayContaining([first, second]));
    for (const tenant of data) expect(Object.keys(tenant).sort()).toEqual(['created_at', 'id', 'name']);
    const createdAt = data.map((tenant) => Date.parse(tenant.created_at));
    expect(createdAt).toEqual([...createdAt].sort((a, b) => a - b));
    expect(data.length).toBe(await t.database.prisma.tenant.count());
  });

  it('issues a tenant key once, stores only its SHA-256 hash, and the key works', async () => {
    const tenant = await newTenant();
    const response = await newKey(tenant.id, { kind: 'tenant', country_code: 'DEU' });
    expect(response.statusCode).toBe(201);
    const created = json(response);
    expect(created).toMatchObject({
      id: expect.stringMatching(/^key_/),
      kind: 'tenant',
      environment: 'test',
      country_code: 'DEU',
      organization_id: null,
      revoked_at: null,
    });
    const apiKey: string = created.api_key;
    expect(apiKey).toMatch(/^svc_test_deu_[0-9A-Za-z]{22,}$/);
    const random = apiKey.slice('svc_test_deu_'.length);
    expect(created.prefix).toBe(`svc_test_deu_${random.slice(0, 8)}`);

    const row = await t.database.prisma.apiKey.findUniqueOrThrow({ where: { id: created.id } });
    expect(row.keyHash).toBe(createHash('sha256').update(apiKey).digest('hex'));
    const stored = JSON.stringify(row);
    expect(stored).not.toContain(apiKey);
    expect(stored).not.toContain(random);
    const raw = await t.database.prisma.$queryRaw<Record<string, unknown>[]>`SELECT * FROM api_keys WHERE id = ${created.id}`;
    for (const value of Object.values(raw[0])) expect(String(value)).not.toContain(random);

    expect((await t.app.inject({ method: 'GET', url: '/v1/merchants', headers: auth(apiKey) })).statusCode).toBe(200);
  });

  it('lists keys by prefix only', async () => {
    const tenant = await newTenant();
    const first = json(await newKey(tenant.id, { kind: 'tenant', country_code: 'DEU' }));
    const second = json(await newKey(tenant.id, { kind: 'tenant', country_code: 'ITA' }));
    const list = await t.app.inject({ method: 'GET', url: `/admin/v1/tenants/${tenant.id}/api-keys`, headers: admin });
    expect(list.statusCode).toBe(200);
    const { data } = json(list);
    expect(data.map((k: { id: string }) => k.id)).toEqual([first.id, second.id]);
    expect(data[1]).toMatchObject({ prefix: second.prefix, country_code: 'ITA', kind: 'tenant' });
    expect(list.body).not.toContain(first.api_key);
    expect(list.body).not.toContain(second.api_key);
    for (const key of data) expect(Object.keys(key)).not.toContain('api_key');
  });

  it('issues organization and platform keys', async () => {
    const tenant = await newTenant();
    const tenantKey = json(await newKey(tenant.id, { kind: 'tenant', country_code: 'DEU' })).api_key;
    const merchant = json(await t.app.inject({ method: 'POST', url: '/v1/merchants', headers: auth(tenantKey), payload: deuMerchantBody() }));

    const org = await newKey(tenant.id, { kind: 'organization', organization_id: merchant.id });
    expect(org.statusCode).toBe(201);
    expect(json(org)).toMatchObject({ kind: 'organization', country_code: 'DEU', organization_id: merchant.id });
    expect(json(org).api_key).toMatch(/^svc_test_deu_/);
    expect((await t.app.inject({ method: 'GET', url: `/v1/merchants/${merchant.id}`, headers: auth(json(org).api_key) })).statusCode).toBe(200);

    const platform = await newKey(tenant.id, { kind: 'platform' });
    expect(platform.statusCode).toBe(201);
    expect(json(platform)).toMatchObject({ kind: 'platform', country_code: null, organization_id: null });
    expect(json(platform).api_key).toMatch(/^svc_platform_test_[0-9A-Za-z]{22,}$/);
    expect(json(platform).prefix).toBe(json(platform).api_key.slice(0, 'svc_platform_test_'.length + 8));
  });

  it('refuses inconsistent key requests', async () => {
    const tenant = await newTenant();
    const other = await newTenant('Other');
    const otherKey = json(await newKey(other.id, { kind: 'tenant', country_code: 'DEU' })).api_key;
    const foreignMerchant = json(
      await t.app.inject({ method: 'POST', url: '/v1/merchants', headers: auth(otherKey), payload: deuMerchantBody() }),
    );

    expectError(await newKey(tenant.id, { kind: 'tenant' }), 422, 'validation_error');
    expectError(await newKey(tenant.id, { kind: 'organization' }), 422, 'validation_error');
    expectError(await newKey(tenant.id, { kind: 'platform', country_code: 'DEU' }), 422, 'validation_error');
    expectError(await newKey(tenant.id, { kind: 'organization', organization_id: foreignMerchant.id }), 404, 'not_found');
    expectError(await newKey('ten_doesnotexist', { kind: 'tenant', country_code: 'DEU' }), 404, 'not_found');
    expectError(await newKey(tenant.id, { kind: 'superuser', country_code: 'DEU' }), 400, 'invalid_request');
    expectError(await newKey(tenant.id, { kind: 'tenant', country_code: 'DE' }), 400, 'invalid_request');
    expectError(await newKey(tenant.id, { kind: 'tenant', country_code: 'FRA' }), 400, 'invalid_request');
    expect(await t.database.prisma.apiKey.count({ where: { tenantId: tenant.id } })).toBe(0);
  });

  it('revokes a key: it is 401 on the very next request', async () => {
    const tenant = await newTenant();
    const created = json(await newKey(tenant.id, { kind: 'tenant', country_code: 'DEU' }));
    const keep = json(await newKey(tenant.id, { kind: 'tenant', country_code: 'DEU' }));
    expect((await t.app.inject({ method: 'GET', url: '/v1/merchants', headers: auth(created.api_key) })).statusCode).toBe(200);

    const revoked = await t.app.inject({ method: 'DELETE', url: `/admin/v1/api-keys/${created.id}`, headers: admin });
    expect(revoked.statusCode).toBe(200);
    expect(json(revoked)).toMatchObject({ id: created.id, revoked_at: expect.any(String) });
    expect(revoked.body).not.toContain(created.api_key);

    expectError(await t.app.inject({ method: 'GET', url: '/v1/merchants', headers: auth(created.api_key) }), 401, 'unauthorized');
    expect((await t.app.inject({ method: 'GET', url: '/v1/merchants', headers: auth(keep.api_key) })).statusCode).toBe(200);

    const listed = json(await t.app.inject({ method: 'GET', url: `/admin/v1/tenants/${tenant.id}/api-keys`, headers: admin })).data;
    expect(listed.find((k: { id: string }) => k.id === created.id).revoked_at).not.toBeNull();
    expect(listed.find((k: { id: string }) => k.id === keep.id).revoked_at).toBeNull();

    // revoking again changes nothing; an unknown key is 404
    const again = await t.app.inject({ method: 'DELETE', url: `/admin/v1/api-keys/${created.id}`, headers: admin });
    expect(json(again).revoked_at).toBe(json(revoked).revoked_at);
    expectError(await t.app.inject({ method: 'DELETE', url: '/admin/v1/api-keys/key_doesnotexist', headers: admin }), 404, 'not_found');
  });
});
