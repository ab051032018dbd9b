import type { PGlite } from '@electric-sql/pglite';
import type pg from 'pg';
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
}

export interface SqlDatabase extends SqlClient {
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (sql: SqlClient) => Promise<T>): Promise<T>;
}

/** A Prisma interactive transaction seen as a SqlClient, so shared SQL code runs inside Prisma services too. */
export function sqlOf(tx: PrismaNs.TransactionClient): SqlClient {
  return {
    query: <T extends object>(text: string, params: readonly unknown[] = []) => tx.$queryRawUnsafe<T[]>(text, ...params),
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

export function postgresSql(pool: pg.Pool): SqlDatabase {
  return {
    ...pgClientSql(pool),
    async transaction<T>(work: (sql: SqlClient) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      let broken: Error | undefined;
      // The pool listens for errors of idle clients only; a checked-out one that loses its
      // backend (pg_terminate_backend, a restart) would otherwise raise an uncaught exception.
      const onError = (error: Error) => {
        broken = error;
      };
      client.on('error', onError);
      try {
        await client.query('BEGIN');
        const result = await work(pgClientSql(client));
        await client.query('COMMIT');
        return result;
      } catch (error) {
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
      return pglite.transaction((tx) =>
        work({
          async query<R extends object>(text: string, params: readonly unknown[] = []) {
            return (await tx.query<R>(text, params as unknown[])).rows;
          },
        }),
      );
    },
  };
}
