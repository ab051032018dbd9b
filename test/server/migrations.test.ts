// Migrations: applied in order and recorded in _prisma_migrations as Prisma records them; applying them
// again changes nothing; `npm run db:migrate` does the same; edited or failing migrations are refused.
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { pgliteRunner } from '../../src/db/database.js';
import { applyMigrations, MIGRATIONS_DIR, readMigrations, type SqlRunner } from '../../src/db/migrations.js';
import { createEmptyPostgresDatabase, runNpmScript, tempDir } from '../support/processes.js';

const TIMEOUT = 120_000;
const TABLES = ['_prisma_migrations', 'api_keys', 'idempotency_keys', 'locations', 'merchants', 'operations', 'registers', 'tenants'];

interface Fresh {
  runner: SqlRunner;
  /** A second, independent connection (PostgreSQL only). */
  second?: SqlRunner;
  close(): Promise<void>;
}

async function freshPglite(): Promise<Fresh> {
  const pglite = await PGlite.create();
  return { runner: pgliteRunner(pglite), close: () => pglite.close() };
}

function pgRunner(client: pg.Client): SqlRunner {
  return {
    query: async <T>(sql: string, params?: unknown[]) => (await client.query(sql, params)).rows as T[],
    exec: async (sql: string) => void (await client.query(sql)),
  };
}

async function freshPostgres(): Promise<Fresh> {
  const database = await createEmptyPostgresDatabase();
  const a = new pg.Client({ connectionString: database.url });
  const b = new pg.Client({ connectionString: database.url });
  await a.connect();
  await b.connect();
  return {
    runner: pgRunner(a),
    second: pgRunner(b),
    async close() {
      await a.end();
      await b.end();
      await database.drop();
    },
  };
}

const recorded = (db: SqlRunner) =>
  db.query<{ id: string; migration_name: string; checksum: string; finished_at: Date | null; rolled_back_at: Date | null; applied_steps_count: number; logs: string | null }>(
    'SELECT id, migration_name, checksum, finished_at, rolled_back_at, applied_steps_count, logs FROM "_prisma_migrations" ORDER BY migration_name',
  );

const tables = async (db: SqlRunner) =>
  (await db.query<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'")).map((r) => r.table_name);

const engines: [string, () => Promise<Fresh>][] = [['PGlite', freshPglite]];
if (process.env.DATABASE_URL) engines.push(['PostgreSQL', freshPostgres]);

describe.each(engines)('applyMigrations on %s', (_name, open) => {
  it(
    'applies every migration once, records it like Prisma, and a second run applies nothing',
    async () => {
      const fresh = await open();
      try {
        const migrations = readMigrations();
        expect(migrations.length).toBeGreaterThanOrEqual(1);

        const first = await applyMigrations(fresh.runner);
        expect(first).toEqual({ applied: migrations.map((m) => m.name), alreadyApplied: 0 });
        expect(await tables(fresh.runner)).toEqual(expect.arrayContaining(TABLES));

        const rows = await recorded(fresh.runner);
        expect(rows.map((row) => row.migration_name)).toEqual(migrations.map((m) => m.name));
        for (const [i, row] of rows.entries()) {
          const sql = readFileSync(join(MIGRATIONS_DIR, migrations[i].name, 'migration.sql'), 'utf8');
          expect(row.checksum).toBe(createHash('sha256').update(sql).digest('hex'));
          expect(row.id).toMatch(/^[0-9a-f-]{36}$/);
          expect(row.finished_at).not.toBeNull();
          expect(row.rolled_back_at).toBeNull();
          expect(row.applied_steps_count).toBe(1);
        }

        const second = await applyMigrations(fresh.runner);
        expect(second).toEqual({ applied: [], alreadyApplied: migrations.length });
        expect(await recorded(fresh.runner)).toEqual(rows);
        const third = await applyMigrations(fresh.second ?? fresh.runner);
        expect(third.applied).toEqual([]);
        expect(await recorded(fresh.runner)).toEqual(rows);
      } finally {
        await fresh.close();
      }
    },
    TIMEOUT,
  );

  it(
    'refuses an applied migration that was edited, and rolls back a failing one without recording it',
    async () => {
      const fresh = await open();
      const dir = tempDir('fiscal-migrations-');
      try {
        cpSync(MIGRATIONS_DIR, dir.path, { recursive: true });
        await applyMigrations(fresh.runner, dir.path);
        const before = await recorded(fresh.runner);

        const broken = join(dir.path, '99991231000000_broken');
        mkdirSync(broken);
        writeFileSync(join(broken, 'migration.sql'), 'CREATE TABLE half_done (id text);\nSELECT * FROM no_such_table;\n');
        await expect(applyMigrations(fresh.runner, dir.path)).rejects.toThrow(/99991231000000_broken/);
        expect(await tables(fresh.runner)).not.toContain('half_done');
        expect(await recorded(fresh.runner)).toEqual(before);

        writeFileSync(join(broken, 'migration.sql'), 'CREATE TABLE half_done (id text);\n');
        expect((await applyMigrations(fresh.runner, dir.path)).applied).toEqual(['99991231000000_broken']);

        const [firstMigration] = readMigrations(dir.path);
        writeFileSync(join(dir.path, firstMigration.name, 'migration.sql'), `${firstMigration.sql}\n-- edited afterwards\n`);
        await expect(applyMigrations(fresh.runner, dir.path)).rejects.toThrow(/modified/);
      } finally {
        dir.remove();
        await fresh.close();
      }
    },
    TIMEOUT,
  );
});

describe.runIf(process.env.DATABASE_URL)('concurrent starters on PostgreSQL', () => {
  it(
    'two instances migrating one database at once apply each migration exactly once',
    async () => {
      const fresh = await freshPostgres();
      try {
        const [a, b] = await Promise.all([applyMigrations(fresh.runner), applyMigrations(fresh.second!)]);
        const count = readMigrations().length;
        expect(a.applied.length + b.applied.length).toBe(count);
        expect(a.applied.length === 0 || b.applied.length === 0).toBe(true);
        expect((await recorded(fresh.runner)).length).toBe(count);
      } finally {
        await fresh.close();
      }
    },
    TIMEOUT,
  );
});

describe('npm run db:migrate', () => {
  it(
    'on the embedded database in DATA_DIR: applies all, then nothing',
    async () => {
      const dir = tempDir();
      try {
        const count = readMigrations().length;
        const first = await runNpmScript('db:migrate', [], { DATA_DIR: dir.path });
        expect(first.code, first.stderr).toBe(0);
        expect(JSON.parse(first.stdout)).toEqual({ database: 'pglite', applied: readMigrations().map((m) => m.name), alreadyApplied: 0 });
        const second = await runNpmScript('db:migrate', [], { DATA_DIR: dir.path });
        expect(second.code, second.stderr).toBe(0);
        expect(JSON.parse(second.stdout)).toEqual({ database: 'pglite', applied: [], alreadyApplied: count });
      } finally {
        dir.remove();
      }
    },
    TIMEOUT,
  );

  it.runIf(process.env.DATABASE_URL)(
    'on DATABASE_URL: applies all, then nothing',
    async () => {
      const database = await createEmptyPostgresDatabase();
      try {
        const first = await runNpmScript('db:migrate', [], { DATABASE_URL: database.url });
        expect(first.code, first.stderr).toBe(0);
        expect(JSON.parse(first.stdout)).toMatchObject({ database: 'postgres', alreadyApplied: 0 });
        expect(JSON.parse(first.stdout).applied).toHaveLength(readMigrations().length);
        const second = await runNpmScript('db:migrate', [], { DATABASE_URL: database.url });
        expect(JSON.parse(second.stdout)).toEqual({ database: 'postgres', applied: [], alreadyApplied: readMigrations().length });
      } finally {
        await database.drop();
      }
    },
    TIMEOUT,
  );
});
