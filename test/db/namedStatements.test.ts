import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { assertWritten, isNothingWritten, postgresSql, RolledBackAtCommitError, type SqlDatabase } from '../../src/db/sql.js';
import { createTestDatabase, type TestDatabase } from '../support/databases.js';

// A transaction's statements go to PostgreSQL under one Sync once its connection has prepared them
// (src/db/namedStatements.ts): one answer from the server a batch, not one a statement.
describe.runIf(process.env.DATABASE_URL)('prepared batches (PostgreSQL)', () => {
  let t: TestDatabase;
  let pool: pg.Pool;
  let sql: SqlDatabase;
  let syncs = 0;
  let describes = 0;
  let closing = false;

  beforeAll(async () => {
    t = await createTestDatabase();
    // One connection, so every transaction meets the statements the ones before it prepared.
    pool = new pg.Pool({ connectionString: t.url, max: 1, pipeline: true });
    // Dropping the database with FORCE may reach a backend while its client is still ending (57P01), and pg
    // raises that on the client and, while it is idle, on the pool; any other such error fails the run as before.
    const tolerateTeardown = (error: Error & { code?: string }) => {
      if (!(closing && error.code === '57P01')) throw error;
    };
    pool.on('error', tolerateTeardown);
    pool.on('connect', (client) => {
      client.on('error', tolerateTeardown);
      const connection = (client as pg.PoolClient & { connection: { sync(): void; describe(config: unknown): void } }).connection;
      const sync = connection.sync.bind(connection);
      connection.sync = () => {
        syncs += 1;
        sync();
      };
      const describe = connection.describe.bind(connection);
      connection.describe = (config) => {
        describes += 1;
        describe(config);
      };
    });
    sql = postgresSql(pool);
    await sql.query('CREATE TABLE batch_probe (id text PRIMARY KEY, n int NOT NULL DEFAULT 0)');
  });

  afterAll(async () => {
    closing = true;
    await pool.end();
    await t.drop();
  });

  beforeEach(async () => {
    await sql.query('DELETE FROM batch_probe');
  });

  const count = async () => (await sql.query<{ n: number }>('SELECT count(*)::int AS n FROM batch_probe'))[0].n;

  // BEGIN, two held writes and a read leave together; then COMMIT.
  const insertTwoAndRead = (a: string, b: string) =>
    sql.transaction(async (tx) => {
      await tx.write('INSERT INTO batch_probe (id) VALUES ($1)', [a]);
      await tx.write('INSERT INTO batch_probe (id, n) VALUES ($1, $2)', [b, 2]);
      return tx.query<{ id: string; n: number }>('SELECT id, n FROM batch_probe WHERE id = ANY($1) ORDER BY id', [[a, b]]);
    });

  it('sends a transaction statement by statement until its connection has prepared them, then one Sync a batch', async () => {
    syncs = 0;
    expect(await insertTwoAndRead('a1', 'b1')).toEqual([
      { id: 'a1', n: 0 },
      { id: 'b1', n: 2 },
    ]);
    // BEGIN, the two writes and the read each with a Sync; COMMIT is a simple query (no Sync)
    expect(syncs).toBe(4);

    syncs = 0;
    expect(await insertTwoAndRead('a2', 'b2')).toEqual([
      { id: 'a2', n: 0 },
      { id: 'b2', n: 2 },
    ]);
    expect(syncs).toBe(1);
    expect(await count()).toBe(4);
  });

  it('a failure inside a batch fails the transaction with its error, commits nothing, and leaves the connection usable', async () => {
    await insertTwoAndRead('p1', 'p2');
    syncs = 0;
    await expect(insertTwoAndRead('p1', 'p3')).rejects.toMatchObject({ code: '23505' });
    // one batch (the ROLLBACK after it is a simple query, without a Sync)
    expect(syncs).toBe(1);
    expect(await count()).toBe(2);

    syncs = 0;
    expect(await insertTwoAndRead('p4', 'p5')).toHaveLength(2);
    expect(syncs).toBe(1);
    expect(await count()).toBe(4);
  });

  it('a held write that changes nothing (assertWritten) fails the batch it went with, and is recognised as such', async () => {
    const bump = `WITH written AS (UPDATE batch_probe SET n = n + 1 WHERE id = $1 RETURNING 1) SELECT ${assertWritten('probe missing')}`;
    await sql.query("INSERT INTO batch_probe (id) VALUES ('w1')");
    const bumpThenRead = (id: string) =>
      sql.transaction(async (tx) => {
        await tx.write(bump, [id]);
        return tx.query<{ n: number }>("SELECT n FROM batch_probe WHERE id = 'w1'");
      });
    expect(await bumpThenRead('w1')).toEqual([{ n: 1 }]);
    syncs = 0;
    const error = await bumpThenRead('nobody').catch((caught: unknown) => caught);
    expect(isNothingWritten(error, 'probe missing')).toBe(true);
    expect(syncs).toBe(1);
    expect(await bumpThenRead('w1')).toEqual([{ n: 2 }]);
  });

  it('a parameter that cannot be sent fails before anything of its batch is written', async () => {
    await insertTwoAndRead('v1', 'v2');
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    syncs = 0;
    await expect(
      sql.transaction(async (tx) => {
        await tx.write('INSERT INTO batch_probe (id) VALUES ($1)', ['v3']);
        await tx.write('INSERT INTO batch_probe (id, n) VALUES ($1, $2)', [circular, 2]);
        return tx.query('SELECT id, n FROM batch_probe WHERE id = ANY($1) ORDER BY id', [['v3']]);
      }),
    ).rejects.toThrow(/circular/i);
    expect(syncs).toBe(0);
    expect(await count()).toBe(2);
    expect(await insertTwoAndRead('v4', 'v5')).toHaveLength(2);
  });

  it('reads issued in one turn join one batch, each seeing the statements before it', async () => {
    const together = () =>
      sql.transaction(async (tx) => {
        await tx.write('INSERT INTO batch_probe (id) VALUES ($1)', ['t1']);
        const [first, second] = await Promise.all([
          tx.query<{ n: number }>('SELECT count(*)::int AS n FROM batch_probe'),
          tx.query<{ n: number }>('SELECT count(*)::int + 100 AS n FROM batch_probe'),
        ]);
        await tx.write('DELETE FROM batch_probe');
        return [first[0].n, second[0].n];
      });
    expect(await together()).toEqual([1, 101]);
    syncs = 0;
    expect(await together()).toEqual([1, 101]);
    // [BEGIN, insert, first read, second read], [delete], then COMMIT as a simple query
    expect(syncs).toBe(2);
  });

  it('a failure in a joined batch rejects every read of it with that failure; caught, the transaction still fails at COMMIT', async () => {
    let outcomes: PromiseSettledResult<unknown>[] = [];
    const joined = (id: string) =>
      sql.transaction(async (tx) => {
        await tx.write('INSERT INTO batch_probe (id) VALUES ($1)', [id]);
        outcomes = await Promise.allSettled([
          tx.query('SELECT count(*)::int AS n FROM batch_probe'),
          tx.query('SELECT 1 / (count(*)::int - count(*)::int) AS n FROM batch_probe'),
        ]);
      });
    await expect(joined('j0')).rejects.toBeInstanceOf(RolledBackAtCommitError);
    syncs = 0;
    await expect(joined('j1')).rejects.toBeInstanceOf(RolledBackAtCommitError);
    expect(syncs).toBe(1);
    expect(outcomes).toEqual([
      { status: 'rejected', reason: expect.objectContaining({ code: '22012' }) },
      { status: 'rejected', reason: expect.objectContaining({ code: '22012' }) },
    ]);
    expect(await count()).toBe(0);
  });

  // Each statement's rows are parsed by the shape learnt from its first answer (rowShapes): they must be pg's own rows.
  it('rows of every kind of column come back as pg parses them, from the pool, one by one and in batches, first and later', async () => {
    const wide = `SELECT $1::text AS id, 42::int AS n, 9007199254740993::bigint AS big, 12.50::numeric::text AS amount, true AS flag,
        '{"a":[1,2]}'::jsonb AS doc, ARRAY['x','y']::text[] AS tags, '2026-11-28T10:00:00.123Z'::timestamptz AS at,
        NULL::text AS nothing, 'dup-1' AS dup, 'dup-2' AS dup`;
    const narrow = 'SELECT count(*)::int AS n FROM batch_probe';
    const plain = new pg.Client({ connectionString: t.url });
    await plain.connect();
    const expected = async (text: string, values: unknown[] = []) => (await plain.query(text, values)).rows;
    try {
      const expectedWide = await expected(wide, ['r1']);
      const expectedNarrow = await expected(narrow);
      expect(expectedWide[0]).toMatchObject({ n: 42, flag: true, doc: { a: [1, 2] }, tags: ['x', 'y'], nothing: null, dup: 'dup-2' });
      for (let round = 0; round < 3; round++) {
        expect(await sql.query(wide, ['r1'])).toEqual(expectedWide);
        const [inTransaction, count, again] = await sql.transaction((tx) =>
          Promise.all([tx.query(wide, ['r1']), tx.query(narrow), tx.query(wide, ['r1'])]),
        );
        expect(inTransaction).toEqual(expectedWide);
        expect(count).toEqual(expectedNarrow);
        expect(again).toEqual(expectedWide);
        expect(Object.keys(inTransaction[0] as object)).toEqual(Object.keys(expectedWide[0] as object));
      }
    } finally {
      await plain.end();
    }
  });

  it('a statement whose shape the connection knows goes without a Describe, its rows (or none) read all the same', async () => {
    const mixed = (id: string) =>
      sql.transaction(async (tx) => {
        await tx.write('INSERT INTO batch_probe (id, n) VALUES ($1, 7)', [id]);
        return Promise.all([
          tx.query<{ id: string; n: number }>('SELECT id, n FROM batch_probe WHERE id = $1', [id]),
          tx.query<{ id: string }>('SELECT id FROM batch_probe WHERE n < 0'),
          tx.query<{ total: number }>('SELECT sum(n)::int AS total FROM batch_probe'),
        ]);
      });
    expect(await mixed('d1')).toEqual([[{ id: 'd1', n: 7 }], [], [{ total: 7 }]]);
    describes = 0;
    syncs = 0;
    expect(await mixed('d2')).toEqual([[{ id: 'd2', n: 7 }], [], [{ total: 14 }]]);
    expect(describes).toBe(0);
    expect(syncs).toBe(1);
  });

  it('parameters pg converts (a date, an object for jsonb, an array) go the same on a pooled connection before and after it prepared the statement', async () => {
    const at = new Date('2026-11-28T10:00:00.123Z');
    for (let round = 0; round < 3; round++) {
      expect(await sql.query('SELECT $1::timestamptz AS at, $2::jsonb AS doc, $3::text[] AS tags', [at, { a: [1, 2] }, ['x', 'y']])).toEqual([
        { at, doc: { a: [1, 2] }, tags: ['x', 'y'] },
      ]);
    }
  });

  it('a statement the server refuses on a pooled connection leaves that connection in the pool, usable', async () => {
    await sql.query("INSERT INTO batch_probe (id) VALUES ('u1')");
    const backend = async () => (await sql.query<{ pid: number }>('SELECT pg_backend_pid() AS pid'))[0].pid;
    const before = await backend();
    await expect(sql.query("INSERT INTO batch_probe (id) VALUES ('u1')")).rejects.toMatchObject({ code: '23505' });
    expect(await backend()).toBe(before);
    expect(await count()).toBe(1);
  });

  it('a held write that cannot be sent fails the transaction before its COMMIT leaves: what went before is not committed', async () => {
    await insertTwoAndRead('c1', 'c2');
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    await expect(
      sql.transaction(async (tx) => {
        await tx.write('INSERT INTO batch_probe (id) VALUES ($1)', ['c3']);
        await tx.query('SELECT id, n FROM batch_probe WHERE id = ANY($1) ORDER BY id', [['c3']]);
        await tx.write('INSERT INTO batch_probe (id, n) VALUES ($1, $2)', [circular, 2]);
      }),
    ).rejects.toThrow(/circular/i);
    expect(await count()).toBe(2);
  });
});
