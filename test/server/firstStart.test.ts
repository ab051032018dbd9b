// The real server as `npm start` runs it: the first start of an empty sandbox creates a demo tenant and
// prints a working API key once; migrations apply at start; the same server runs on PostgreSQL.
import { readdirSync } from 'node:fs';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { readMigrations } from '../../src/db/migrations.js';
import { deuMerchantBody } from '../support/testApp.js';
import { createEmptyPostgresDatabase, runNpmScript, startServer, tempDir, type ChildServer } from '../support/processes.js';

const KEY = /svc_test_deu_[0-9A-Za-z]{22,}/g;
const TIMEOUT = 120_000;

const call = (server: ChildServer, path: string, apiKey: string, init: RequestInit = {}) =>
  fetch(`${server.url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', ...(init.headers as Record<string, string>) },
  });

/** Starts an empty sandbox, checks the printed key works, restarts it, checks nothing is printed again. */
async function firstStartScenario(env: Record<string, string>) {
  const first = await startServer(env);
  let apiKey: string;
  try {
    const keys = first.stdout().match(KEY) ?? [];
    expect(keys.length).toBeGreaterThanOrEqual(1);
    apiKey = keys[0]!;
    expect(new Set(keys).size).toBe(1);
    expect(first.stdout()).toMatch(/once/i);

    const list = await call(first, '/v1/merchants', apiKey);
    expect(list.status).toBe(200);
    expect(await list.json()).toEqual({ data: [] });
    const created = await call(first, '/v1/merchants', apiKey, { method: 'POST', body: JSON.stringify(deuMerchantBody()) });
    expect(created.status).toBe(201);
    expect(created.headers.get('etag')).toBe('"1"');
  } finally {
    expect(await first.stop()).toBe(0);
  }

  // The second start of the same database prints no key; the first one still works.
  const second = await startServer(env);
  try {
    expect(second.stdout()).not.toMatch(KEY);
    const list = await call(second, '/v1/merchants', apiKey);
    expect(list.status).toBe(200);
    expect(((await list.json()) as { data: unknown[] }).data).toHaveLength(1);
  } finally {
    expect(await second.stop()).toBe(0);
  }
}

describe('first start of an empty sandbox (embedded database)', () => {
  it(
    'prints a working API key once; migrations were applied at start',
    async () => {
      const dir = tempDir();
      try {
        await firstStartScenario({ DATA_DIR: dir.path });
        expect(readdirSync(dir.path)).toEqual(expect.arrayContaining(['pglite', 'secrets.key']));

        // the server applied every migration: `npm run db:migrate` finds nothing to do
        const migrate = await runNpmScript('db:migrate', [], { DATA_DIR: dir.path });
        expect(migrate.code, migrate.stderr).toBe(0);
        expect(JSON.parse(migrate.stdout)).toEqual({ database: 'pglite', applied: [], alreadyApplied: readMigrations().length });
      } finally {
        dir.remove();
      }
    },
    TIMEOUT,
  );
});

describe.runIf(process.env.DATABASE_URL)('first start on PostgreSQL (DATABASE_URL)', () => {
  it(
    'migrates the empty database at start, prints a working key once, and npm run db:migrate then changes nothing',
    async () => {
      const database = await createEmptyPostgresDatabase();
      const dir = tempDir();
      try {
        await firstStartScenario({ DATABASE_URL: database.url, DATA_DIR: dir.path });
        // nothing embedded was created: the data lives in PostgreSQL
        expect(readdirSync(dir.path)).not.toContain('pglite');

        const migrate = await runNpmScript('db:migrate', [], { DATABASE_URL: database.url });
        expect(migrate.code, migrate.stderr).toBe(0);
        expect(JSON.parse(migrate.stdout)).toEqual({ database: 'postgres', applied: [], alreadyApplied: readMigrations().length });

        const client = new pg.Client({ connectionString: database.url });
        await client.connect();
        try {
          const { rows } = await client.query('SELECT migration_name, finished_at FROM "_prisma_migrations" ORDER BY migration_name');
          expect(rows.map((row) => row.migration_name)).toEqual(readMigrations().map((m) => m.name));
          for (const row of rows) expect(row.finished_at).not.toBeNull();
          const tenants = await client.query('SELECT count(*)::int AS n FROM tenants');
          expect(tenants.rows[0].n).toBe(1);
        } finally {
          await client.end();
        }
      } finally {
        dir.remove();
        await database.drop();
      }
    },
    TIMEOUT,
  );
});
