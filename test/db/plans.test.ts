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
async function genericPlan(text: string, params: readonly string[]): Promise<string> {
  return t.database.sql.transaction(async (sql) => {
    await sql.query(`SET LOCAL plan_cache_mode = force_generic_plan`);
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
    expect(plan).toMatch(/Index Scan using idempotency_keys_tenant_id_merchant_scope_endpoint_key_key on idempotency_keys[\s\S]*Index Cond: \(\(tenant_id = k\.tenant_id\) AND/);
  });
});
