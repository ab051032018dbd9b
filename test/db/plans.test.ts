// The statements every request runs keep their plan shape whatever the tables' statistics:
// a prepared statement's generic plan is chosen once per connection, often while a table is
// still small, and is kept as the table grows (with autovacuum off, no ANALYZE ever replans it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEY_MERCHANT_AND_STORED_RESPONSE } from '../../src/http/auth.js';
import { createTestDatabase, type TestDatabase } from '../support/databases.js';

let t: TestDatabase;

beforeAll(async () => {
  t = await createTestDatabase();
});

afterAll(() => t.drop());

/** The generic plan of `text` (the one a prepared statement settles on), as EXPLAIN prints it. */
async function genericPlan(text: string, params: readonly string[], { withoutSeqScan = false } = {}): Promise<string> {
  return t.database.sql.transaction(async (sql) => {
    await sql.query(`SET LOCAL plan_cache_mode = force_generic_plan`);
    if (withoutSeqScan) await sql.query(`SET LOCAL enable_seqscan = off`);
    await sql.query(`PREPARE probe AS ${text}`);
    try {
      const rows = await sql.query<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE probe(${params.map((p) => `'${p}'`).join(', ')})`);
      return rows.map((row) => row['QUERY PLAN']).join('\n');
    } finally {
      await sql.query(`DEALLOCATE probe`);
    }
  });
}

describe('plans of the per-request statements', () => {
  it("the key lookup probes the Idempotency-Key by its whole unique key, the tenant taken from the key's row", async () => {
    const plan = await genericPlan(KEY_MERCHANT_AND_STORED_RESPONSE, ['hash', 'mer_1', 'POST /v1/operations', 'key-1']);
    expect(plan).not.toMatch(/Seq Scan on idempotency_keys/);
    expect(plan).toMatch(/Index Scan using idempotency_keys_pkey on idempotency_keys[\s\S]*Index Cond: \(\(tenant_id = k\.tenant_id\) AND/);
  });

  // Both indexes keep only the rows that have a value; a lookup of a value implies that, so the
  // planner can still use them (shown with sequential scans off, as on a large table).
  it("the lookups of an original's returns and of the refunds to sign again use their partial indexes", async () => {
    const returns = await genericPlan(`SELECT id FROM operations WHERE related_operation_id = $1 AND type IN ('return', 'refund')`, ['op_1'], { withoutSeqScan: true });
    expect(returns).toMatch(/operations_related_operation_id_idx/);
    const retries = await genericPlan(
      `SELECT id FROM operations WHERE type = 'refund' AND status = 'completed' AND fiscal_state IN ('failed', 'pending')
          AND (fiscal_retry_at IS NULL OR fiscal_retry_at <= $1::timestamptz) ORDER BY fiscal_retry_at ASC NULLS FIRST, id LIMIT 1`,
      ['2026-11-28T00:00:00Z'],
      { withoutSeqScan: true },
    );
    expect(retries).toMatch(/operations_fiscal_state_fiscal_retry_at_idx/);
  });
});
