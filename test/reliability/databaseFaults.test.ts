// Database faults (PostgreSQL): the service's connections are terminated while
// requests run, and its database is made unreachable for a while. Requests during
// the fault fail with 503 service_unavailable (Retry-After) and never with a wrong success
// (every 2xx is stored, every failed complete left its operation open), /readyz is
// 503 while the database is unreachable, and the service recovers by itself.
// The shared PostgreSQL server is never stopped: only this test's database is
// disturbed (pg_terminate_backend, ALLOW_CONNECTIONS false).
import type { LightMyRequestResponse } from 'fastify';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fiscalizedRegisterWithSession, idem, saleBody, type OperationsFixture } from '../support/operations.js';
import { createTenantWithKey, createTestApp, json, type TestApp } from '../support/testApp.js';
import { consecutiveFrom, expectEnvelope, pgClient, usesPostgres } from './support.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!usesPostgres)('database faults (PostgreSQL)', () => {
  let t: TestApp;
  let fx: OperationsFixture;
  let admin: pg.Client;
  let dbName: string;

  beforeAll(async () => {
    t = await createTestApp({ EXPORT_WORKER: 'off' });
    dbName = new URL(t.databaseUrl!).pathname.slice(1);
    admin = await pgClient(process.env.DATABASE_URL!);
    const tenant = await createTenantWithKey(t.database, 'DEU');
    fx = await fiscalizedRegisterWithSession(t.app, tenant.apiKey);
  });
  afterAll(async () => {
    await admin?.query(`ALTER DATABASE ${dbName} ALLOW_CONNECTIONS true`).catch(() => undefined);
    await admin?.end();
    await t?.close();
  });

  const terminate = async () =>
    (
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [dbName])
    ).rowCount ?? 0;

  /** A failure during a fault says so: 503 service_unavailable with the envelope and Retry-After, never a 500. */
  function expectRetryableFailure(response: LightMyRequestResponse, what: string) {
    expect(response.statusCode, `${what}: ${response.body}`).toBe(503);
    const body = expectEnvelope(response.statusCode, response.headers, response.body, what);
    expect(body.code, what).toBe('service_unavailable');
    expect(body.retryable).toBe(true);
    expect(response.headers['retry-after'], `${what} retry-after`).toBe('1');
  }

  const createSale = (key: string, externalId: string) =>
    t.app.inject({
      method: 'POST',
      url: '/v1/operations',
      headers: { ...fx.headers, 'idempotency-key': key },
      payload: saleBody(fx.registerId, { external_id: externalId }),
    });
  const complete = (op: { id: string; total_amount: string }, key: string) =>
    t.app.inject({
      method: 'POST',
      url: `/v1/operations/${op.id}/complete`,
      headers: { ...fx.headers, 'idempotency-key': key, 'if-match': '"1"' },
      payload: { payments: [{ payment_id: 'p', method: 'cash', amount: op.total_amount, currency: 'EUR', status: 'captured' }] },
    });

  it('connections terminated under load: failures are 503 service_unavailable, successes are stored, retries complete everything', async () => {
    const M = 40;
    const opened: { id: string; total_amount: string }[] = [];
    for (let i = 0; i < M; i++) {
      const created = await createSale(idem(), `fault-pre-${i}`);
      expect(created.statusCode).toBe(201);
      opened.push(json(created));
    }

    // Traffic: completes of the open sales and new creates, four at a time, while the
    // service's connections are terminated every 100 ms.
    const completes = opened.map((op, i) => ({ op, key: `fault-complete-${i}`, response: undefined as LightMyRequestResponse | undefined }));
    const creates = Array.from({ length: M }, (_, i) => ({ key: `fault-create-${i}`, externalId: `fault-new-${i}`, response: undefined as LightMyRequestResponse | undefined }));
    let stop = false;
    let terminated = 0;
    const killer = (async () => {
      while (!stop) {
        terminated += await terminate();
        await sleep(100);
      }
    })();
    const queue: (() => Promise<void>)[] = [];
    completes.forEach((c, i) => {
      queue.push(async () => void (c.response = await complete(c.op, c.key)));
      queue.push(async () => void (creates[i].response = await createSale(creates[i].key, creates[i].externalId)));
    });
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let job = queue.shift(); job; job = queue.shift()) await job();
      }),
    );
    stop = true;
    await killer;
    expect(terminated).toBeGreaterThan(0);

    const all = [...completes.map((c) => ({ what: `complete ${c.key}`, r: c.response! })), ...creates.map((c) => ({ what: `create ${c.key}`, r: c.response! }))];
    const failures = all.filter(({ r }) => r.statusCode >= 300);
    for (const { what, r } of failures) expectRetryableFailure(r, what);
    // The fault hit some requests, and the service kept serving others between the faults.
    expect(failures.length).toBeGreaterThan(0);
    expect(failures.length).toBeLessThan(all.length);

    // Never a wrong success: each 2xx is stored as answered; each failed request changed nothing.
    // One outcome no service can rule out: the connection dies after PostgreSQL committed but
    // before it acknowledged the commit. The client then holds a retryable 5xx for a change that
    // is stored, and the retry with the same key must replay exactly that change (checked below).
    const db = t.database.prisma;
    const committedUnacknowledged = new Set<string>();
    for (const c of completes) {
      const stored = await db.operation.findUniqueOrThrow({ where: { id: c.op.id } });
      const receipts = await db.receipt.count({ where: { operationId: c.op.id } });
      if (c.response!.statusCode === 200) {
        const body = json(c.response!);
        expect(stored.status).toBe('completed');
        expect(stored.receiptId).toBe(body.receipt_id);
        expect(receipts).toBe(1);
        expect((stored.fiscalInformation as any).end_event.signature).toBe(body.fiscal_information.end_event.signature);
      } else if (stored.status === 'completed') {
        committedUnacknowledged.add(c.key);
        expect(receipts).toBe(1);
      } else {
        expect(stored.status, `${c.key} failed with ${c.response!.statusCode}`).toBe('open');
        expect(stored.resourceVersion).toBe(1);
        expect(stored.fiscalInformation).toBeNull();
        expect(receipts).toBe(0);
      }
    }
    for (const c of creates) {
      const stored = await db.operation.findMany({ where: { merchantId: fx.merchantId, externalId: c.externalId } });
      if (c.response!.statusCode === 201) {
        expect(stored.map((op) => op.id)).toEqual([json(c.response!).id]);
      } else if (stored.length) {
        committedUnacknowledged.add(c.key);
        expect(stored).toHaveLength(1);
      }
    }
    // That window is microseconds wide; more than a stray case would mean failures that do commit.
    expect(committedUnacknowledged.size).toBeLessThanOrEqual(1);
    // Every TSE transaction belongs to a stored completion: failed completes signed nothing that stuck.
    const completedSales = await db.operation.findMany({ where: { registerId: fx.registerId, type: 'sale', status: 'completed' } });
    const register = await db.register.findUniqueOrThrow({ where: { id: fx.registerId } });
    const transactions = await db.tseTransaction.findMany({ where: { tseId: register.deviceId! } });
    expect(transactions).toHaveLength(completedSales.length);

    // Recovery without a restart: the same requests, retried with their keys, all succeed now.
    for (const c of completes.filter((c) => c.response!.statusCode !== 200)) {
      const retry = await complete(c.op, c.key);
      expect(retry.statusCode, retry.body).toBe(200);
      if (committedUnacknowledged.has(c.key)) {
        expect(retry.headers['idempotent-replayed']).toBe('true');
        expect(json(retry).receipt_id).toBe((await db.operation.findUniqueOrThrow({ where: { id: c.op.id } })).receiptId);
      } else {
        expect(retry.headers['idempotent-replayed']).toBeUndefined();
      }
    }
    for (const c of completes.filter((c) => c.response!.statusCode === 200)) {
      const retry = await complete(c.op, c.key);
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(json(retry)).toEqual(json(c.response!));
    }
    for (const c of creates.filter((c) => c.response!.statusCode !== 201)) {
      const retry = await createSale(c.key, c.externalId);
      expect(retry.statusCode, retry.body).toBe(201);
      expect(retry.headers['idempotent-replayed']).toBe(committedUnacknowledged.has(c.key) ? 'true' : undefined);
      expect(await db.operation.count({ where: { merchantId: fx.merchantId, externalId: c.externalId } })).toBe(1);
    }
    // Counters and sequence numbers stay gapless through it all.
    const operations = await db.operation.findMany({ where: { registerId: fx.registerId } });
    expect(consecutiveFrom(operations.map((op) => op.sequenceNumber!), 1)).toBe(true);
    const finalTransactions = await db.tseTransaction.findMany({ where: { tseId: register.deviceId! } });
    expect(finalTransactions).toHaveLength(M);
    expect(consecutiveFrom(finalTransactions.map((tx) => Number(tx.transactionNumber)), 1)).toBe(true);
    const counters = finalTransactions.flatMap((tx) => [Number(tx.startSignatureCounter), Number(tx.finishSignatureCounter)]);
    expect(consecutiveFrom(counters, Math.min(...counters))).toBe(true);
  });

  it('/readyz is 503 while the database refuses connections, and the service recovers by itself', async () => {
    await admin.query(`ALTER DATABASE ${dbName} ALLOW_CONNECTIONS false`);
    try {
      await terminate();
      const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode, ready.body).toBe(503);
      const body = expectEnvelope(503, ready.headers, ready.body, 'readyz');
      expect(body.code).toBe('service_unavailable');
      expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);

      // API calls during the outage: the retryable envelope, nothing stored.
      const during = await createSale('outage-create', 'outage-1');
      expectRetryableFailure(during, 'create during outage');
      const list = await t.app.inject({ method: 'GET', url: '/v1/registers', headers: fx.headers });
      expectRetryableFailure(list, 'list during outage');
    } finally {
      await admin.query(`ALTER DATABASE ${dbName} ALLOW_CONNECTIONS true`);
    }

    // No restart: the next calls reconnect.
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode, ready.body).toBe(200);
    expect(json(ready)).toEqual({ status: 'ready', database: 'ok' });
    const created = await createSale('outage-create', 'outage-1');
    expect(created.statusCode, created.body).toBe(201);
    expect(created.headers['idempotent-replayed']).toBeUndefined();
    const completed = await complete(json(created), idem());
    expect(completed.statusCode, completed.body).toBe(200);
    expect(await t.database.prisma.operation.count({ where: { merchantId: fx.merchantId, externalId: 'outage-1' } })).toBe(1);
  });
});
