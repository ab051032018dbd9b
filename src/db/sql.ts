import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import type { Prisma as PrismaNs } from './generated/client.js';

/**
 * Plain SQL with positional parameters, for the paths that run on every
 * request (auth, idempotency, creating and completing operations, signing):
 * there Prisma's per-query overhead and one round trip per relation cost more
 * than the rest of the request. Rows come back as the driver returns them, so
 * queries cast bigint and numeric columns to text and the caller converts.
 */
export interface SqlClient {
  query<T extends object = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<T[]>;
  /**
   * Asks the database to cancel the statement this client's connection is running, if
   * any. Only a transaction's client on a server connection has it: a pooled statement
   * has no connection of its own, and PGlite's single session never waits on a lock.
   */
  cancelRunning?(): Promise<void>;
}

export interface SqlDatabase extends SqlClient {
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (sql: SqlClient) => Promise<T>): Promise<T>;
  /** Cancels the statement a server backend runs (PostgreSQL only). */
  cancelBackend?(processId: number): Promise<void>;
}

/** A Prisma interactive transaction seen as a SqlClient, so shared SQL code runs inside Prisma services too. */
export function sqlOf(tx: PrismaNs.TransactionClient): SqlClient {
  return {
    query: <T extends object>(text: string, params: readonly unknown[] = []) => tx.$queryRawUnsafe<T[]>(text, ...params),
  };
}

/**
 * sqlOf(tx) that can also cancel its running statement (see SqlClient.cancelRunning), for
 * work that may be abandoned inside a Prisma transaction. Costs one round trip on PostgreSQL
 * to learn the transaction's backend.
 */
export async function cancellableSqlOf(tx: PrismaNs.TransactionClient, database: SqlDatabase): Promise<SqlClient> {
  const sql = sqlOf(tx);
  if (!database.cancelBackend) return sql;
  const [{ pid }] = await sql.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  return { ...sql, cancelRunning: () => database.cancelBackend!(pid) };
}

/** A statement sent through an abandoned scope (see `abandonable`); it never reached the database. */
export class AbandonedWorkError extends Error {
  constructor() {
    super('The work this statement belonged to was abandoned');
    this.name = 'AbandonedWorkError';
  }
}

export interface AbandonableSql {
  sql: SqlClient;
  /** Refuses further statements and returns once the ones already sent have settled. */
  close(): Promise<void>;
  /** As close, but cancels a statement still running first, so the caller does not wait on its locks. */
  abandon(): Promise<void>;
}

/**
 * A view of `sql` for work that its caller may stop waiting for (a device call past
 * its timeout, a transaction that ends). Work that goes on after that must never
 * reach the connection: after a rollback its statements would run in autocommit, or
 * in the next borrower's transaction. Closing the scope refuses them; waiting for the
 * statements already sent keeps the caller's own next statement (ROLLBACK, a savepoint)
 * behind them on the connection.
 */
export function abandonable(sql: SqlClient): AbandonableSql {
  let closed = false;
  const running = new Set<Promise<unknown>>();
  const settle = async (cancel: boolean) => {
    closed = true;
    if (!running.size) return;
    if (cancel) await sql.cancelRunning?.().catch(() => undefined);
    await Promise.allSettled([...running]);
  };
  return {
    sql: {
      query<T extends object>(text: string, params?: readonly unknown[]) {
        if (closed) return Promise.reject(new AbandonedWorkError());
        const pending = sql.query<T>(text, params);
        running.add(pending);
        const forget = () => void running.delete(pending);
        pending.then(forget, forget);
        return pending;
      },
      ...(sql.cancelRunning && { cancelRunning: () => sql.cancelRunning!() }),
    },
    close: () => settle(false),
    abandon: () => settle(true),
  };
}

// Statement texts are constants, so naming each one lets every connection parse and plan it once.
const statementNames = new Map<string, string>();
function statementName(text: string): string {
  let name = statementNames.get(text);
  if (!name) {
    name = `q${statementNames.size + 1}`;
    statementNames.set(text, name);
  }
  return name;
}

function pgClientSql(client: pg.Pool | pg.PoolClient): SqlClient {
  return {
    async query<T extends object>(text: string, params: readonly unknown[] = []) {
      const result = await client.query<T>({ name: statementName(text), text, values: params as unknown[] });
      return result.rows;
    },
  };
}

/**
 * Cancels what a backend runs, over a connection of its own: the pool may have none
 * free, and the busy connection cannot carry the request.
 */
async function cancelBackend(pool: pg.Pool, processId: number): Promise<void> {
  const canceller = new pg.Client({ ...pool.options, connectionTimeoutMillis: 2000 });
  canceller.on('error', () => undefined);
  try {
    await canceller.connect();
    await canceller.query('SELECT pg_cancel_backend($1)', [processId]);
  } finally {
    await canceller.end().catch(() => undefined);
  }
}

export function postgresSql(pool: pg.Pool): SqlDatabase {
  return {
    ...pgClientSql(pool),
    cancelBackend: (processId) => cancelBackend(pool, processId),
    async transaction<T>(work: (sql: SqlClient) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      let broken: Error | undefined;
      // The pool listens for errors of idle clients only; a checked-out one that loses its
      // backend (pg_terminate_backend, a restart) would otherwise raise an uncaught exception.
      const onError = (error: Error) => {
        broken = error;
      };
      client.on('error', onError);
      const { processID } = client as pg.PoolClient & { processID: number };
      const scope = abandonable({ ...pgClientSql(client), cancelRunning: () => cancelBackend(pool, processID) });
      try {
        await client.query('BEGIN');
        const result = await work(scope.sql);
        await scope.close();
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await scope.abandon();
        // A connection that cannot even roll back is discarded, not returned to the pool.
        await client.query('ROLLBACK').catch((rollbackError: Error) => {
          broken = rollbackError;
        });
        throw error;
      } finally {
        client.off('error', onError);
        client.release(broken);
      }
    },
  };
}

export function pgliteSql(pglite: PGlite): SqlDatabase {
  return {
    async query<T extends object>(text: string, params: readonly unknown[] = []) {
      return (await pglite.query<T>(text, params as unknown[])).rows;
    },
    // PGlite is one session: its transaction() holds the instance exclusively, as Prisma's adapter does.
    transaction<T>(work: (sql: SqlClient) => Promise<T>): Promise<T> {
      return pglite.transaction(async (tx) => {
        const scope = abandonable({
          async query<R extends object>(text: string, params: readonly unknown[] = []) {
            return (await tx.query<R>(text, params as unknown[])).rows;
          },
        });
        try {
          return await work(scope.sql);
        } finally {
          await scope.close();
        }
      });
    },
  };
}
