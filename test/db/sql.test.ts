import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AbandonedWorkError, abandonable, assertWritten, isNothingWritten, sqlOf } from '../../src/db/sql.js';
import { createTestDatabase, type TestDatabase } from '../support/databases.js';

let t: TestDatabase;

beforeAll(async () => {
  t = await createTestDatabase();
  await t.database.sql.query('CREATE TABLE sql_probe (id text PRIMARY KEY, amount numeric(20, 8), n bigint, at timestamptz, doc jsonb)');
});

afterAll(() => t.drop());

const count = async () => (await t.database.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM sql_probe'))[0].n;

describe('SqlDatabase (the hot paths\' plain SQL)', () => {
  it('returns rows with parameters; jsonb parsed, timestamptz as Date, numeric and bigint as text when cast', async () => {
    const at = new Date('2026-11-22T10:00:00.123Z');
    await t.database.sql.query('INSERT INTO sql_probe VALUES ($1, $2, $3, $4, $5::jsonb)', ['a', '11.90', 9007199254740993n.toString(), at, JSON.stringify({ k: [1, 'x'] })]);
    const [row] = await t.database.sql.query<{ amount: string; n: string; at: Date; doc: unknown }>(
      'SELECT amount::text AS amount, n::text AS n, at, doc FROM sql_probe WHERE id = $1',
      ['a'],
    );
    expect(row).toEqual({ amount: '11.90000000', n: '9007199254740993', at, doc: { k: [1, 'x'] } });
  });

  it('commits a transaction whose work resolves', async () => {
    const before = await count();
    const result = await t.database.sql.transaction(async (sql) => {
      await sql.query("INSERT INTO sql_probe (id) VALUES ('commit-1')");
      await sql.query("INSERT INTO sql_probe (id) VALUES ('commit-2')");
      return 'done';
    });
    expect(result).toBe('done');
    expect(await count()).toBe(before + 2);
  });

  it('rolls back everything when the work throws, and the error reaches the caller', async () => {
    const before = await count();
    await expect(
      t.database.sql.transaction(async (sql) => {
        await sql.query("INSERT INTO sql_probe (id) VALUES ('rollback-1')");
        throw new Error('rule broken');
      }),
    ).rejects.toThrow('rule broken');
    // a failing statement rolls back too, and the connection is usable afterwards
    await expect(
      t.database.sql.transaction(async (sql) => {
        await sql.query("INSERT INTO sql_probe (id) VALUES ('rollback-2')");
        await sql.query("INSERT INTO sql_probe (id) VALUES ('rollback-2')");
      }),
    ).rejects.toMatchObject({ code: '23505' });
    expect(await count()).toBe(before);
  });

  it('refuses a statement that outlives its transaction instead of running it in autocommit', async () => {
    let late: Promise<unknown> | undefined;
    await expect(
      t.database.sql.transaction(async (sql) => {
        await sql.query("INSERT INTO sql_probe (id) VALUES ('late-0')");
        // work the transaction stopped waiting for, which carries on afterwards
        late = new Promise((resolve) => setTimeout(resolve, 50)).then(() => sql.query("INSERT INTO sql_probe (id) VALUES ('late-1')"));
        late.catch(() => undefined);
        throw new Error('gave up');
      }),
    ).rejects.toThrow('gave up');
    await expect(late).rejects.toBeInstanceOf(AbandonedWorkError);
    expect(await t.database.sql.query("SELECT id FROM sql_probe WHERE id LIKE 'late-%'")).toEqual([]);
  });

  it('abandonable: closing refuses new statements and waits for the ones sent', async () => {
    await t.database.sql.transaction(async (sql) => {
      const scope = abandonable(sql);
      const sent = scope.sql.query("INSERT INTO sql_probe (id) VALUES ('scoped-1')");
      await scope.abandon();
      await expect(sent).resolves.toEqual([]);
      await expect(scope.sql.query("INSERT INTO sql_probe (id) VALUES ('scoped-2')")).rejects.toBeInstanceOf(AbandonedWorkError);
      // the transaction itself goes on
      await sql.query("INSERT INTO sql_probe (id) VALUES ('scoped-3')");
    });
    const ids = await t.database.sql.query<{ id: string }>("SELECT id FROM sql_probe WHERE id LIKE 'scoped-%' ORDER BY id");
    expect(ids.map((row) => row.id)).toEqual(['scoped-1', 'scoped-3']);
  });

  it('writes (held and pipelined on PostgreSQL) commit with the transaction, in order, and are seen by its next statement', async () => {
    const before = await count();
    const seen = await t.database.sql.transaction(async (sql) => {
      await sql.write("INSERT INTO sql_probe (id, n) VALUES ('write-1', 1)");
      await sql.write("UPDATE sql_probe SET n = n + 1 WHERE id = 'write-1'");
      const [row] = await sql.query<{ n: string }>("SELECT n::text AS n FROM sql_probe WHERE id = 'write-1'");
      await sql.write("INSERT INTO sql_probe (id) VALUES ('write-2')");
      return row.n;
    });
    expect(seen).toBe('2');
    expect(await count()).toBe(before + 2);
  });

  it('a write that fails fails the commit it was sent with: nothing of the transaction is committed', async () => {
    const before = await count();
    await expect(
      t.database.sql.transaction(async (sql) => {
        await sql.write("INSERT INTO sql_probe (id) VALUES ('write-fails-1')");
        await sql.write("INSERT INTO sql_probe (id) VALUES ('write-fails-1')");
      }),
    ).rejects.toMatchObject({ code: '23505' });
    expect(await count()).toBe(before);
    // and the connection serves the next transaction
    await t.database.sql.transaction((sql) => sql.write("INSERT INTO sql_probe (id) VALUES ('write-after')"));
    expect(await count()).toBe(before + 1);
  });


  it('statements issued together (one round trip on PostgreSQL) run in the order issued, each seeing those before it', async () => {
    const [[updated], [seen]] = await t.database.sql.transaction((sql) =>
      Promise.all([
        sql.query<{ n: string }>("INSERT INTO sql_probe (id, n) VALUES ('together-1', 41) RETURNING (n + 1)::text AS n"),
        sql.query<{ n: string }>("SELECT n::text AS n FROM sql_probe WHERE id = 'together-1'"),
      ]),
    );
    expect([updated.n, seen.n]).toEqual(['42', '41']);
  });

  it('when the first of statements issued together fails, the batch fails with its error and nothing is committed', async () => {
    const before = await count();
    await expect(
      t.database.sql.transaction((sql) =>
        Promise.all([
          sql.query("INSERT INTO sql_probe (id) VALUES ('together-fails'), ('together-fails')"),
          sql.query("INSERT INTO sql_probe (id) VALUES ('together-after')"),
        ]),
      ),
    ).rejects.toMatchObject({ code: '23505' });
    expect(await count()).toBe(before);
  });
  it('assertWritten makes a write that changed no row fail, in every client, with its reason', async () => {
    const nothing = `WITH written AS (UPDATE sql_probe SET n = 0 WHERE id = 'absent' RETURNING 1) SELECT ${assertWritten("nothing's here")}`;
    const refused = (promise: Promise<unknown>) =>
      promise.then(
        () => expect.unreachable('the write succeeded'),
        (error: unknown) => expect(isNothingWritten(error, "nothing's here")).toBe(true),
      );
    const before = await count();
    await refused(
      t.database.sql.transaction(async (sql) => {
        await sql.write("INSERT INTO sql_probe (id) VALUES ('assert-1')");
        await sql.write(nothing);
      }),
    );
    await refused(t.database.sql.write(nothing));
    await refused(t.database.prisma.$transaction((tx) => sqlOf(tx).write(nothing)));
    expect(await count()).toBe(before);
    const somewhere = `WITH written AS (UPDATE sql_probe SET n = 0 WHERE id = 'write-2' RETURNING 1) SELECT ${assertWritten('x')}`;
    await t.database.sql.transaction((sql) => sql.write(somewhere));
  });

  it('sqlOf runs the same statements inside a Prisma transaction', async () => {
    await expect(
      t.database.prisma.$transaction(async (tx) => {
        await sqlOf(tx).query('INSERT INTO sql_probe (id, amount) VALUES ($1, $2::numeric)', ['prisma-1', '1.5']);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await t.database.sql.query('SELECT id FROM sql_probe WHERE id = $1', ['prisma-1'])).toEqual([]);
  });
});

describe.runIf(process.env.DATABASE_URL)('SqlDatabase on PostgreSQL', () => {
  it('abandoning cancels a statement waiting on a lock, so the caller does not wait for the lock', async () => {
    const locker = new pg.Client({ connectionString: t.url });
    await locker.connect();
    await t.database.sql.query("INSERT INTO sql_probe (id, n) VALUES ('locked', 0)");
    try {
      await locker.query('BEGIN');
      await locker.query("SELECT id FROM sql_probe WHERE id = 'locked' FOR UPDATE");
      const started = Date.now();
      await expect(
        t.database.sql.transaction(async (sql) => {
          const scope = abandonable(sql);
          const blocked = scope.sql.query("UPDATE sql_probe SET n = n + 1 WHERE id = 'locked'");
          blocked.catch(() => undefined);
          await new Promise((resolve) => setTimeout(resolve, 100));
          await scope.abandon();
          await expect(blocked).rejects.toMatchObject({ code: '57014' });
          throw new Error('timed out');
        }),
      ).rejects.toThrow('timed out');
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
    }
    expect(await t.database.sql.query<{ n: string }>("SELECT n::text AS n FROM sql_probe WHERE id = 'locked'")).toEqual([{ n: '0' }]);
  });

  it('a transaction whose connection is terminated fails with the driver error, not an uncaught exception, and the pool recovers', async () => {
    const admin = new pg.Client({ connectionString: t.url });
    await admin.connect();
    try {
      const failure = await t.database.sql
        .transaction(async (sql) => {
          const [{ pid }] = await sql.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
          await sql.query("INSERT INTO sql_probe (id) VALUES ('terminated')");
          await admin.query('SELECT pg_terminate_backend($1)', [pid]);
          // the backend is gone: give the socket time to report it while the client is checked out
          await new Promise((resolve) => setTimeout(resolve, 100));
          await sql.query('SELECT 1');
        })
        .then(
          () => null,
          (error: Error) => error,
        );
      expect(failure).toBeInstanceOf(Error);
      expect(await t.database.sql.query('SELECT id FROM sql_probe WHERE id = $1', ['terminated'])).toEqual([]);
      expect(await t.database.sql.query<{ one: number }>('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    } finally {
      await admin.end();
    }
  });
});
