import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { MigrationList } from '@prisma/schema-engine-wasm';

export const MIGRATIONS_DIR = resolve(fileURLToPath(new URL('../../prisma/migrations', import.meta.url)));
export const SCHEMA_PATH = resolve(fileURLToPath(new URL('../../prisma/schema.prisma', import.meta.url)));

export interface MigrationFileEntry {
  name: string;
  sql: string;
  checksum: string;
}

export function readMigrations(dir = MIGRATIONS_DIR): MigrationFileEntry[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(dir, entry.name, 'migration.sql')))
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

/** The migrations folder in the shape Prisma's schema engine reads it. */
export function migrationList(dir = MIGRATIONS_DIR): MigrationList {
  const lockPath = join(dir, 'migration_lock.toml');
  return {
    baseDir: dir,
    lockfile: { path: 'migration_lock.toml', content: existsSync(lockPath) ? readFileSync(lockPath, 'utf8') : null },
    shadowDbInitScript: '',
    migrationDirectories: readMigrations(dir).map((migration) => ({
      path: migration.name,
      migrationFile: { path: 'migration.sql', content: { tag: 'ok', value: migration.sql } },
    })),
  };
}

/** Minimal SQL surface the migrator needs; both PGlite and pg satisfy it through small wrappers. */
export interface SqlRunner {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Runs a multi-statement script. */
  exec(sql: string): Promise<void>;
}

// Prisma's own bookkeeping table, so `prisma migrate deploy` on a machine with
// the native engine agrees with what this migrator applied.
const CREATE_MIGRATIONS_TABLE = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

// Same key as Prisma's migrate lock, so concurrent starters (and Prisma) serialize.
const MIGRATION_ADVISORY_LOCK = 72707369;

export interface MigrationOutcome {
  applied: string[];
  alreadyApplied: number;
}

/**
 * Applies pending migrations in order, each in its own transaction, under an
 * advisory lock. Refuses to run when an applied migration was edited or failed.
 */
export async function applyMigrations(db: SqlRunner, dir = MIGRATIONS_DIR): Promise<MigrationOutcome> {
  await db.query('SELECT pg_advisory_lock($1)', [MIGRATION_ADVISORY_LOCK]);
  try {
    await db.exec(CREATE_MIGRATIONS_TABLE);
    const rows = await db.query<{ migration_name: string; checksum: string; finished_at: Date | null; rolled_back_at: Date | null }>(
      'SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations"',
    );
    const recorded = new Map(rows.filter((row) => row.rolled_back_at === null).map((row) => [row.migration_name, row]));
    const applied: string[] = [];
    let alreadyApplied = 0;
    for (const migration of readMigrations(dir)) {
      const record = recorded.get(migration.name);
      if (record) {
        if (record.finished_at === null) {
          throw new Error(`migration ${migration.name} failed earlier and must be resolved by hand`);
        }
        if (record.checksum !== migration.checksum) {
          throw new Error(`migration ${migration.name} was modified after it was applied`);
        }
        alreadyApplied += 1;
        continue;
      }
      const id = randomUUID();
      await db.exec('BEGIN');
      try {
        await db.query(
          'INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, applied_steps_count) VALUES ($1, $2, $3, now(), 0)',
          [id, migration.checksum, migration.name],
        );
        await db.exec(migration.sql);
        await db.query('UPDATE "_prisma_migrations" SET finished_at = now(), applied_steps_count = 1 WHERE id = $1', [id]);
        await db.exec('COMMIT');
      } catch (error) {
        await db.exec('ROLLBACK');
        throw new Error(`migration ${migration.name} failed: ${(error as Error).message}`, { cause: error });
      }
      applied.push(migration.name);
    }
    return { applied, alreadyApplied };
  } finally {
    await db.query('SELECT pg_advisory_unlock($1)', [MIGRATION_ADVISORY_LOCK]);
  }
}
