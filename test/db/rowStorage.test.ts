// The tables every signed mutation writes keep a row of up to a page as it is (toast_tuple_target):
// PostgreSQL otherwise compresses any row over 2 kB with pglz, 5 % of its CPU under load.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/databases.js';

let t: TestDatabase;

beforeAll(async () => {
  t = await createTestDatabase();
});

afterAll(() => t.drop());

const WRITTEN_PER_MUTATION = ['operations', 'receipts', 'events', 'idempotency_keys'];

describe('row storage of the tables written per mutation', () => {
  it('each keeps rows of up to a page inline, uncompressed', async () => {
    const rows = await t.database.sql.query<{ relname: string; reloptions: string[] | null }>(
      'SELECT relname, reloptions FROM pg_class WHERE relname = ANY($1::text[]) ORDER BY relname',
      [WRITTEN_PER_MUTATION],
    );
    expect(rows.map((row) => row.relname)).toEqual([...WRITTEN_PER_MUTATION].sort());
    for (const row of rows) expect(row.reloptions, row.relname).toContain('toast_tuple_target=8160');
  });

  it('an event of 6 kB is stored as written; one over a page is still compressed', async () => {
    const payload = (size: number) => JSON.stringify({ object: { note: 'x'.repeat(size) } });
    await t.database.sql.query(
      `INSERT INTO events (id, merchant_id, type, data) VALUES ('evt_inline', 'mer_x', 'probe', $1::json), ('evt_large', 'mer_x', 'probe', $2::json)`,
      [payload(6000), payload(20000)],
    );
    const stored = await t.database.sql.query<{ id: string; compression: string | null }>(
      "SELECT id, pg_column_compression(data) AS compression FROM events WHERE id IN ('evt_inline', 'evt_large') ORDER BY id",
    );
    expect(stored).toEqual([
      { id: 'evt_inline', compression: null },
      { id: 'evt_large', compression: 'pglz' },
    ]);
  });

  it('stores the documents it never looks into as json, which PostgreSQL checks but does not convert', async () => {
    const columns = await t.database.sql.query<{ column: string; type: string }>(
      `SELECT table_name || '.' || column_name AS column, data_type AS type FROM information_schema.columns
        WHERE table_schema = current_schema() AND table_name = ANY($1::text[]) AND data_type IN ('json', 'jsonb') ORDER BY 1`,
      [[...WRITTEN_PER_MUTATION, 'rt_documents']],
    );
    expect(columns.length).toBeGreaterThanOrEqual(17);
    expect(columns.filter((column) => column.type !== 'json')).toEqual([]);
  });
});
