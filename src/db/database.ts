import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import pg from 'pg';
import { PrismaClient } from './generated/client.js';
import { lockDataDir, type DataDirLock } from './dataDirLock.js';
import { isDatabaseUnavailable } from './databaseUnavailable.js';
import { applyMigrations, type MigrationOutcome, type SqlRunner } from './migrations.js';
import { pgliteSql, postgresSql, type SqlDatabase } from './sql.js';

export type Prisma = PrismaClient;

export interface Database {
  kind: 'postgres' | 'pglite';
  prisma: PrismaClient;
  /** The same database through plain SQL, for the per-request hot paths (src/db/sql.ts). */
  sql: SqlDatabase;
  /** Applies pending migrations (idempotent). */
  migrate(): Promise<MigrationOutcome>;
  /** Throws when the database cannot answer. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  databaseUrl?: string;
  /** Where the embedded database lives; opening it takes DATA_DIR's lock (dataDirLock.ts) until close(). */
  dataDir?: string;
  poolSize?: number;
  /** An already open PGlite instance (tests clone a migrated template). */
  pglite?: PGlite;
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.databaseUrl) return openPostgres(options.databaseUrl, options.poolSize ?? 40);
  return openPglite(options);
}

/**
 * The service's connections to PostgreSQL. A dropped connection never crashes the process: the
 * pool listens on idle ones, whoever checks one out listens on it, and between the two each
 * connection has a listener of its own. pg-pool stops listening when it hands a connection
 * out, and a backend terminated just as it became ready sends its FATAL in the same packet as
 * ReadyForQuery, so the error arrives before the borrower can listen. That connection is
 * marked not queryable all the same: its first query fails, and the pool discards it.
 */
export function postgresPool(connectionString: string, poolSize: number): pg.Pool {
  // Idle connections are kept a minute: a new backend's first queries are slow, so churning them shows up as latency.
  // Pipeline mode: a transaction sends its held writes with its next statement (sql.ts, pipelinedTransaction).
  const pool = new pg.Pool({ connectionString, max: poolSize, connectionTimeoutMillis: 5000, idleTimeoutMillis: 60_000, pipeline: true });
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

function openPostgres(connectionString: string, poolSize: number): Database {
  const pool = postgresPool(connectionString, poolSize);
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  return {
    kind: 'postgres',
    prisma,
    sql: postgresSql(pool),
    async migrate() {
      const client = await pool.connect();
      try {
        return await applyMigrations(postgresRunner(client));
      } finally {
        client.release();
      }
    },
    // Ready means this instance can serve: the database accepts a connection and answers.
    // A pooled connection whose backend was terminated fails once and is discarded (the
    // pool opens a new one for the next request), and a pool busy to its limit times out
    // its checkout; neither says the database is gone, so either is settled on a new
    // connection outside the pool. A pool this instance has closed is not ready.
    async ping() {
      try {
        await pool.query('SELECT 1');
      } catch (error) {
        if (pool.ended || !isDatabaseUnavailable(error)) throw error;
        await pingOnNewConnection(connectionString);
      }
    },
    async close() {
      await prisma.$disconnect();
      await pool.end();
    },
  };
}

async function pingOnNewConnection(connectionString: string): Promise<void> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 5000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
  } finally {
    await client.end().catch(() => undefined);
  }
}

function postgresRunner(client: pg.PoolClient): SqlRunner {
  return {
    async query<T>(sql: string, params: unknown[] = []) {
      return (await client.query(sql, params)).rows as T[];
    },
    async exec(sql: string) {
      await client.query(sql);
    },
  };
}

async function openPglite(options: DatabaseOptions): Promise<Database> {
  let instance = options.pglite;
  let lock: DataDirLock | undefined;
  if (!instance) {
    const dir = options.dataDir ?? './data';
    mkdirSync(dir, { recursive: true });
    lock = lockDataDir(dir);
    try {
      instance = await PGlite.create(`${dir}/pglite`);
    } catch (error) {
      lock.release();
      throw error;
    }
  }
  const pglite = instance;
  const prisma = new PrismaClient({ adapter: new PrismaPGlite(pglite) });
  return {
    kind: 'pglite',
    prisma,
    sql: pgliteSql(pglite),
    migrate: () => applyMigrations(pgliteRunner(pglite)),
    async ping() {
      await pglite.query('SELECT 1');
    },
    async close() {
      await prisma.$disconnect();
      if (!pglite.closed) await pglite.close();
      lock?.release();
    },
  };
}

export function pgliteRunner(pglite: PGlite): SqlRunner {
  return {
    async query<T>(sql: string, params: unknown[] = []) {
      return (await pglite.query<T>(sql, params)).rows;
    },
    async exec(sql: string) {
      await pglite.exec(sql);
    },
  };
}
