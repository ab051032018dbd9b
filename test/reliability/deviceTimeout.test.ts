// A device call abandoned by DEVICE_TIMEOUT_MS must leave nothing behind: no
// TSE log row without its counter, no statement running in autocommit on a
// connection that went back to the pool, and a register that keeps signing
// with gapless counters afterwards. Both reproductions need real row locks
// and a connection pool, so they run on PostgreSQL.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenantWithKey, createTestApp, json, type TestApp } from '../support/testApp.js';
import { runFiscalRetryPass } from '../../src/modules/refunds/fiscalRetry.js';
import { completeOp, createAndCompleteSale, fiscalizedRegisterWithSession, mustCreate, saleBody, type OperationsFixture } from '../support/operations.js';
import { mustRefund, orgAuth, styleOAction } from '../support/styleO.js';

const usesPostgres = Boolean(process.env.DATABASE_URL);
const TIMEOUT_MS = 100;

describe.skipIf(!usesPostgres)(`device calls abandoned at DEVICE_TIMEOUT_MS=${TIMEOUT_MS} (PostgreSQL)`, () => {
  let t: TestApp;
  let fx: OperationsFixture;
  let tseId: string;
  let apiKey: string;

  beforeAll(async () => {
    t = await createTestApp({ DEVICE_TIMEOUT_MS: String(TIMEOUT_MS) });
    const tenant = await createTenantWithKey(t.database, 'DEU');
    apiKey = tenant.apiKey;
    fx = await fiscalizedRegisterWithSession(t.app, apiKey);
    const [row] = await t.database.sql.query<{ device_id: string }>('SELECT device_id FROM registers WHERE id = $1', [fx.registerId]);
    tseId = row.device_id;
  });
  afterAll(() => t.close());

  /** Completes each operation still open (retrying a timed-out one), `concurrency` at a time; every one must end 200. */
  async function completeAll(operations: { id: string }[], concurrency: number) {
    const queue = [...operations];
    const worker = async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        const op = json(await t.app.inject({ method: 'GET', url: `/v1/operations/${next.id}`, headers: fx.headers }));
        if (op.status === 'completed') continue;
        for (let attempt = 0; ; attempt += 1) {
          const response = await completeOp(t.app, fx.headers, op);
          if (response.statusCode === 200) break;
          expect(response.statusCode, response.body).toBe(422);
          expect(attempt).toBeLessThan(20);
        }
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
  }

  /**
   * The device's counters and its log agree, every log row belongs to exactly one
   * completed operation, and the completed operations hold consecutive transaction
   * numbers and signature counters (start = finish - 1) from 1 on.
   */
  async function expectConsistentDevice() {
    const [device] = await t.database.sql.query<{ transaction_counter: string; signature_counter: string }>(
      'SELECT transaction_counter::text, signature_counter::text FROM tse_devices WHERE id = $1',
      [tseId],
    );
    const logs = await t.database.sql.query<{ transaction_number: string; state: string }>(
      'SELECT transaction_number::text, state FROM tse_transactions WHERE tse_id = $1 ORDER BY tse_transactions.transaction_number',
      [tseId],
    );
    const completed = await t.database.sql.query<{ transaction_counter: number; signature_counter: number }>(
      `SELECT (fiscal_information->'end_event'->>'transaction_counter')::int AS transaction_counter,
              (fiscal_information->'end_event'->>'signature_counter')::int AS signature_counter
         FROM operations WHERE register_id = $1 AND status = 'completed' AND fiscal_information IS NOT NULL
        ORDER BY 1`,
      [fx.registerId],
    );
    const count = completed.length;
    expect(Number(device.transaction_counter)).toBe(count);
    expect(Number(device.signature_counter)).toBe(2 * count);
    expect(logs.map((log) => Number(log.transaction_number))).toEqual(Array.from({ length: count }, (_, i) => i + 1));
    expect(logs.every((log) => log.state === 'finished')).toBe(true);
    expect(completed.map((op) => op.transaction_counter)).toEqual(Array.from({ length: count }, (_, i) => i + 1));
    expect(completed.map((op) => op.signature_counter)).toEqual(Array.from({ length: count }, (_, i) => 2 * (i + 1)));
    return count;
  }

  /** Holds the TSE's row lock from another session while `during` runs, then releases it. */
  async function withTseLocked<T>(during: () => Promise<T>): Promise<T> {
    const locker = new pg.Client({ connectionString: t.databaseUrl });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('SELECT id FROM tse_devices WHERE id = $1 FOR UPDATE', [tseId]);
      return await during();
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
    }
  }

  async function createSales(n: number, tag: string) {
    const sales = [];
    for (let i = 0; i < n; i += 1) sales.push(await mustCreate(t.app, fx.headers, saleBody(fx.registerId, { external_id: `${tag}-${i}` })));
    return sales;
  }

  it('40 concurrent completes on one register: timeouts leave no log row behind; 100 more complete gaplessly', async () => {
    const sales = await createSales(40, 'burst');
    const answers = await Promise.all(sales.map((sale) => completeOp(t.app, fx.headers, sale)));
    for (const answer of answers) {
      if (answer.statusCode === 200) continue;
      expect(answer.statusCode, answer.body).toBe(422);
      expect(json(answer).details).toMatchObject({ reason: 'timeout' });
    }
    // Work abandoned on a connection could still land after the answers; give it the chance to.
    await new Promise((resolve) => setTimeout(resolve, 3 * TIMEOUT_MS));
    await expectConsistentDevice();

    await completeAll(sales, 4);
    await completeAll(await createSales(100, 'after-burst'), 2);
    expect(await expectConsistentDevice()).toBe(140);
  });

  it('a TSE row locked elsewhere past the timeout: 422 within the bound, nothing lands after the lock goes', async () => {
    const before = await expectConsistentDevice();
    const sales = await createSales(5, 'locked');
    await withTseLocked(async () => {
      const started = Date.now();
      const answers = await Promise.all(sales.map((sale) => completeOp(t.app, fx.headers, sale)));
      // The abandoned statements are cancelled: the answers do not wait for the lock.
      expect(Date.now() - started).toBeLessThan(1_500);
      for (const answer of answers) {
        expect(answer.statusCode, answer.body).toBe(422);
        expect(json(answer).details).toMatchObject({ phase: 1, reason: 'timeout' });
      }
      await new Promise((resolve) => setTimeout(resolve, 2_000));
    });
    await new Promise((resolve) => setTimeout(resolve, 3 * TIMEOUT_MS));
    expect(await expectConsistentDevice()).toBe(before);
    for (const sale of sales) expect(json(await t.app.inject({ method: 'GET', url: `/v1/operations/${sale.id}`, headers: fx.headers })).status).toBe('open');

    await completeAll(sales, 1);
    await completeAll(await createSales(100, 'after-lock'), 2);
    expect(await expectConsistentDevice()).toBe(before + 105);
  });


  it('a Style O refund signed while the TSE is locked: failed, then signed by the retry, counters intact', async () => {
    const sale = await createAndCompleteSale(t.app, fx);
    const styleO = orgAuth(apiKey, fx.merchantId);
    const refund = await mustRefund(t.app, styleO, fx.registerId, { original_operation_id: sale.id });
    const completed = await withTseLocked(async () => {
      const response = await styleOAction(t.app, styleO, refund.id, 'complete');
      await new Promise((resolve) => setTimeout(resolve, 500));
      return response;
    });
    expect(completed.statusCode, completed.body).toBe(200);
    expect(json(completed)).toMatchObject({ state: 'completed', fiscal_state: 'failed', fiscal: { error: { reason: 'timeout' } } });
    await new Promise((resolve) => setTimeout(resolve, 3 * TIMEOUT_MS));
    const signedBefore = await expectConsistentDevice();

    await runFiscalRetryPass(t.app.ctx, { now: new Date(Date.now() + 3_600_000) });
    const signed = json(await t.app.inject({ method: 'GET', url: `/v1/operations/${refund.id}`, headers: styleO }));
    expect(signed.fiscal_state).toBe('succeeded');
    expect(signed.fiscal.end_event.transaction_counter).toBe(signedBefore + 1);
    expect(await expectConsistentDevice()).toBe(signedBefore + 1);
    await completeAll(await createSales(20, 'after-refund'), 2);
    expect(await expectConsistentDevice()).toBe(signedBefore + 21);
  });
});
