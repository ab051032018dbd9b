import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { pgliteRunner } from '../../src/db/database.js';
import { applyMigrations } from '../../src/db/migrations.js';
import { databaseUrlFor } from './databases.js';
import { ROOT } from './processes.js';

/**
 * Compiles the server as `npm start` does (the tests that start one run dist/server.js), and
 * migrates one template database per run: a PGlite data-dir dump, or (with DATABASE_URL) a
 * PostgreSQL template database that each test file copies.
 */
export default async function setup(project: TestProject) {
  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: 'inherit' });
  const runId = `${process.pid}_${Date.now().toString(36)}`;
  if (process.env.DATABASE_URL) {
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    const template = `fiscal_tpl_${runId}`;
    await admin.query(`CREATE DATABASE ${template}`);
    const client = new pg.Client({ connectionString: databaseUrlFor(process.env.DATABASE_URL, template) });
    await client.connect();
    await applyMigrations({
      query: async (sql, params) => (await client.query(sql, params)).rows,
      exec: async (sql) => void (await client.query(sql)),
    });
    await client.end();
    project.provide('postgresTemplate', template);
    project.provide('pgliteTemplate', '');
    return async () => {
      await admin.query(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`);
      await admin.end();
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'fiscal-test-'));
  const pglite = await PGlite.create();
  await applyMigrations(pgliteRunner(pglite));
  const dump = await pglite.dumpDataDir('none');
  await pglite.close();
  const file = join(dir, 'template.tar');
  writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  project.provide('pgliteTemplate', file);
  project.provide('postgresTemplate', '');
  return () => rmSync(dir, { recursive: true, force: true });
}

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteTemplate: string;
    postgresTemplate: string;
  }
}
