import pg from 'pg';
import { prepareValue } from 'pg/lib/utils.js';

/** Parameters in the form pg sends them (text, or a Buffer, or null), as pg's own queries convert them. */
export const wireValues = (values: readonly unknown[]): unknown[] => values.map((value) => prepareValue(value));

/** A statement as the pool's connections prepare it: named after its text, with its parameters (see wireValues). */
export interface NamedStatement {
  name: string;
  text: string;
  values: unknown[];
}

/** The parts of pg's connection a batch writes to, and its record of what it has prepared. */
interface ProtocolConnection {
  parsedStatements: Record<string, string>;
  stream: { cork(): void; uncork(): void };
  bind(config: { statement: string; values: unknown[] }): void;
  describe(config: { type: 'P'; name: string }): void;
  execute(config: { portal: string }): void;
  sync(): void;
}

const connectionOf = (client: pg.PoolClient) => (client as pg.PoolClient & { connection: ProtocolConnection }).connection;

/** Whether the client's connection has prepared every statement (pg records a statement once the server has parsed it). */
export function allPrepared(client: pg.PoolClient, statements: readonly NamedStatement[]): boolean {
  const { parsedStatements } = connectionOf(client);
  return statements.every(({ name, text }) => parsedStatements[name] === text);
}

/**
 * Statements sent as one batch under a single Sync: PostgreSQL answers the whole batch in one
 * write, where a Sync per statement (pg's own queries) makes it send, and wake the client, once
 * a statement. The first failure ends the batch (the server skips what follows it up to the
 * Sync), as a failed statement in a transaction fails everything after it anyway. Only for
 * statements the connection has prepared: a Parse sent here would leave pg's record of prepared
 * statements wrong when the batch fails before the server reaches it.
 */
class PreparedBatch extends pg.Query {
  constructor(statements: readonly NamedStatement[], callback: (error: Error | undefined, results: unknown) => void) {
    super({ text: statements.map(({ name }) => name).join(';') }, callback);
    // pg's types declare submit as a property; a batch sends Bind, Describe and Execute per statement, then one Sync.
    this.submit = ((connection: ProtocolConnection) => {
      connection.stream.cork();
      try {
        for (const { name, values } of statements) {
          connection.bind({ statement: name, values });
          connection.describe({ type: 'P', name: '' });
          connection.execute({ portal: '' });
        }
        connection.sync();
      } finally {
        connection.stream.uncork();
      }
      return null;
    }) as unknown as pg.Query['submit'];
  }
}

/** Runs prepared statements as one batch (see PreparedBatch); resolves with each statement's rows, in order. */
export function runPreparedBatch(client: pg.PoolClient, statements: readonly NamedStatement[]): Promise<unknown[][]> {
  return new Promise((resolve, reject) => {
    client.query(
      new PreparedBatch(statements, (error, results) => {
        if (error) return reject(error);
        const list = (Array.isArray(results) ? results : [results]) as pg.QueryResult[];
        resolve(list.map(({ rows }) => rows));
      }),
    );
  });
}
