// Contract 5.7 and 8: Idempotency-Key replays, conflicts, scope (endpoint, merchant, tenant), concurrency,
// retryable failures not stored, retention of at least 24 hours and sweeping.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { ApiError } from '../../src/http/errors.js';
import { IdempotencyStore, KeyTakenError, runIdempotent } from '../../src/http/idempotency.js';
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

let t: TestApp;
let deu: Tenant;
/** How often the flaky test route's work ran, per Idempotency-Key. */
const executions = new Map<string, number>();

/**
 * Test routes: `flaky` fails its first execution with a retryable error and succeeds on the next ones;
 * `unordered` answers with keys in no sorted order (and no response schema, so its body is written as given).
 */
function testRoutes(app: FastifyInstance) {
  app.post('/v1/test/unordered', async (request, reply) =>
    runIdempotent(app.ctx.idempotency, request, reply, { required: true }, async () => ({
      status: 201,
      body: { zebra: 'last in sorted order', execution: randomUUID(), a: { z: 1, b: [2, { y: 3, c: 4 }] } },
    })),
  );
  app.post('/v1/test/flaky', async (request, reply) =>
    runIdempotent(app.ctx.idempotency, request, reply, { required: true }, async () => {
      const key = String(request.headers['idempotency-key']);
      const count = (executions.get(key) ?? 0) + 1;
      executions.set(key, count);
      const failure = (request.body as { fail_with?: number } | undefined)?.fail_with;
      if (count === 1 && failure) throw new ApiError(failure, 'transient_failure', 'try again');
      return { status: 200, body: { execution: count }, headers: { 'x-test': `run-${count}` } };
    }),
  );
}

beforeAll(async () => {
  t = await createTestApp({}, { routes: testRoutes });
  deu = await createTenantWithKey(t.database, 'DEU');
});
afterAll(() => t.close());

const createMerchant = (apiKey: string, idempotencyKey: string, payload: object = deuMerchantBody()) =>
  t.app.inject({ method: 'POST', url: '/v1/merchants', headers: { ...auth(apiKey), 'idempotency-key': idempotencyKey }, payload });

const merchantCount = (tenantId: string) => t.database.prisma.merchant.count({ where: { tenantId } });

const keyRows = (key: string) => t.database.prisma.idempotencyKey.findMany({ where: { key } });

describe('replay', () => {
  it('returns the original status, body and headers (ETag too), without executing again', async () => {
    const tenant = await createTenantWithKey(t.database, 'DEU');
    const first = await createMerchant(tenant.apiKey, 'replay-1');
    expect(first.statusCode).toBe(201);
    expect(first.headers.etag).toBe('"1"');
    expect(first.headers['idempotent-replayed']).toBeUndefined();

    const second = await createMerchant(tenant.apiKey, 'replay-1');
    expect(second.statusCode).toBe(201);
    expect(second.body).toBe(first.body);
    expect(second.headers.etag).toBe(first.headers.etag);
    expect(second.headers['content-type']).toBe(first.headers['content-type']);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.headers['x-request-id']).toBeTruthy();
    expect(await merchantCount(tenant.tenantId)).toBe(1);
  });

  it('replays the body as the original was written, key order included', async () => {
    const call = () => t.app.inject({ method: 'POST', url: '/v1/test/unordered', headers: { ...auth(deu.apiKey), 'idempotency-key': 'unordered-1' } });
    const first = await call();
    expect(first.body.indexOf('"zebra"')).toBeLessThan(first.body.indexOf('"a"'));
    const replay = await call();
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toBe(first.body);
  });

  it('treats the same payload with another key order as the same payload', async () => {
    const tenant = await createTenantWithKey(t.database, 'DEU');
    const body = deuMerchantBody();
    const first = await createMerchant(tenant.apiKey, 'order-1', body);
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    const second = await createMerchant(tenant.apiKey, 'order-1', reordered);
    expect(second.statusCode).toBe(201);
    expect(json(second).id).toBe(json(first).id);
  });

  it('replays after the resource changed (the original response, not the current state)', async () => {
    const tenant = await createTenantWithKey(t.database, 'DEU');
    const first = json(await createMerchant(tenant.apiKey, 'stale-replay-1'));
    await t.app.inject({ method: 'PATCH', url: `/v1/merchants/${first.id}`, headers: auth(tenant.apiKey), payload: { legal_name: 'Renamed' } });
    const replay = await createMerchant(tenant.apiKey, 'stale-replay-1');
    expect(json(replay)).toEqual(first);
    expect(replay.headers.etag).toBe('"1"');
  });

  it('replays a PATCH with its ETag', async () => {
    const merchant = json(await createMerchant(deu.apiKey, 'patch-base'));
    const patch = () =>
      t.app.inject({
        method: 'PATCH',
        url: `/v1/merchants/${merchant.id}`,
        headers: { ...auth(deu.apiKey), 'idempotency-key': 'patch-1', 'if-match': '"1"' },
        payload: { legal_name: 'Patched once' },
      });
    const first = await patch();
    expect(first.statusCode).toBe(200);
    expect(first.headers.etag).toBe('"2"');
    const again = await patch();
    expect(again.statusCode).toBe(200);
    expect(again.headers.etag).toBe('"2"');
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    const current = json(await t.app.inject({ method: 'GET', url: `/v1/merchants/${merchant.id}`, headers: auth(deu.apiKey) }));
    expect(current.resource_version).toBe(2);
  });
});

describe('replay as the server writes responses (unchecked)', () => {
  it("sends the text the key's record stores, and a replay sends it again", async () => {
    const server = await createTestApp({}, { checkResponses: false });
    try {
      const tenant = await createTenantWithKey(server.database, 'DEU');
      const call = () =>
        server.app.inject({ method: 'POST', url: '/v1/merchants', headers: { ...auth(tenant.apiKey), 'idempotency-key': 'unchecked-1' }, payload: deuMerchantBody() });
      const first = await call();
      expect(first.statusCode).toBe(201);
      expect(first.headers['content-type']).toBe('application/json; charset=utf-8');
      const [stored] = await server.database.prisma.idempotencyKey.findMany({ where: { key: 'unchecked-1' } });
      expect(stored.responseBody).toEqual(JSON.parse(first.body));
      const replay = await call();
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.body).toBe(first.body);
    } finally {
      await server.close();
    }
  });
});

describe('conflict', () => {
  it('a different payload under the same key is 409 idempotency_key_conflict and executes nothing', async () => {
    const tenant = await createTenantWithKey(t.database, 'DEU');
    await createMerchant(tenant.apiKey, 'conflict-1');
    const body = expectError(await createMerchant(tenant.apiKey, 'conflict-1', deuMerchantBody({ legal_name: 'Other GmbH' })), 409, 'idempotency_key_conflict');
    expect(body.retryable).toBe(false);
    expect(await merchantCount(tenant.tenantId)).toBe(1);
    // the original is still replayed
    expect((await createMerchant(tenant.apiKey, 'conflict-1')).headers['idempotent-replayed']).toBe('true');
  });

  it('a different If-Match under the same key is a different request', async () => {
    const merchant = json(await createMerchant(deu.apiKey, 'ifmatch-base'));
    const patch = (ifMatch: string) =>
      t.app.inject({
        method: 'PATCH',
        url: `/v1/merchants/${merchant.id}`,
        headers: { ...auth(deu.apiKey), 'idempotency-key': 'ifmatch-1', 'if-match': ifMatch },
        payload: { legal_name: 'X' },
      });
    expect((await patch('"1"')).statusCode).toBe(200);
    expectError(await patch('"2"'), 409, 'idempotency_key_conflict');
  });

  it('rejects a malformed key', async () => {
    expectError(await createMerchant(deu.apiKey, 'has spaces'), 400, 'invalid_request');
    expectError(await createMerchant(deu.apiKey, 'k'.repeat(256)), 400, 'invalid_request');
  });
});

describe('scope: endpoint, merchant and tenant', () => {
  it('the same key on another tenant executes independently', async () => {
    const a = await createTenantWithKey(t.database, 'DEU');
    const b = await createTenantWithKey(t.database, 'DEU');
    const first = await createMerchant(a.apiKey, 'shared-key');
    const second = await createMerchant(b.apiKey, 'shared-key');
    expect(second.statusCode).toBe(201);
    expect(second.headers['idempotent-replayed']).toBeUndefined();
    expect(json(second).id).not.toBe(json(first).id);
    // and with a different payload it is no conflict either
    const c = await createTenantWithKey(t.database, 'DEU');
    expect((await createMerchant(c.apiKey, 'shared-key', deuMerchantBody({ legal_name: 'C GmbH' }))).statusCode).toBe(201);
    expect(await merchantCount(a.tenantId)).toBe(1);
    expect(await merchantCount(b.tenantId)).toBe(1);
  });

  it('the same key on another endpoint executes independently', async () => {
    const tenant = await createTenantWithKey(t.database, 'DEU');
    const merchant = json(await createMerchant(tenant.apiKey, 'endpoint-key'));
    const patch = await t.app.inject({
      method: 'PATCH',
      url: `/v1/merchants/${merchant.id}`,
      headers: { ...auth(tenant.apiKey), 'idempotency-key': 'endpoint-key' },
      payload: { legal_name: 'Patched' },
    });
    expect(patch.statusCode).toBe(200);
    expect(patch.headers['idempotent-replayed']).toBeUndefined();
    const location = await t.app.inject({
      method: 'POST',
      url: '/v1/locations',
      headers: { ...auth(tenant.apiKey, merchant.id), 'idempotency-key': 'endpoint-key' },
      payload: { name: 'Filiale', address: DEU_ADDRESS },
    });
    expect(location.statusCode).toBe(201);
    expect(location.headers['idempotent-replayed']).toBeUndefined();
  });

  it('one endpoint however its URL is spelled (trailing slash, query string, encoded id): the same key replays', async () => {
    const tenant = await createTenantWithKey(t.database, 'DEU');
    const send = (url: string) =>
      t.app.inject({ method: 'POST', url, headers: { ...auth(tenant.apiKey), 'idempotency-key': 'spelling-1' }, payload: deuMerchantBody() });
    const first = await send('/v1/merchants');
    const slash = await send('/v1/merchants/');
    const query = await send('/v1/merchants?x=1');
    expect(first.statusCode).toBe(201);
    for (const again of [slash, query]) {
      expect(again.statusCode).toBe(201);
      expect(json(again).id).toBe(json(first).id);
    }
    expect(await merchantCount(tenant.tenantId)).toBe(1);

    const id: string = json(first).id;
    const patch = (url: string) =>
      t.app.inject({ method: 'PATCH', url, headers: { ...auth(tenant.apiKey), 'idempotency-key': 'spelling-2' }, payload: { legal_name: 'Once only' } });
    expect((await patch(`/v1/merchants/${id}`)).statusCode).toBe(200);
    const encoded = await patch(`/v1/merchants/${id.replace('_', '%5F')}/`);
    expect(encoded.statusCode).toBe(200);
    expect(encoded.headers['idempotent-replayed']).toBe('true');
    expect(json(await t.app.inject({ method: 'GET', url: `/v1/merchants/${id}`, headers: auth(tenant.apiKey) })).resource_version).toBe(2);
  });

  it('the same key for another merchant executes independently', async () => {
    const tenant = await createTenantWithKey(t.database, 'DEU');
    const m1 = await createDeuSetup(t.app, tenant.apiKey);
    const m2 = await createDeuSetup(t.app, tenant.apiKey);
    const createLocation = (merchantId: string) =>
      t.app.inject({
        method: 'POST',
        url: '/v1/locations',
        headers: { ...auth(tenant.apiKey, merchantId), 'idempotency-key': 'merchant-key' },
        payload: { name: 'Filiale Süd', address: DEU_ADDRESS },
      });
    const first = await createLocation(m1.merchantId);
    const second = await createLocation(m2.merchantId);
    expect(first.statusCode).toBe(201);
    expect(second.statusCode).toBe(201);
    expect(second.headers['idempotent-replayed']).toBeUndefined();
    expect(json(first).merchant_id).toBe(m1.merchantId);
    expect(json(second).merchant_id).toBe(m2.merchantId);
    // and within one merchant it replays
    const replay = await createLocation(m1.merchantId);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(json(replay).id).toBe(json(first).id);
  });
});

describe('concurrency', () => {
  it('concurrent requests with one key never both execute: one merchant, identical responses', async () => {
    const tenant = await createTenantWithKey(t.database, 'DEU');
    const responses = await Promise.all(Array.from({ length: 10 }, () => createMerchant(tenant.apiKey, 'race-1')));
    expect(await merchantCount(tenant.tenantId)).toBe(1);
    const [first] = responses;
    expect(first.statusCode).toBe(201);
    for (const response of responses) {
      expect(response.statusCode).toBe(201);
      expect(response.body).toBe(first.body);
      expect(response.headers.etag).toBe('"1"');
    }
    expect(responses.filter((response) => response.headers['idempotent-replayed'] === 'true')).toHaveLength(9);
    const rows = await t.database.prisma.idempotencyKey.findMany({ where: { tenantId: tenant.tenantId, key: 'race-1' } });
    expect(rows).toHaveLength(1);
    expect(rows[0].responseStatus).toBe(201);
  });

  it('concurrent requests with one key and different payloads: one executes, the others conflict', async () => {
    const tenant = await createTenantWithKey(t.database, 'DEU');
    const responses = await Promise.all(
      Array.from({ length: 6 }, (_, i) => createMerchant(tenant.apiKey, 'race-2', deuMerchantBody({ legal_name: `Name ${i}` }))),
    );
    expect(await merchantCount(tenant.tenantId)).toBe(1);
    expect(responses.filter((response) => response.statusCode === 201)).toHaveLength(1);
    for (const response of responses.filter((r) => r.statusCode !== 201)) expectError(response, 409, 'idempotency_key_conflict');
  });

  it('concurrent PATCHes with one key change the merchant once', async () => {
    const tenant = await createTenantWithKey(t.database, 'DEU');
    const merchant = json(await createMerchant(tenant.apiKey, 'race-3-base'));
    const responses = await Promise.all(
      Array.from({ length: 8 }, () =>
        t.app.inject({
          method: 'PATCH',
          url: `/v1/merchants/${merchant.id}`,
          headers: { ...auth(tenant.apiKey), 'idempotency-key': 'race-3' },
          payload: { legal_name: 'Once' },
        }),
      ),
    );
    for (const response of responses) {
      expect(response.statusCode).toBe(200);
      expect(response.body).toBe(responses[0].body);
    }
    const current = json(await t.app.inject({ method: 'GET', url: `/v1/merchants/${merchant.id}`, headers: auth(tenant.apiKey) }));
    expect(current.resource_version).toBe(2);
  });
});

describe('which responses are stored', () => {
  it('a retryable failure is not stored: the retry executes', async () => {
    for (const status of [500, 503, 429, 412]) {
      const key = `flaky-${status}`;
      const headers = { ...auth(deu.apiKey), 'idempotency-key': key };
      const failed = await t.app.inject({ method: 'POST', url: '/v1/test/flaky', headers, payload: { fail_with: status } });
      expectError(failed, status, 'transient_failure');
      expect(await keyRows(key)).toHaveLength(0);

      const retried = await t.app.inject({ method: 'POST', url: '/v1/test/flaky', headers, payload: { fail_with: status } });
      expect(retried.statusCode).toBe(200);
      expect(json(retried)).toEqual({ execution: 2 });
      expect(retried.headers['idempotent-replayed']).toBeUndefined();

      const replayed = await t.app.inject({ method: 'POST', url: '/v1/test/flaky', headers, payload: { fail_with: status } });
      expect(json(replayed)).toEqual({ execution: 2 });
      expect(replayed.headers['x-test']).toBe('run-2');
      expect(replayed.headers['idempotent-replayed']).toBe('true');
      expect(executions.get(key)).toBe(2);
    }
  });

  it('a non-retryable failure is stored and replayed', async () => {
    const key = 'flaky-409';
    const headers = { ...auth(deu.apiKey), 'idempotency-key': key };
    const failed = await t.app.inject({ method: 'POST', url: '/v1/test/flaky', headers, payload: { fail_with: 409 } });
    expectError(failed, 409, 'transient_failure');
    const again = await t.app.inject({ method: 'POST', url: '/v1/test/flaky', headers, payload: { fail_with: 409 } });
    expectError(again, 409, 'transient_failure');
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(executions.get(key)).toBe(1);
  });

  it('a 422 on POST /v1/merchants is stored and replayed', async () => {
    const tenant = await createTenantWithKey(t.database, 'DEU');
    const invalid = deuMerchantBody({ fiscal_identities: [{ country_code: 'AUT', legal_entity_id_type: 'GLN', gln: '123' }] });
    const first = await createMerchant(tenant.apiKey, 'regime-422', invalid);
    expectError(first, 422, 'regime_validation_failed');
    const rows = await keyRows('regime-422');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ responseStatus: 422 });
    const replay = await createMerchant(tenant.apiKey, 'regime-422', invalid);
    expectError(replay, 422, 'regime_validation_failed');
    expect(replay.body).toBe(first.body);
    expect(replay.headers['idempotent-replayed']).toBe('true');
  });

  it('a 412 stale If-Match on PATCH is not stored', async () => {
    const tenant = await createTenantWithKey(t.database, 'DEU');
    const merchant = json(await createMerchant(tenant.apiKey, 'stale-base'));
    await t.app.inject({ method: 'PATCH', url: `/v1/merchants/${merchant.id}`, headers: auth(tenant.apiKey), payload: { legal_name: 'v2' } });
    const stale = () =>
      t.app.inject({
        method: 'PATCH',
        url: `/v1/merchants/${merchant.id}`,
        headers: { ...auth(tenant.apiKey), 'idempotency-key': 'stale-412', 'if-match': '"1"' },
        payload: { legal_name: 'v3' },
      });
    expectError(await stale(), 412, 'precondition_failed');
    expect(await keyRows('stale-412')).toHaveLength(0);
    const retry = await stale();
    expectError(retry, 412, 'precondition_failed');
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
  });

  it('IdempotencyStore: a retryable result is not stored, so a retry executes; a final one is replayed', async () => {
    const store = t.app.ctx.idempotency;
    for (const status of [500, 502, 429, 412]) {
      const scope = { tenantId: deu.tenantId, merchantScope: '', endpoint: 'POST /v1/test/store', key: `store-${status}`, requestHash: 'h1' };
      await store.store(t.database.sql, scope, { status, body: { code: 'x' } });
      expect(await keyRows(scope.key)).toHaveLength(0);
      expect(await store.lookup(scope)).toBeNull();
      await store.store(t.database.sql, scope, { status: 201, body: { ok: true }, headers: { etag: '"1"' } });
      expect(await store.lookup(scope)).toEqual({ status: 201, body: { ok: true }, headers: { etag: '"1"' } });
    }
  });

  it('IdempotencyStore: a 422 result is stored and replayed; a second store of the key is refused', async () => {
    const store = t.app.ctx.idempotency;
    const scope = { tenantId: deu.tenantId, merchantScope: 'mer_x', endpoint: 'POST /v1/test/store', key: 'store-422', requestHash: 'h' };
    await store.store(t.database.sql, scope, { status: 422, body: { code: 'validation_error' } });
    expect(await store.lookup(scope)).toMatchObject({ status: 422, body: { code: 'validation_error' } });
    await expect(store.store(t.database.sql, scope, { status: 201, body: {} })).rejects.toBeInstanceOf(KeyTakenError);
    await expect(store.lookup({ ...scope, requestHash: 'other' })).rejects.toMatchObject({ code: 'idempotency_key_conflict' });
  });
});

describe('retention', () => {
  it('records are kept at least 24 hours', async () => {
    await createMerchant(deu.apiKey, 'retention-1');
    const [row] = await keyRows('retention-1');
    expect(row.expiresAt.getTime() - row.createdAt.getTime()).toBeGreaterThanOrEqual(24 * 3600 * 1000 - 1000);
    expect(() => loadConfig({ IDEMPOTENCY_RETENTION_HOURS: '23' })).toThrow(/IDEMPOTENCY_RETENTION_HOURS/);
    expect(loadConfig({}).idempotencyRetentionHours).toBeGreaterThanOrEqual(24);
  });

  it('a record still within its retention replays a day later', async () => {
    const tenant = await createTenantWithKey(t.database, 'DEU');
    const first = await createMerchant(tenant.apiKey, 'retention-2');
    // age the record by 23 hours: it must still replay, and a sweep must keep it
    await t.database.prisma.idempotencyKey.updateMany({
      where: { key: 'retention-2', tenantId: tenant.tenantId },
      data: { createdAt: new Date(Date.now() - 23 * 3600 * 1000), expiresAt: new Date(Date.now() + 3600 * 1000) },
    });
    await t.app.ctx.idempotency.sweep();
    const replay = await createMerchant(tenant.apiKey, 'retention-2');
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toBe(first.body);
  });

  it('sweep deletes expired records and keeps live ones', async () => {
    const store = new IdempotencyStore(t.database.sql, { retentionHours: 24 });
    const scope = { tenantId: deu.tenantId, merchantScope: '', endpoint: 'POST /v1/merchants' };
    const base = { ...scope, requestHash: 'x', responseStatus: 201, responseBody: {} };
    await t.database.prisma.idempotencyKey.create({
      data: { ...base, key: 'sweep-expired', createdAt: new Date(Date.now() - 25 * 3600 * 1000), expiresAt: new Date(Date.now() - 3600 * 1000) },
    });
    await t.database.prisma.idempotencyKey.create({ data: { ...base, key: 'sweep-live', expiresAt: new Date(Date.now() + 3600 * 1000) } });
    expect(await store.sweep()).toBeGreaterThanOrEqual(1);
    const stored = (key: string) => t.database.prisma.idempotencyKey.findUnique({ where: { tenantId_merchantScope_endpoint_key: { ...scope, key } } });
    expect(await stored('sweep-expired')).toBeNull();
    expect(await stored('sweep-live')).not.toBeNull();
  });

  it('after expiry the key executes again', async () => {
    const tenant = await createTenantWithKey(t.database, 'DEU');
    const first = json(await createMerchant(tenant.apiKey, 'expired-1'));
    await t.database.prisma.idempotencyKey.updateMany({
      where: { key: 'expired-1', tenantId: tenant.tenantId },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    const second = await createMerchant(tenant.apiKey, 'expired-1');
    expect(second.statusCode).toBe(201);
    expect(second.headers['idempotent-replayed']).toBeUndefined();
    expect(json(second).id).not.toBe(first.id);
  });
});

// Style M mutations read their key's stored response in the auth query (one round trip);
// these cases go through that prefetched record rather than the idempotency layer's own lookup.
describe('the stored response read with the API key (merchant-scoped routes)', () => {
  const createLocation = (apiKey: string, merchantId: string, key: string, name = 'Filiale Nord') =>
    t.app.inject({
      method: 'POST',
      url: '/v1/locations',
      headers: { ...auth(apiKey, merchantId), 'idempotency-key': key },
      payload: { name, address: DEU_ADDRESS },
    });

  it('replays, conflicts on another payload, and never serves another tenant, merchant or endpoint', async () => {
    const a = await createTenantWithKey(t.database, 'DEU');
    const b = await createTenantWithKey(t.database, 'DEU');
    const setupA = await createDeuSetup(t.app, a.apiKey);
    const otherA = await createDeuSetup(t.app, a.apiKey);
    const setupB = await createDeuSetup(t.app, b.apiKey);

    const first = await createLocation(a.apiKey, setupA.merchantId, 'prefetch-1');
    expect(first.statusCode).toBe(201);
    const replay = await createLocation(a.apiKey, setupA.merchantId, 'prefetch-1');
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toBe(first.body);
    expectError(await createLocation(a.apiKey, setupA.merchantId, 'prefetch-1', 'Filiale Ost'), 409, 'idempotency_key_conflict');

    for (const [apiKey, merchantId] of [
      [a.apiKey, otherA.merchantId],
      [b.apiKey, setupB.merchantId],
    ]) {
      const elsewhere = await createLocation(apiKey, merchantId, 'prefetch-1');
      expect(elsewhere.statusCode).toBe(201);
      expect(elsewhere.headers['idempotent-replayed']).toBeUndefined();
      expect(json(elsewhere).merchant_id).toBe(merchantId);
    }
    const register = await t.app.inject({
      method: 'POST',
      url: '/v1/registers',
      headers: { ...auth(a.apiKey, setupA.merchantId), 'idempotency-key': 'prefetch-1' },
      payload: { location_id: json(first).id, name: 'Kasse 9' },
    });
    expect(register.statusCode).toBe(201);
    expect(register.headers['idempotent-replayed']).toBeUndefined();
  });

  it('the idempotency layer then runs no lookup of its own', async () => {
    const tenant = await createTenantWithKey(t.database, 'DEU');
    const setup = await createDeuSetup(t.app, tenant.apiKey);
    const query = vi.spyOn(t.app.ctx.idempotency.sql, 'query');
    try {
      const first = await createLocation(tenant.apiKey, setup.merchantId, 'prefetch-used');
      const replay = await createLocation(tenant.apiKey, setup.merchantId, 'prefetch-used');
      expect(replay.body).toBe(first.body);
      const lookups = query.mock.calls.filter(([text]) => /^\s*SELECT request_hash/.test(text));
      expect(lookups).toHaveLength(0);
    } finally {
      query.mockRestore();
    }
  });

  it('an expired record is not served: the key executes again', async () => {
    const tenant = await createTenantWithKey(t.database, 'DEU');
    const setup = await createDeuSetup(t.app, tenant.apiKey);
    const first = json(await createLocation(tenant.apiKey, setup.merchantId, 'prefetch-expired'));
    await t.database.prisma.idempotencyKey.updateMany({
      where: { key: 'prefetch-expired', tenantId: tenant.tenantId },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    const second = await createLocation(tenant.apiKey, setup.merchantId, 'prefetch-expired');
    expect(second.statusCode).toBe(201);
    expect(second.headers['idempotent-replayed']).toBeUndefined();
    expect(json(second).id).not.toBe(first.id);
  });

  it('a revoked key gets 401 even for a key whose response is stored', async () => {
    const tenant = await createTenantWithKey(t.database, 'DEU');
    const setup = await createDeuSetup(t.app, tenant.apiKey);
    expect((await createLocation(tenant.apiKey, setup.merchantId, 'prefetch-revoked')).statusCode).toBe(201);
    await t.database.prisma.apiKey.updateMany({ where: { tenantId: tenant.tenantId }, data: { revokedAt: new Date() } });
    expectError(await createLocation(tenant.apiKey, setup.merchantId, 'prefetch-revoked'), 401, 'unauthorized');
  });
});
