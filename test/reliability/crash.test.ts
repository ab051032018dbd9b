// Crash safety (PostgreSQL): a server killed with SIGKILL while completes are in
// flight loses nothing it acknowledged and stores nothing twice. After a restart on
// the same database, every acknowledged complete is stored exactly once (one
// receipt, one TSE transaction), retries under the same Idempotency-Key replay
// the acknowledged responses and complete the rest, and TSE transaction numbers,
// signature counters and the register's sequence numbers stay gapless and unique.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmptyPostgresDatabase, startServer, tempDir, type ChildServer } from '../support/processes.js';
import { call, consecutiveFrom, httpFixture, killServer, must, pgClient, saleBody, usesPostgres, type FetchResult } from './support.js';

const TIMEOUT = 120_000;
const N = 60;
const KILL_AFTER = 15;
const ADMIN = 'crash-test-admin-token-0123456789';

describe.skipIf(!usesPostgres)('SIGKILL during concurrent completes (PostgreSQL)', () => {
  let server: ChildServer | undefined;
  let database: Awaited<ReturnType<typeof createEmptyPostgresDatabase>>;
  let dir: ReturnType<typeof tempDir>;
  let env: Record<string, string>;

  beforeAll(async () => {
    dir = tempDir('fiscal-crash-');
    database = await createEmptyPostgresDatabase();
    env = {
      DATABASE_URL: database.url,
      DATA_DIR: dir.path,
      ADMIN_TOKEN: ADMIN,
      // Both runs must open the same sealed TSE key.
      SECRETS_KEY: 'cd'.repeat(32),
      SEED_DEMO_TENANT: 'false',
      EXPORT_WORKER: 'off',
      LOG_LEVEL: 'warn',
    };
    server = await startServer(env);
  }, TIMEOUT);

  afterAll(async () => {
    await killServer(server);
    await database?.drop();
    dir?.remove();
  });

  it(
    'keeps every acknowledged complete exactly once and completes the rest on retry',
    async () => {
      const fx = await httpFixture(server!.url, ADMIN);
      const operations: { id: string; total_amount: string }[] = [];
      for (let i = 0; i < N; i++) {
        operations.push(
          must(
            await call(server!.url, 'POST', '/v1/operations', {
              headers: { ...fx.headers, 'idempotency-key': `crash-create-${i}` },
              body: saleBody(fx.registerId, { external_id: `crash-${i}` }),
            }),
            201,
            `create ${i}`,
          ),
        );
      }

      const completeRequest = (i: number) => ({
        headers: { ...fx.headers, 'idempotency-key': `crash-complete-${i}`, 'if-match': '"1"' },
        body: { payments: [{ payment_id: `p-${i}`, method: 'cash', amount: operations[i].total_amount, currency: 'EUR', status: 'captured' }] },
      });

      // All completes at once; SIGKILL once KILL_AFTER answers are in.
      const answered = new Map<number, FetchResult>();
      const failed = new Set<number>();
      const first = server!;
      let killed = false;
      let killing: Promise<void> | undefined;
      const inFlight = operations.map((op, i) =>
        call(first.url, 'POST', `/v1/operations/${op.id}/complete`, completeRequest(i)).then(
          (result) => {
            // An answer that arrived is acknowledged, even one read after the kill.
            answered.set(i, result);
            if (answered.size >= KILL_AFTER && !killed) {
              killed = true;
              killing = killServer(first);
            }
          },
          () => void failed.add(i),
        ),
      );
      await Promise.all(inFlight);
      await killing;
      expect(killed).toBe(true);
      // The crash must have hit requests in flight, or this test proves nothing.
      expect(failed.size).toBeGreaterThan(0);
      expect(answered.size + failed.size).toBe(N);
      for (const [i, result] of answered) expect(result.status, `complete ${i}: ${result.text}`).toBe(200);
      const acknowledged = [...answered.keys()];

      server = await startServer(env);
      const db = await pgClient(database.url);
      try {
        // Every acknowledged complete is stored once: completed, one receipt, its TSE transaction finished.
        for (const i of acknowledged) {
          const op = operations[i];
          const body = answered.get(i)!.body;
          const { rows } = await db.query('SELECT status, resource_version, receipt_id, fiscal_information FROM operations WHERE id = $1', [op.id]);
          expect(rows[0].status).toBe('completed');
          expect(rows[0].resource_version).toBe(2);
          expect(rows[0].receipt_id).toBe(body.receipt_id);
          const receipts = await db.query('SELECT id FROM receipts WHERE operation_id = $1', [op.id]);
          expect(receipts.rows.map((r) => r.id)).toEqual([body.receipt_id]);
          expect(rows[0].fiscal_information.end_event.transaction_counter).toBe(body.fiscal_information.end_event.transaction_counter);
          expect(rows[0].fiscal_information.end_event.signature).toBe(body.fiscal_information.end_event.signature);
          const keys = await db.query('SELECT response_status FROM idempotency_keys WHERE key = $1', [`crash-complete-${i}`]);
          expect(keys.rows).toEqual([{ response_status: 200 }]);
        }

        // Retries: the acknowledged ones replay their original answer, the others complete now (or
        // replay a completion that committed while its answer was lost in the crash).
        const retries = await Promise.all(
          operations.map((op, i) => call(server!.url, 'POST', `/v1/operations/${op.id}/complete`, completeRequest(i))),
        );
        retries.forEach((retry, i) => expect(retry.status, `retry ${i}: ${retry.text}`).toBe(200));
        for (const i of acknowledged) {
          expect(retries[i].headers.get('idempotent-replayed'), `retry ${i}`).toBe('true');
          expect(retries[i].body).toEqual(answered.get(i)!.body);
        }
        const freshlyCompleted = retries.filter((r) => r.headers.get('idempotent-replayed') !== 'true').length;
        expect(freshlyCompleted).toBeGreaterThan(0);
        // A second round replays everything.
        const again = await Promise.all(
          operations.map((op, i) => call(server!.url, 'POST', `/v1/operations/${op.id}/complete`, completeRequest(i))),
        );
        again.forEach((retry, i) => {
          expect(retry.headers.get('idempotent-replayed')).toBe('true');
          expect(retry.body).toEqual(retries[i].body);
        });

        // Whole database: one receipt and one TSE transaction per completed operation, nothing more.
        const ops = (
          await db.query(
            `SELECT id, status, sequence_number, receipt_id, fiscal_information FROM operations WHERE register_id = $1 ORDER BY sequence_number`,
            [fx.registerId],
          )
        ).rows;
        const sales = ops.filter((op) => operations.some((o) => o.id === op.id));
        expect(sales).toHaveLength(N);
        expect(sales.every((op) => op.status === 'completed')).toBe(true);
        // The register's sequence numbers: session_open + N sales, 1..N+1.
        expect(ops.map((op) => op.sequence_number)).toEqual(Array.from({ length: N + 1 }, (_, i) => i + 1));

        const receipts = (await db.query('SELECT operation_id FROM receipts')).rows.map((r) => r.operation_id);
        expect(receipts.sort()).toEqual(sales.map((op) => op.id).sort());

        const device = (
          await db.query('SELECT d.id, d.transaction_counter, d.signature_counter FROM tse_devices d JOIN registers r ON r.device_id = d.id WHERE r.id = $1', [
            fx.registerId,
          ])
        ).rows[0];
        const transactions = (
          await db.query(
            'SELECT transaction_number, state, start_signature_counter, finish_signature_counter FROM tse_transactions WHERE tse_id = $1',
            [device.id],
          )
        ).rows.map((row) => ({
          number: Number(row.transaction_number),
          state: row.state as string,
          start: Number(row.start_signature_counter),
          finish: Number(row.finish_signature_counter),
        }));
        // Only the sales are signed here (opening a session signs nothing), each once.
        expect(transactions).toHaveLength(N);
        expect(transactions.every((t) => t.state === 'finished')).toBe(true);
        const numbers = transactions.map((t) => t.number);
        expect(consecutiveFrom(numbers, 1)).toBe(true);
        const signatureCounters = transactions.flatMap((t) => [t.start, t.finish]);
        expect(new Set(signatureCounters).size).toBe(2 * N);
        expect(consecutiveFrom(signatureCounters, Math.min(...signatureCounters))).toBe(true);
        expect(Number(device.transaction_counter)).toBe(Math.max(...numbers));
        expect(Number(device.signature_counter)).toBe(Math.max(...signatureCounters));

        // Each completed sale points at its own TSE transaction, and its published counters are the stored ones.
        const byNumber = new Map(transactions.map((t) => [t.number, t]));
        const used = sales.map((op) => op.fiscal_information.end_event.transaction_counter as number);
        expect(new Set(used).size).toBe(N);
        for (const op of sales) {
          const end = op.fiscal_information.end_event;
          expect(byNumber.get(end.transaction_counter)?.finish).toBe(end.signature_counter);
        }
        // Transaction order agrees with signature-counter order (strictly increasing together).
        const ordered = [...transactions].sort((a, b) => a.number - b.number);
        ordered.forEach((t, i) => {
          expect(t.start).toBeLessThan(t.finish);
          if (i > 0) expect(t.start).toBeGreaterThan(ordered[i - 1].start);
        });
      } finally {
        await db.end();
      }
    },
    TIMEOUT,
  );
});
