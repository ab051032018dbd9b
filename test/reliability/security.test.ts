// Security: another tenant's resources do not exist for a caller (404 for every
// resource type, in both request styles, indistinguishable from a missing id, and
// nothing changes); bodies over BODY_LIMIT_BYTES are refused with the envelope
// (413 payload_too_large); secrets (API keys, admin token, SECRETS_KEY, fisconline
// password and PIN, TSE private keys) never appear in logs or responses; hosted
// receipt tokens and export download links cannot be guessed or tampered with.
import { createPrivateKey } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { SecretBox } from '../../src/lib/secretBox.js';
import { createAndCompleteSale, createOperation, fiscalizedRegisterWithSession, idem, saleBody, type OperationsFixture } from '../support/operations.js';
import { createEmptyPostgresDatabase, openConnection, parseResponses, startServer, tempDir, type ChildServer } from '../support/processes.js';
import { mustRefund, organizationKey, orgAuth, platformKey } from '../support/styleO.js';
import { auth, createTenantWithKey, createTestApp, DEU_ADDRESS, deuMerchantBody, expectError, itaMerchantBody, json, type TestApp } from '../support/testApp.js';
import { call, expectEnvelope, killServer, must, pgClient, type FetchResult } from './support.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const ORG_ADDRESS = { line1: 'Hafenstraße 2', city: 'Hamburg', postal_code: '20457', country: 'DE' };

describe('tenants, bodies, hosted receipts and export links', () => {
  let t: TestApp;
  // Tenant A owns everything; tenant B probes it.
  let a: OperationsFixture & { sale: any; refund: any; orgLocation: any; exportJob: any; secondExport: any; platform: string };
  let b: OperationsFixture & { platform: string; orgKey: string; apiKey: string };

  async function waitForExport(id: string) {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const job = json(await t.app.inject({ method: 'GET', url: `/v1/exports/${id}`, headers: a.headers }));
      if (job.status !== 'pending' && job.status !== 'running') return job;
      if (Date.now() > deadline) throw new Error(`export ${id} still ${job.status}`);
      await sleep(100);
    }
  }

  beforeAll(async () => {
    t = await createTestApp({ EXPORT_POLL_MS: '100' });
    const tenantA = await createTenantWithKey(t.database, 'DEU');
    const fxA = await fiscalizedRegisterWithSession(t.app, tenantA.apiKey);
    const sale = await createAndCompleteSale(t.app, fxA);
    const platformA = orgAuth(await platformKey(t.database, tenantA.tenantId), fxA.merchantId);
    const refund = await mustRefund(t.app, platformA, fxA.registerId, { original_operation_id: sale.id });
    const orgLocation = await t.app.inject({
      method: 'POST',
      url: `/v1/organizations/${fxA.merchantId}/locations`,
      headers: platformA,
      payload: { name: 'Lager', address: ORG_ADDRESS },
    });
    expect(orgLocation.statusCode, orgLocation.body).toBe(201);
    // Close the session so an export over it can be built.
    expect((await createOperation(t.app, fxA.headers, { type: 'session_cash_count', register_id: fxA.registerId, counted_closing_amount: '111.90' })).statusCode).toBe(201);
    expect((await createOperation(t.app, fxA.headers, { type: 'session_close', register_id: fxA.registerId })).statusCode).toBe(201);
    const range = { type: 'dsfinvk', from: '2020-01-01T00:00:00Z', to: new Date(Date.now() + 1000).toISOString() };
    const exportJob = json(await t.app.inject({ method: 'POST', url: '/v1/exports', headers: fxA.headers, payload: range }));
    const secondExport = json(await t.app.inject({ method: 'POST', url: '/v1/exports', headers: fxA.headers, payload: { ...range, register_id: fxA.registerId } }));
    a = { ...fxA, sale, refund, orgLocation: json(orgLocation), exportJob, secondExport, platform: platformA.authorization };
    a.exportJob = await waitForExport(exportJob.id);
    a.secondExport = await waitForExport(secondExport.id);
    expect(a.exportJob.status, JSON.stringify(a.exportJob)).toBe('completed');
    expect(a.secondExport.status).toBe('completed');

    const tenantB = await createTenantWithKey(t.database, 'DEU');
    const fxB = await fiscalizedRegisterWithSession(t.app, tenantB.apiKey);
    b = {
      ...fxB,
      apiKey: tenantB.apiKey,
      platform: await platformKey(t.database, tenantB.tenantId),
      orgKey: await organizationKey(t.database, tenantB.tenantId, fxB.merchantId),
    };
  });
  afterAll(() => t?.close());

  describe('cross-tenant access', () => {
    const inject = (method: string, url: string, headers: Record<string, string>, payload?: object) =>
      t.app.inject({ method: method as any, url, headers, ...(payload !== undefined ? { payload } : {}) });

    function probes() {
      const bM = b.headers; // B's key, B's merchant
      const bKey = auth(b.apiKey);
      const bPlatform = orgAuth(b.platform, b.merchantId);
      const write = { 'idempotency-key': idem(), 'if-match': '"1"' };
      const pay = { payments: [{ method: 'cash', amount: '11.90' }] };
      return [
        // merchants (no merchant header)
        ['GET merchant', () => inject('GET', `/v1/merchants/${a.merchantId}`, bKey)],
        ['PATCH merchant', () => inject('PATCH', `/v1/merchants/${a.merchantId}`, bKey, { legal_name: 'Übernommen' })],
        ['DELETE merchant', () => inject('DELETE', `/v1/merchants/${a.merchantId}`, bKey)],
        ['A as X-Service-Merchant', () => inject('GET', '/v1/locations', auth(b.apiKey, a.merchantId))],
        ['A as X-Service-Merchant (registers)', () => inject('GET', '/v1/registers', auth(b.apiKey, a.merchantId))],
        // locations
        ['GET location', () => inject('GET', `/v1/locations/${a.locationId}`, bM)],
        ['PATCH location', () => inject('PATCH', `/v1/locations/${a.locationId}`, bM, { name: 'x' })],
        ['DELETE location', () => inject('DELETE', `/v1/locations/${a.locationId}`, bM)],
        ['register in A location', () => inject('POST', '/v1/registers', bM, { location_id: a.locationId, name: 'Kasse X' })],
        // registers
        ['GET register', () => inject('GET', `/v1/registers/${a.registerId}`, bM)],
        ['PATCH register', () => inject('PATCH', `/v1/registers/${a.registerId}`, bM, { name: 'x' })],
        ['DELETE register', () => inject('DELETE', `/v1/registers/${a.registerId}`, bM)],
        ['fiscalize register', () => inject('POST', `/v1/registers/${a.registerId}/fiscalize`, bM)],
        ['decommission register', () => inject('POST', `/v1/registers/${a.registerId}/decommission`, bM)],
        ['simulate register', () => inject('PUT', `/v1/registers/${a.registerId}/simulation`, bM, { fiscal_device: 'unreachable' })],
        // operations
        ['GET operation', () => inject('GET', `/v1/operations/${a.sale.id}`, bM)],
        ['GET refund (Style M)', () => inject('GET', `/v1/operations/${a.refund.id}`, bM)],
        ['complete operation', () => inject('POST', `/v1/operations/${a.sale.id}/complete`, { ...bM, ...write }, pay)],
        ['void operation', () => inject('POST', `/v1/operations/${a.sale.id}/void`, { ...bM, ...write }, { reason: 'operator_cancelled' })],
        ['sale on A register', () => inject('POST', '/v1/operations', { ...bM, 'idempotency-key': idem() }, saleBody(a.registerId))],
        ['session on A register', () => inject('POST', '/v1/operations', { ...bM, 'idempotency-key': idem() }, { type: 'session_open', register_id: a.registerId })],
        // receipts by id
        ['GET receipt', () => inject('GET', `/v1/receipts/${a.sale.receipt_id}`, bM)],
        ['GET receipt pdf', () => inject('GET', `/v1/receipts/${a.sale.receipt_id}/pdf`, bM)],
        // exports
        ['GET export', () => inject('GET', `/v1/exports/${a.exportJob.id}`, bM)],
        ['export of A register', () => inject('POST', '/v1/exports', bM, { type: 'dsfinvk', from: '2020-01-01T00:00:00Z', to: '2030-01-01T00:00:00Z', register_id: a.registerId })],
        // Style O: B's platform key acting for B
        ['refund on A register', () => inject('POST', `/v1/registers/${a.registerId}/refunds`, bPlatform, { original_operation_id: a.sale.id })],
        ['complete A refund', () => inject('POST', `/v1/operations/${a.refund.id}/complete`, bPlatform, {})],
        ['cancel A refund', () => inject('POST', `/v1/operations/${a.refund.id}/cancel`, bPlatform, {})],
        ['GET A refund (Style O)', () => inject('GET', `/v1/operations/${a.refund.id}`, bPlatform)],
        ['canonical receipt of A sale', () => inject('GET', `/v1/operations/${a.sale.id}/receipt`, bPlatform)],
        ['PATCH A location (Style O)', () => inject('PATCH', `/v1/locations/${a.orgLocation.id}`, bPlatform, { name: 'x' })],
        ['PATCH A Style M location (Style O)', () => inject('PATCH', `/v1/locations/${a.locationId}`, bPlatform, { name: 'x' })],
        ['location in A organization', () => inject('POST', `/v1/organizations/${a.merchantId}/locations`, bPlatform, { name: 'x', address: ORG_ADDRESS })],
        // Style O: naming A's organization
        ['platform key naming A', () => inject('GET', `/v1/operations/${a.sale.id}/receipt`, orgAuth(b.platform, a.merchantId))],
        ['platform key naming A (refund)', () => inject('POST', `/v1/registers/${a.registerId}/refunds`, orgAuth(b.platform, a.merchantId), { original_operation_id: a.sale.id })],
        ['org key, A in the path', () => inject('POST', `/v1/organizations/${a.merchantId}/locations`, orgAuth(b.orgKey), { name: 'x', address: ORG_ADDRESS })],
        ['org key on A refund', () => inject('POST', `/v1/operations/${a.refund.id}/cancel`, orgAuth(b.orgKey), {})],
        ['tenant key naming A', () => inject('GET', `/v1/operations/${a.sale.id}/receipt`, orgAuth(b.apiKey, a.merchantId))],
        ['tenant key, A in the path', () => inject('POST', `/v1/organizations/${a.merchantId}/locations`, orgAuth(b.apiKey), { name: 'x', address: ORG_ADDRESS })],
      ] as const;
    }

    it('every resource type of another tenant is 404 in both styles, as if it did not exist', async () => {
      const wrong: string[] = [];
      for (const [name, probe] of probes()) {
        const response = await probe();
        if (response.statusCode !== 404) {
          wrong.push(`${name}: ${response.statusCode} ${response.body.slice(0, 200)}`);
          continue;
        }
        expectError(response, 404, 'not_found');
      }
      expect(wrong).toEqual([]);
    });

    it('a foreign id named in a body is answered exactly as an id that never existed', async () => {
      const missingSale = `op_${'Q'.repeat(20)}`;
      const returnOf = (relatedId: string) =>
        inject('POST', '/v1/operations', { ...b.headers, 'idempotency-key': idem() }, {
          ...saleBody(b.registerId),
          type: 'return',
          pretax_amount: '-10.00',
          tax_amount: '-1.90',
          total_amount: '-11.90',
          line_items: [{ title: 'Brot', quantity: 1, unit_price: '-11.90', total_amount: '-11.90', sku_identifier: 'SKU-BROT', taxes: [{ name: 'MwSt', rate: '0.19', tax_amount: '-1.9' }] }],
          related_operation_id: relatedId,
        });
      const refundOf = (saleId: string) => inject('POST', `/v1/registers/${b.registerId}/refunds`, orgAuth(b.platform, b.merchantId), { original_operation_id: saleId });
      for (const [what, send] of [
        ['return of a sale', returnOf],
        ['Style O refund of a sale', refundOf],
      ] as const) {
        const foreign = await send(a.sale.id);
        const missing = await send(missingSale);
        expect(foreign.statusCode, `${what}: ${foreign.body}`).toBeGreaterThanOrEqual(400);
        expect(foreign.statusCode, `${what}: ${foreign.body}`).toBeLessThan(500);
        expect([foreign.statusCode, json(foreign).code], what).toEqual([missing.statusCode, json(missing).code]);
        expect(foreign.body.replaceAll(a.sale.id, 'ID'), what).toBe(missing.body.replaceAll(missingSale, 'ID'));
      }
      expect(await t.database.prisma.operation.count({ where: { relatedOperationId: a.sale.id, merchantId: { not: a.merchantId } } })).toBe(0);
    });

    it('the 404 for a foreign id is the same as for an id that never existed', async () => {
      const foreign = await inject('GET', `/v1/operations/${a.sale.id}`, b.headers);
      const missing = await inject('GET', `/v1/operations/op_${'Q'.repeat(20)}`, b.headers);
      expect([foreign.statusCode, missing.statusCode]).toEqual([404, 404]);
      const strip = (r: LightMyRequestResponse) => json(r).message.replace(/op_[0-9A-Za-z]+/, 'ID');
      expect(strip(foreign)).toBe(strip(missing));
      expect(Object.keys(json(foreign).details ?? {}).sort()).toEqual(Object.keys(json(missing).details ?? {}).sort());
    });

    it('lists never show another tenant’s data, and nothing of A changed', async () => {
      const merchants = json(await inject('GET', '/v1/merchants', auth(b.apiKey)));
      expect(merchants.data.map((m: any) => m.id)).not.toContain(a.merchantId);
      const operations = await inject('GET', `/v1/operations?register_id=${a.registerId}`, b.headers);
      if (operations.statusCode === 200) expect(json(operations).data).toEqual([]);
      else expectError(operations, 404, 'not_found');
      for (const list of ['/v1/locations', '/v1/registers']) {
        const body = json(await inject('GET', list, b.headers));
        expect(JSON.stringify(body)).not.toContain(a.locationId);
        expect(JSON.stringify(body)).not.toContain(a.registerId);
      }

      const db = t.database.prisma;
      expect((await db.merchant.findUniqueOrThrow({ where: { id: a.merchantId } })).legalName).toBe('Bäckerei Müller GmbH');
      expect((await db.location.findUniqueOrThrow({ where: { id: a.locationId } })).name).toBe('Filiale Mitte');
      expect((await db.location.findUniqueOrThrow({ where: { id: a.orgLocation.id } })).name).toBe('Lager');
      const register = await db.register.findUniqueOrThrow({ where: { id: a.registerId } });
      expect([register.name, register.fiscalizationStatus, register.deviceSimulation, register.decommissionedAt]).toEqual(['Kasse 1', 'fiscalized', 'ok', null]);
      const sale = await db.operation.findUniqueOrThrow({ where: { id: a.sale.id } });
      expect([sale.status, sale.resourceVersion]).toEqual(['completed', 2]);
      const refund = await db.operation.findUniqueOrThrow({ where: { id: a.refund.id } });
      expect(refund.status).toBe('open');
      expect(await db.operation.count({ where: { registerId: a.registerId, merchantId: { not: a.merchantId } } })).toBe(0);
      expect(await db.location.count({ where: { merchantId: a.merchantId } })).toBe(2);
    });
  });

  describe('body limit', () => {
    it('a body over BODY_LIMIT_BYTES is 413 payload_too_large with the envelope, and stores nothing', async () => {
      const limit = t.config.bodyLimitBytes;
      const body = JSON.stringify({ ...saleBody(b.registerId), note: 'n'.repeat(limit) });
      expect(Buffer.byteLength(body)).toBeGreaterThan(limit);
      const before = await t.database.prisma.operation.count();
      const response = await t.app.inject({
        method: 'POST',
        url: '/v1/operations',
        headers: { ...b.headers, 'idempotency-key': idem(), 'content-type': 'application/json' },
        payload: body,
      });
      const error = expectError(response, 413, 'payload_too_large');
      expect(error.retryable).toBe(false);
      expect(await t.database.prisma.operation.count()).toBe(before);
      // Also on routes without a body schema, and before authentication matters.
      expectError(
        await t.app.inject({ method: 'POST', url: `/v1/registers/${b.registerId}/fiscalize`, headers: { ...b.headers, 'content-type': 'application/json' }, payload: 'x'.repeat(limit + 1) }),
        413,
        'payload_too_large',
      );
      expectError(
        await t.app.inject({ method: 'POST', url: '/v1/merchants', headers: { authorization: 'Bearer nope', 'content-type': 'application/json' }, payload: 'x'.repeat(limit + 1) }),
        401,
      );
    });
  });

  describe('hosted receipt tokens', () => {
    const tokenOf = (receipt: any) => new URL(receipt.links.hosted).pathname.split('/').pop()!;

    it('are long random tokens; short, altered or made-up ones are 404 with the envelope, like a missing receipt', async () => {
      const receipt = json(await t.app.inject({ method: 'GET', url: `/v1/receipts/${a.sale.receipt_id}`, headers: a.headers }));
      const token = tokenOf(receipt);
      expect(token).toMatch(/^[0-9A-Za-z]{32}$/); // about 190 bits
      expect(new URL(receipt.links.pdf).pathname).toBe(`/receipts/${token}/pdf`);
      expect((await t.app.inject({ method: 'GET', url: `/receipts/${token}` })).statusCode).toBe(200);
      expect((await t.app.inject({ method: 'GET', url: `/receipts/${token}/pdf` })).statusCode).toBe(200);

      // Another receipt has an unrelated token.
      const other = await createAndCompleteSale(t.app, b);
      const otherToken = tokenOf(json(await t.app.inject({ method: 'GET', url: `/v1/receipts/${other.receipt_id}`, headers: b.headers })));
      expect(otherToken).not.toBe(token);
      let shared = 0;
      while (shared < token.length && token[shared] === otherToken[shared]) shared++;
      expect(shared).toBeLessThan(8);

      const flip = (c: string) => (c === 'a' ? 'b' : 'a');
      const guesses = [
        'a',
        token.slice(0, 8),
        token.slice(0, -1),
        `${token}a`,
        `${token.slice(0, -1)}${flip(token.at(-1)!)}`,
        `${flip(token[0])}${token.slice(1)}`,
        token.toUpperCase() === token ? token.toLowerCase() : token.toUpperCase(),
        'A'.repeat(32),
        '0'.repeat(32),
        a.sale.receipt_id,
        a.sale.id,
        encodeURIComponent(`${token.slice(0, 31)}%`),
        `${token.slice(0, 16)}%2F${token.slice(16)}`,
        'x'.repeat(64),
      ];
      for (const guess of guesses) {
        for (const suffix of ['', '/pdf']) {
          const response = await t.app.inject({ method: 'GET', url: `/receipts/${guess}${suffix}` });
          const what = `/receipts/${guess}${suffix}`;
          expect(response.statusCode, `${what}: ${response.body}`).toBe(404);
          expectEnvelope(404, response.headers, response.body, what);
          expect(response.body).not.toContain('Bäckerei');
        }
      }
    });
  });

  describe('export download links', () => {
    it('work as issued; altered signatures, expiries or job ids are 403, made-up ones never succeed', async () => {
      const url = new URL(a.exportJob.download_url);
      const other = new URL(a.secondExport.download_url);
      const path = url.pathname;
      const get = (pathname: string, query: string) => t.app.inject({ method: 'GET', url: `${pathname}?${query}` });
      const expires = url.searchParams.get('expires')!;
      const signature = url.searchParams.get('signature')!;
      const ok = await get(path, url.searchParams.toString());
      expect(ok.statusCode).toBe(200);
      expect(ok.headers['content-type']).toBe('application/zip');

      const flip = (c: string) => (c === 'A' ? 'B' : 'A');
      const tampered: [string, string, string][] = [
        ['last character of the signature', path, `expires=${expires}&signature=${signature.slice(0, -1)}${flip(signature.at(-1)!)}`],
        ['first character of the signature', path, `expires=${expires}&signature=${flip(signature[0])}${signature.slice(1)}`],
        ['truncated signature', path, `expires=${expires}&signature=${signature.slice(0, 20)}`],
        ['extended expiry', path, `expires=${Number(expires) + 3600}&signature=${signature}`],
        ['far expiry', path, `expires=9999999999&signature=${signature}`],
        ['another job’s signature', path, `expires=${other.searchParams.get('expires')}&signature=${other.searchParams.get('signature')}`],
        ['this signature on another job', other.pathname, `expires=${expires}&signature=${signature}`],
        ['made-up signature', path, `expires=${expires}&signature=${'A'.repeat(signature.length)}`],
      ];
      for (const [what, pathname, query] of tampered) {
        const response = await get(pathname, query);
        expect(response.statusCode, `${what}: ${response.body}`).toBe(403);
        expectEnvelope(403, response.headers, response.body, what);
      }
      // A made-up job id, or a missing or malformed part, never yields the file.
      const guesses: [string, string][] = [
        [`/v1/exports/exp_${'Q'.repeat(20)}/download`, `expires=${expires}&signature=${signature}`],
        [path, `expires=${expires}`],
        [path, `signature=${signature}`],
        [path, ''],
        [path, `expires=abc&signature=${signature}`],
        [path, `expires=${expires}&signature=`],
        [path, `expires=${expires}&signature=${signature}&signature=${signature}`],
      ];
      for (const [pathname, query] of guesses) {
        const response = await get(pathname, query);
        expect([400, 403, 404], `${pathname}?${query}: ${response.body}`).toContain(response.statusCode);
        expectEnvelope(response.statusCode, response.headers, response.body, `${pathname}?${query}`);
      }
    });
  });
});

describe('secrets in logs and responses (a listening server)', () => {
  const ADMIN = 'security-admin-token-5a4b3c2d1e0f';
  const SECRETS_KEY = '5e'.repeat(32);
  const FISCONLINE_PASSWORD = 'Portal-Passwort-Geheim-0815';
  const FISCONLINE_PIN = '73910264';
  const NEW_PASSWORD = 'Neues-Portal-Passwort-4242';
  const BODY_LIMIT = 4096;
  const TIMEOUT = 120_000;

  let server: ChildServer | undefined;
  let dir: ReturnType<typeof tempDir>;
  let database: Awaited<ReturnType<typeof createEmptyPostgresDatabase>> | undefined;
  const responses: FetchResult[] = [];

  beforeAll(async () => {
    dir = tempDir('fiscal-secrets-');
    const env: Record<string, string> = {
      DATA_DIR: dir.path,
      LOG_LEVEL: 'trace',
      ADMIN_TOKEN: ADMIN,
      SECRETS_KEY,
      SEED_DEMO_TENANT: 'false',
      BODY_LIMIT_BYTES: String(BODY_LIMIT),
      EXPORT_WORKER: 'off',
    };
    if (process.env.DATABASE_URL) {
      database = await createEmptyPostgresDatabase();
      env.DATABASE_URL = database.url;
    }
    server = await startServer(env);
  }, TIMEOUT);
  afterAll(async () => {
    await killServer(server);
    await database?.drop();
    dir?.remove();
  });

  /** Every call goes through here, so every response body and header is scanned at the end. */
  async function request(method: string, path: string, options: Parameters<typeof call>[3] = {}) {
    const result = await call(server!.url, method, path, options);
    responses.push(result);
    return result;
  }

  it(
    'never shows API keys, the admin token, SECRETS_KEY, portal secrets or TSE private keys',
    async () => {
      const admin = { authorization: `Bearer ${ADMIN}` };
      const tenant = must(await request('POST', '/admin/v1/tenants', { headers: admin, body: { name: 'Secrets' } }), 201, 'tenant');
      const newKey = async (body: object) =>
        must(await request('POST', `/admin/v1/tenants/${tenant.id}/api-keys`, { headers: admin, body }), 201, 'key').api_key as string;
      const deuKey = await newKey({ kind: 'tenant', country_code: 'DEU' });
      const itaKey = await newKey({ kind: 'tenant', country_code: 'ITA' });
      const platform = await newKey({ kind: 'platform' });
      const keys = [deuKey, itaKey, platform];
      // The keys were shown once (in those admin answers); from here on no response may carry them.
      const shownOnce = responses.length;
      const listed = must(await request('GET', `/admin/v1/tenants/${tenant.id}/api-keys`, { headers: admin }), 200, 'list keys');
      expect(JSON.stringify(listed)).toContain(deuKey.slice(0, 'svc_test_deu_'.length + 4));

      const ita = must(
        await request('POST', '/v1/merchants', {
          headers: { authorization: `Bearer ${itaKey}` },
          body: itaMerchantBody({ password: FISCONLINE_PASSWORD, pin: FISCONLINE_PIN }),
        }),
        201,
        'ITA merchant',
      );
      const itaHeaders = { authorization: `Bearer ${itaKey}` };
      const got = must(await request('GET', `/v1/merchants/${ita.id}`, { headers: itaHeaders }), 200, 'GET ITA merchant');
      expect(got.fiscal_identities[0].fisconline_user).toBe('RSSMRA85T10A562S');
      must(await request('GET', '/v1/merchants', { headers: itaHeaders }), 200, 'list');
      must(
        await request('PATCH', `/v1/merchants/${ita.id}`, {
          headers: itaHeaders,
          body: {
            fiscal_identities: [
              {
                country_code: 'ITA',
                tax_number: '12345678901',
                vat_number: '12345678901',
                legal_entity_type: 'COMPANY',
                fisconline_user: 'RSSMRA85T10A562S',
                fisconline_password: NEW_PASSWORD,
                fisconline_pin: FISCONLINE_PIN,
              },
            ],
          },
        }),
        200,
        'PATCH ITA merchant',
      );
      // A rejected body that carries a secret: the error must not echo it.
      const rejected = await request('POST', '/v1/merchants', {
        headers: itaHeaders,
        body: { legal_name: FISCONLINE_PASSWORD, country_code: 'ITA', unknown_secret: FISCONLINE_PIN },
      });
      expect(rejected.status).toBe(400);

      // A German register is fiscalized: its TSE key pair is made and sealed.
      const deuHeaders = { authorization: `Bearer ${deuKey}` };
      const merchant = must(await request('POST', '/v1/merchants', { headers: deuHeaders, body: deuMerchantBody() }), 201, 'DEU merchant');
      const mh = { ...deuHeaders, 'x-service-merchant': merchant.id };
      const location = must(await request('POST', '/v1/locations', { headers: mh, body: { name: 'Filiale', address: DEU_ADDRESS } }), 201, 'location');
      const register = must(await request('POST', '/v1/registers', { headers: mh, body: { location_id: location.id, name: 'Kasse' } }), 201, 'register');
      must(await request('POST', `/v1/registers/${register.id}/fiscalize`, { headers: mh }), 200, 'fiscalize');
      must(await request('GET', `/v1/registers/${register.id}`, { headers: mh }), 200, 'GET register');
      must(
        await request('POST', '/v1/operations', { headers: { ...mh, 'idempotency-key': 'open' }, body: { type: 'session_open', register_id: register.id } }),
        201,
        'session_open',
      );
      const sale = must(await request('POST', '/v1/operations', { headers: { ...mh, 'idempotency-key': 'sale' }, body: saleBody(register.id) }), 201, 'sale');
      const completed = must(
        await request('POST', `/v1/operations/${sale.id}/complete`, {
          headers: { ...mh, 'idempotency-key': 'complete', 'if-match': '"1"' },
          body: { payments: [{ method: 'cash', amount: '11.90' }] },
        }),
        200,
        'complete',
      );
      const receipt = must(await request('GET', `/v1/receipts/${completed.receipt_id}`, { headers: mh }), 200, 'receipt');
      expect((await request('GET', new URL(receipt.links.hosted).pathname)).status).toBe(200);
      must(await request('GET', `/v1/operations/${sale.id}/receipt`, { headers: { authorization: `Bearer ${platform}`, 'service-organization': merchant.id } }), 200, 'canonical receipt');

      // Failures with credentials in play.
      expect((await request('GET', '/v1/merchants', { headers: { authorization: `Bearer ${deuKey}x` } })).status).toBe(401);
      expect((await request('GET', '/v1/merchants', { headers: { authorization: `Bearer ${ADMIN}` } })).status).toBe(401);
      expect((await request('GET', '/admin/v1/tenants/x/api-keys', { headers: { authorization: `Bearer ${deuKey}` } })).status).toBe(401);
      expect((await request('GET', '/v1/merchants', { headers: { authorization: `Basic ${Buffer.from(`u:${FISCONLINE_PASSWORD}`).toString('base64')}` } })).status).toBe(401);
      expect((await request('GET', `/v1/registers/${register.id}`, { headers: { ...mh, 'x-service-merchant': ita.id } })).status).toBe(403);

      // A body over the limit, sent chunked over a raw connection (no Content-Length to check up front).
      const connection = await openConnection(server!.port);
      const chunk = JSON.stringify({ ...deuMerchantBody(), legal_name: 'x'.repeat(BODY_LIMIT) });
      connection.socket.write(
        `POST /v1/merchants HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${deuKey}\r\nContent-Type: application/json\r\n` +
          `Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n${Buffer.byteLength(chunk).toString(16)}\r\n${chunk}\r\n0\r\n\r\n`,
      );
      const [tooLarge] = parseResponses(await connection.received);
      expect(tooLarge.status).toBe(413);
      expectEnvelope(413, tooLarge.headers, tooLarge.body, 'chunked oversized body');
      expect(JSON.parse(tooLarge.body).code).toBe('payload_too_large');

      // The TSE private key, as the server sealed it.
      const sealedKeys: string[] = [];
      const sealedPortalSecrets: string[] = [];
      if (database) {
        const db = await pgClient(database.url);
        try {
          sealedKeys.push(...(await db.query('SELECT private_key_enc FROM tse_devices')).rows.map((r) => r.private_key_enc as string));
          sealedPortalSecrets.push(...(await db.query('SELECT password_sealed, pin_sealed FROM fiscal_portal_credentials')).rows.flatMap((r) => [r.password_sealed as string, r.pin_sealed as string]));
        } finally {
          await db.end();
        }
      }
      // pino writes asynchronously: stop the server (SIGTERM flushes), then read the embedded database if needed.
      await server!.stop('SIGTERM');
      if (!database) {
        const embedded = await openDatabase({ dataDir: dir.path });
        try {
          sealedKeys.push(...(await embedded.prisma.tseDevice.findMany()).map((d) => d.privateKeyEnc!));
          const credentials = await embedded.prisma.fiscalPortalCredential.findMany();
          sealedPortalSecrets.push(...credentials.flatMap((c) => [c.passwordSealed!, c.pinSealed!]));
        } finally {
          await embedded.close();
        }
      }
      expect(sealedKeys).toHaveLength(1);
      expect(sealedPortalSecrets.length).toBeGreaterThanOrEqual(2);
      const box = new SecretBox(Buffer.from(SECRETS_KEY, 'hex'));
      expect(sealedPortalSecrets.map((s) => box.open(s))).toEqual(expect.arrayContaining([NEW_PASSWORD, FISCONLINE_PIN]));
      const pem = box.open(sealedKeys[0]);
      const privateKey = createPrivateKey(pem);
      const jwk = privateKey.export({ format: 'jwk' });
      const der = privateKey.export({ format: 'der', type: 'pkcs8' });
      const scalar = Buffer.from(jwk.d!, 'base64url');
      const privateForms = [
        pem.replace(/-----[^-]+-----|\s/g, '').slice(0, 64),
        der.toString('hex'),
        der.toString('base64').slice(0, 64),
        jwk.d!,
        scalar.toString('hex'),
        scalar.toString('base64'),
      ];

      const secrets: [string, string][] = [
        ...keys.map((key, i) => [`API key ${i}`, key] as [string, string]),
        ...keys.map((key, i) => [`API key ${i} secret part`, key.slice(key.lastIndexOf('_') + 1)] as [string, string]),
        ['admin token', ADMIN],
        ['SECRETS_KEY', SECRETS_KEY],
        ['SECRETS_KEY base64', Buffer.from(SECRETS_KEY, 'hex').toString('base64')],
        ['fisconline password', FISCONLINE_PASSWORD],
        ['fisconline password (new)', NEW_PASSWORD],
        ['fisconline pin', FISCONLINE_PIN],
        ['fisconline password in Basic credentials', Buffer.from(`u:${FISCONLINE_PASSWORD}`).toString('base64')],
        ...privateForms.map((form, i) => [`TSE private key form ${i}`, form] as [string, string]),
        ...sealedKeys.map((sealed) => ['sealed TSE key', sealed.slice(3, 40)] as [string, string]),
        ...sealedPortalSecrets.map((sealed) => ['sealed portal secret', sealed.slice(3, 40)] as [string, string]),
      ];

      const logs = server!.stdout() + server!.stderr();
      expect(logs.length).toBeGreaterThan(1000); // trace-level logs were written
      const leaks: string[] = [];
      for (const [name, secret] of secrets) {
        if (logs.includes(secret)) leaks.push(`log: ${name}`);
        responses.forEach((response, i) => {
          // The admin answers that issue keys show them once, by design.
          if (i < shownOnce && name.startsWith('API key')) return;
          const headers = JSON.stringify([...response.headers.entries()]);
          if (response.text.includes(secret) || headers.includes(secret)) leaks.push(`response ${i} (${response.status}): ${name}`);
        });
      }
      expect(leaks).toEqual([]);
      expect(logs).not.toMatch(/svc_(test|live|platform)_[a-z_]*[0-9A-Za-z]{22,}/);
      expect(logs.toLowerCase()).not.toContain('"authorization":"bearer');
      // The masked identity is what GET shows.
      expect(JSON.stringify(got.fiscal_identities)).not.toContain(FISCONLINE_PASSWORD);
    },
    TIMEOUT,
  );
});
