import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import type { Prisma as PrismaNs } from './generated/client.js';
import { allPrepared, runNamedStatement, runPooledStatement, runPreparedBatch, socketOf, wireValues, type NamedStatement } from './namedStatements.js';

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
   * A statement whose rows the caller does not need (a write of the transaction's outcome).
   * In a PostgreSQL transaction it is held and sent with the transaction's next statement or
   * its COMMIT, in one write to the server (pipelined), and its failure fails that statement or
   * the commit, so the transaction never commits without it. Elsewhere it runs before this
   * resolves. A write that must change rows says so in its SQL (see assertWritten).
   */
  write(text: string, params?: readonly unknown[]): Promise<void>;
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
    write: async (text: string, params: readonly unknown[] = []) => void (await tx.$queryRawUnsafe(text, ...params)),
  };
}

/**
 * The SQLSTATE a write raises through assertWritten when it changed no row: the
 * transaction it belongs to rolls back (a pipelined COMMIT turns into a rollback).
 */
export const NOTHING_WRITTEN = 'FS001';

/**
 * SQL that makes a data-modifying statement fail when it changed no row, for
 * writes sent with `write` (whose rows nobody reads): wrap it as
 * `WITH written AS (<statement> RETURNING 1) SELECT ${assertWritten('why')}`.
 * `reason` is a constant of the caller's, never user input.
 */
export function assertWritten(reason: string): string {
  return `assert_written(EXISTS (SELECT 1 FROM written), '${reason.replace(/'/g, "''")}')`;
}

/**
 * Whether `error` is the database's answer to an assertWritten that found nothing written, for
 * `reason`: as pg and PGlite raise it, or wrapped by Prisma (a raw query in a Prisma transaction).
 */
export function isNothingWritten(error: unknown, reason: string): boolean {
  const cause = (error as { meta?: { driverAdapterError?: { cause?: unknown } } })?.meta?.driverAdapterError?.cause ?? error;
  const { code, message } = (cause ?? {}) as { code?: unknown; message?: unknown };
  return code === NOTHING_WRITTEN && message === reason;
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
  const track = <T>(send: () => Promise<T>): Promise<T> => {
    if (closed) return Promise.reject(new AbandonedWorkError());
    const pending = send();
    running.add(pending);
    const forget = () => void running.delete(pending);
    pending.then(forget, forget);
    return pending;
  };
  return {
    sql: {
      query: <T extends object>(text: string, params?: readonly unknown[]) => track(() => sql.query<T>(text, params)),
      write: (text: string, params?: readonly unknown[]) => track(() => sql.write(text, params)),
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

const statement = (text: string, params: readonly unknown[]): NamedStatement => ({ name: statementName(text), text, values: params as unknown[] });

function poolSql(pool: pg.Pool): SqlClient {
  return {
    async query<T extends object>(text: string, params: readonly unknown[] = []) {
      return (await runPooledStatement(pool, statement(text, wireValues(params)))) as T[];
    },
    async write(text: string, params: readonly unknown[] = []) {
      await runPooledStatement(pool, statement(text, wireValues(params)));
    },
  };
}

/** The transaction was aborted by a failed statement whose error its work did not let through: COMMIT rolled it back. */
export class RolledBackAtCommitError extends Error {
  constructor() {
    super('The transaction was rolled back at COMMIT: one of its statements had failed');
    this.name = 'RolledBackAtCommitError';
  }
}

/** A statement held for the next batch (BEGIN has no params; it is prepared like the rest). */
interface Held {
  text: string;
  params?: readonly unknown[];
}

/** A read waiting in the batch of its turn: its rows are those of the batch's statement at `index`. */
interface Waiting {
  index: number;
  resolve(rows: unknown[]): void;
  reject(error: unknown): void;
}

/**
 * Sends `statements` in one write. Once the connection has prepared them all they go under
 * one Sync, so PostgreSQL answers them in one write; until then each goes with its own Sync,
 * as pg records a statement prepared once parsed. Resolves with each statement's rows; the
 * first failure rejects it (in a transaction nothing after a failed statement runs anyway).
 */
async function sendStatements(client: pg.PoolClient, statements: NamedStatement[]): Promise<unknown[][]> {
  if (!statements.length) return [];
  if (allPrepared(client, statements)) return runPreparedBatch(client, statements);
  const results = await Promise.allSettled(statements.map((item) => runNamedStatement(client, item)));
  const failed = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failed) throw failed.reason;
  return results.map((result) => (result as PromiseFulfilledResult<unknown[]>).value);
}

/**
 * A transaction's connection, pipelined (the pool runs pg in pipeline mode):
 * BEGIN and the writes (SqlClient.write) are held and sent with the next
 * statement, or with COMMIT, in one write to the socket, so a transaction costs
 * a round trip per statement whose rows it reads, and one for the rest. The reads
 * issued in one turn of the event loop (`Promise.all` of queries) join one batch,
 * so independent reads share a round trip and one answer. The first failure of a
 * batch is the batch's: the server aborts the transaction at it, and a COMMIT
 * behind it only rolls back.
 */
function pipelinedTransaction(client: pg.PoolClient, cancelRunning: () => Promise<void>) {
  const held: Held[] = [{ text: 'BEGIN' }];
  // pg writes each statement to the socket as it is queued; corked until the tick ends, a batch leaves in one write.
  const socket = socketOf(client);
  let corked = false;
  const corkUntilTickEnds = () => {
    if (!socket || corked) return;
    corked = true;
    socket.cork();
    process.nextTick(() => {
      corked = false;
      socket.uncork();
    });
  };
  let begun = false;
  /** A value pg could not send: the held writes it went with are gone, so the transaction must not commit. */
  let unsendable: unknown;
  // Values in their text form first: a value pg cannot send fails here, before anything of its batch leaves.
  const takeHeld = (last?: Held) => {
    const items = last ? [...held.splice(0), last] : held.splice(0);
    try {
      return items.map((item) => statement(item.text, wireValues(item.params ?? [])));
    } catch (error) {
      unsendable ??= error;
      throw error;
    }
  };
  let turn: { statements: NamedStatement[]; waiting: Waiting[] } | undefined;
  const sendTurn = () => {
    const { statements, waiting } = turn!;
    turn = undefined;
    begun = true;
    corkUntilTickEnds();
    sendStatements(client, statements).then(
      (rows) => waiting.forEach((read) => read.resolve(rows[read.index])),
      (error: unknown) => waiting.forEach((read) => read.reject(error)),
    );
  };
  const query = <T extends object>(text: string, params: readonly unknown[] = []) =>
    new Promise<T[]>((resolve, reject) => {
      let statements: NamedStatement[];
      try {
        statements = takeHeld({ text, params });
      } catch (error) {
        reject(error);
        return;
      }
      if (!turn) {
        turn = { statements: [], waiting: [] };
        // After the turn's microtasks: the reads they issue join this batch.
        process.nextTick(sendTurn);
      }
      turn.statements.push(...statements);
      turn.waiting.push({ index: turn.statements.length - 1, resolve: resolve as (rows: unknown[]) => void, reject });
    });
  const sql: SqlClient = {
    query,
    async write(text: string, params: readonly unknown[] = []) {
      held.push({ text, params });
    },
    cancelRunning,
  };
  return {
    sql,
    /**
     * Sends what is held, then COMMIT as a simple query: PostgreSQL then sends its acknowledgement
     * before it reads another message. Committed by an Execute, the acknowledgement would wait for
     * the Sync behind it, and a backend terminated in between dies with the commit done and unacknowledged.
     */
    async commit() {
      if (unsendable) throw unsendable;
      const statements = takeHeld();
      begun = true;
      corkUntilTickEnds();
      const [sent, committed] = await Promise.allSettled([sendStatements(client, statements), client.query('COMMIT')]);
      if (sent.status === 'rejected') throw sent.reason;
      if (committed.status === 'rejected') throw committed.reason;
      // PostgreSQL answers COMMIT with ROLLBACK when a statement of the transaction failed, which work may have caught.
      if (committed.value.command !== 'COMMIT') throw new RolledBackAtCommitError();
    },
    /** Whether anything reached the server (else there is nothing to roll back). */
    begun: () => begun,
    /** Drops what was held and not sent. */
    discard: () => void held.splice(0),
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
    ...poolSql(pool),
    cancelBackend: (processId) => cancelBackend(pool, processId),
    async transaction<T>(work: (sql: SqlClient) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      let broken: Error | undefined;
      // A connection that loses its backend while it is out (pg_terminate_backend, a restart) goes
      // back marked broken, so the pool discards it (postgresPool keeps the error from crashing the process).
      const onError = (error: Error) => {
        broken = error;
      };
      client.on('error', onError);
      const { processID } = client as pg.PoolClient & { processID: number };
      const connection = pipelinedTransaction(client, () => cancelBackend(pool, processID));
      const scope = abandonable(connection.sql);
      try {
        const result = await work(scope.sql);
        await scope.close();
        await connection.commit();
        return result;
      } catch (error) {
        await scope.abandon();
        connection.discard();
        // A connection that cannot even roll back is discarded, not returned to the pool.
        if (connection.begun()) {
          await client.query('ROLLBACK').catch((rollbackError: Error) => {
            broken = rollbackError;
          });
        }
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
    async write(text: string, params: readonly unknown[] = []) {
      await pglite.query(text, params as unknown[]);
    },
    // PGlite is one session: its transaction() holds the instance exclusively, as Prisma's adapter does.
    transaction<T>(work: (sql: SqlClient) => Promise<T>): Promise<T> {
      return pglite.transaction(async (tx) => {
        const scope = abandonable({
          async query<R extends object>(text: string, params: readonly unknown[] = []) {
            return (await tx.query<R>(text, params as unknown[])).rows;
          },
          async write(text: string, params: readonly unknown[] = []) {
            await tx.query(text, params as unknown[]);
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
