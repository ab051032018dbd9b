// Scale-out (PostgreSQL + Redis): two service instances over one database and one
// Redis take concurrent work on the same registers. TSE counters and sequence
// numbers stay gapless and in order, an Idempotency-Key sent to both instances at
// once yields one operation / one TSE transaction and the same answer from both,
// and the per-key rate limit is one budget across the instances.
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completeOp, createOperation, fiscalize, fiscalizedRegisterWithSession, idem, saleBody, type OperationsFixture } from '../support/operations.js';
import { auth, createPeerApp, createTenantWithKey, createTestApp, expectError, json, type TestApp } from '../support/testApp.js';
import { consecutiveFrom, usesPostgres } from './support.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

describe.skipIf(!usesPostgres)('two instances on one PostgreSQL database and one Redis', () => {
  let t: TestApp;
  let peer: { app: FastifyInstance; close(): Promise<void> };
  let apps: FastifyInstance[];
  let fx: OperationsFixture;
  let registers: string[];

  beforeAll(async () => {
    const env = { REDIS_URL, RATE_LIMIT_PER_SECOND: '100000', EXPORT_WORKER: 'off' };
    t = await createTestApp(env);
    peer = await createPeerApp(t, env);
    apps = [t.app, peer.app];
    const tenant = await createTenantWithKey(t.database, 'DEU');
    fx = await fiscalizedRegisterWithSession(t.app, tenant.apiKey);
    // A second fiscalized register with its own session, in the same location.
    const second = json(
      await t.app.inject({ method: 'POST', url: '/v1/registers', headers: fx.headers, payload: { location_id: fx.locationId, name: 'Kasse 2' } }),
    );
    expect((await fiscalize(t.app, fx.headers, second.id)).statusCode).toBe(200);
    const opened = await createOperation(t.app, fx.headers, { type: 'session_open', register_id: second.id, opening_amount: '50.00' });
    expect(opened.statusCode).toBe(201);
    registers = [fx.registerId, second.id];
  });
  afterAll(async () => {
    await peer?.close();
    await t?.close();
  });

  async function tseOf(registerId: string) {
    const register = await t.database.prisma.register.findUniqueOrThrow({ where: { id: registerId } });
    const device = await t.database.prisma.tseDevice.findUniqueOrThrow({ where: { id: register.deviceId! } });
    const transactions = await t.database.prisma.tseTransaction.findMany({ where: { tseId: device.id }, orderBy: { transactionNumber: 'asc' } });
    return { device, transactions };
  }

  /** Per register: sequence numbers 1..n, TSE transactions 1..m, signature counters gapless and in transaction order. */
  async function expectHonestRegisters() {
    for (const registerId of registers) {
      const operations = await t.database.prisma.operation.findMany({ where: { registerId } });
      expect(consecutiveFrom(operations.map((op) => op.sequenceNumber!), 1), `sequence of ${registerId}`).toBe(true);
      const completedSales = operations.filter((op) => op.type === 'sale' && op.status === 'completed');

      const { device, transactions } = await tseOf(registerId);
      expect(transactions).toHaveLength(completedSales.length);
      expect(transactions.map((tx) => Number(tx.transactionNumber))).toEqual(transactions.map((_, i) => i + 1));
      const counters = transactions.flatMap((tx) => [Number(tx.startSignatureCounter), Number(tx.finishSignatureCounter)]);
      // Strictly increasing in transaction order: start < finish < next start.
      counters.forEach((value, i) => i > 0 && expect(value).toBeGreaterThan(counters[i - 1]));
      expect(consecutiveFrom(counters, counters[0])).toBe(true);
      expect(transactions.every((tx) => tx.state === 'finished')).toBe(true);
      expect(Number(device.transactionCounter)).toBe(transactions.length);
      expect(Number(device.signatureCounter)).toBe(counters.at(-1));

      // Every completed sale holds its own transaction, as signed.
      const used = completedSales.map((op) => (op.fiscalInformation as any).end_event.transaction_counter as number);
      expect(new Set(used).size).toBe(completedSales.length);
      const receipts = await t.database.prisma.receipt.count({ where: { operationId: { in: completedSales.map((op) => op.id) } } });
      expect(receipts).toBe(completedSales.length);
    }
  }

  it('concurrent creates and completes on two registers across both instances keep the counters strictly ordered', async () => {
    const N = 30; // per register
    const jobs = Array.from({ length: 2 * N }, (_, i) => ({ app: apps[i % 2], registerId: registers[Math.floor(i / 2) % 2], i }));
    const created = await Promise.all(
      jobs.map((job) => createOperation(job.app, fx.headers, saleBody(job.registerId, { external_id: `scale-${job.i}` }))),
    );
    expect(created.map((r) => r.statusCode)).toEqual(Array(2 * N).fill(201));
    // Complete each on the other instance than created it.
    const completed = await Promise.all(created.map((r, i) => completeOp(apps[(i + 1) % 2], fx.headers, json(r))));
    expect(completed.filter((r) => r.statusCode !== 200).map((r) => r.body)).toEqual([]);
    await expectHonestRegisters();
  });

  it('one Idempotency-Key sent to both instances at once: one operation, one TSE transaction, identical answers', async () => {
    const K = 12;
    // Creates: the same key and body on both instances at the same moment.
    const createPairs = await Promise.all(
      Array.from({ length: K }, async (_, i) => {
        const key = idem();
        const payload = saleBody(registers[i % 2], { external_id: `dup-${i}` });
        const send = (app: FastifyInstance) =>
          app.inject({ method: 'POST', url: '/v1/operations', headers: { ...fx.headers, 'idempotency-key': key }, payload });
        return Promise.all([send(apps[0]), send(apps[1])]);
      }),
    );
    expectOneWinner(createPairs, 201);
    for (let i = 0; i < K; i++) {
      expect(await t.database.prisma.operation.count({ where: { merchantId: fx.merchantId, externalId: `dup-${i}` } })).toBe(1);
    }

    // Completes: the same key, body and If-Match on both instances at the same moment.
    const operations = createPairs.map(([first]) => json(first));
    const completePairs = await Promise.all(
      operations.map(async (op) => {
        const key = idem();
        const send = (app: FastifyInstance) =>
          app.inject({
            method: 'POST',
            url: `/v1/operations/${op.id}/complete`,
            headers: { ...fx.headers, 'idempotency-key': key, 'if-match': '"1"' },
            payload: { payments: [{ payment_id: 'p', method: 'cash', amount: op.total_amount, currency: 'EUR', status: 'captured' }] },
          });
        return Promise.all([send(apps[0]), send(apps[1])]);
      }),
    );
    expectOneWinner(completePairs, 200);
    for (const [i, op] of operations.entries()) {
      const stored = await t.database.prisma.operation.findUniqueOrThrow({ where: { id: op.id } });
      expect(stored.status).toBe('completed');
      expect(stored.resourceVersion).toBe(2);
      expect(await t.database.prisma.receipt.count({ where: { operationId: op.id } })).toBe(1);
      expect((stored.fiscalInformation as any).end_event.transaction_counter).toBe(json(completePairs[i][0]).fiscal_information.end_event.transaction_counter);
    }
    await expectHonestRegisters();
  });

  function expectOneWinner(pairs: LightMyRequestResponse[][], status: number) {
    for (const [a, b] of pairs) {
      expect([a.statusCode, b.statusCode], `${a.body}\n${b.body}`).toEqual([status, status]);
      expect(json(a)).toEqual(json(b));
      // Exactly one of the two executed; the other replayed its answer.
      const replayed = [a, b].filter((r) => r.headers['idempotent-replayed'] === 'true');
      expect(replayed).toHaveLength(1);
    }
  }

  describe('rate limit shared through Redis', () => {
    const LIMIT = 20;
    let a: { app: FastifyInstance; close(): Promise<void> };
    let b: { app: FastifyInstance; close(): Promise<void> };

    beforeAll(async () => {
      a = await createPeerApp(t, { REDIS_URL, RATE_LIMIT_PER_SECOND: String(LIMIT), EXPORT_WORKER: 'off' });
      b = await createPeerApp(t, { REDIS_URL, RATE_LIMIT_PER_SECOND: String(LIMIT), EXPORT_WORKER: 'off' });
    });
    afterAll(async () => {
      await a?.close();
      await b?.close();
    });

    const list = (app: FastifyInstance, apiKey: string) => app.inject({ method: 'GET', url: '/v1/merchants', headers: auth(apiKey) });

    /**
     * Runs `burst` with a fresh key (its own Redis counter) until it fits in one
     * one-second window (the budget's fixed window starts at the key's first request).
     */
    async function inOneWindow<T>(burst: (apiKey: string) => Promise<T>): Promise<T> {
      for (let attempt = 0; ; attempt++) {
        const { apiKey } = await createTenantWithKey(t.database);
        const started = Date.now();
        const result = await burst(apiKey);
        if (Date.now() - started < 900) return result;
        if (attempt === 2) throw new Error('the burst never fit into one rate-limit window');
      }
    }

    it('requests alternating between the instances are refused on both once the combined count passes the budget', async () => {
      const statuses = await inOneWindow(async (apiKey) => {
        const responses: { instance: string; response: LightMyRequestResponse }[] = [];
        for (let i = 0; i < LIMIT + 10; i++) {
          const instance = i % 2 === 0 ? 'a' : 'b';
          responses.push({ instance, response: await list((instance === 'a' ? a : b).app, apiKey) });
        }
        return responses;
      });
      expect(statuses.slice(0, LIMIT).map((s) => s.response.statusCode)).toEqual(Array(LIMIT).fill(200));
      for (const { response } of statuses.slice(LIMIT)) {
        expectError(response, 429, 'rate_limit_exceeded');
        expect(Number(response.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      }
      // Each instance alone saw only LIMIT/2 + 5 requests, under its budget: the 429s come from the shared count.
      expect(new Set(statuses.slice(LIMIT).map((s) => s.instance))).toEqual(new Set(['a', 'b']));
    });

    it('a concurrent burst split over both instances lets exactly the budget through', async () => {
      const responses = await inOneWindow((apiKey) =>
        Promise.all(Array.from({ length: 2 * LIMIT }, (_, i) => list((i % 2 === 0 ? a : b).app, apiKey))),
      );
      const ok = responses.filter((r) => r.statusCode === 200);
      const limited = responses.filter((r) => r.statusCode === 429);
      expect(ok).toHaveLength(LIMIT);
      expect(limited).toHaveLength(LIMIT);
      for (const response of limited) expectError(response, 429, 'rate_limit_exceeded');
    });
  });
});
