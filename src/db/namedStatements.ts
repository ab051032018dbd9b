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

interface FieldDescription {
  name: string;
}

type Row = Record<string, unknown>;
type ParseRow = (values: (string | null)[]) => Row;

/** pg 8's private parts of a query and its result that RowShapedQuery takes over. */
interface QueryInternals {
  name?: string;
  _result: { fields: FieldDescription[]; _parsers: ((value: string) => unknown)[]; parseRow: ParseRow; addFields(fields: FieldDescription[]): void };
  _accumulateRows: boolean;
  _checkForMultirow(): void;
  handleCommandComplete(message: unknown, connection: unknown): void;
}

/** A statement's columns, in order, with the parser of each (pg's, for the column's type). */
interface RowShape {
  columns: number;
  parseRow: ParseRow;
}

/**
 * Row shapes by statement name, for the process: a named statement's text fixes its columns,
 * so the shape learnt from its first RowDescription holds for every later one.
 */
const rowShapes = new Map<string, RowShape>();

function rowShapeOf(names: readonly string[], parsers: readonly ((value: string) => unknown)[]): RowShape {
  return {
    columns: names.length,
    // Properties added in the same order give every row one hidden class, where pg copies each from a dictionary-mode template.
    parseRow(values) {
      const row: Row = {};
      for (let i = 0; i < values.length; i++) {
        const value = values[i];
        row[names[i]] = value === null ? null : parsers[i](value);
      }
      return row;
    },
  };
}

const pgQuery = pg.Query.prototype as unknown as QueryInternals;

/**
 * Named statements as one pg query, with rows parsed by each statement's shape. pg rebuilds a
 * result's parsers from every RowDescription, and copies a template of the column names for
 * every row: for the service's wide rows that cost more than reading the answer. Here the
 * parsers pg built for a statement's first RowDescription are kept (see rowShapes), and reused
 * for every later one with the same number of columns. Rows come in text format (nothing here
 * asks for binary), which is all the shapes parse.
 */
class RowShapedQuery extends pg.Query {
  /** Statements answered so far: a RowDescription describes the one after them. */
  private answered = 0;

  constructor(
    private readonly names: readonly string[],
    text: string,
    values: unknown[] | undefined,
    callback: (error: Error | undefined, results: unknown) => void,
  ) {
    // Text and callback as arguments: a config object would be copied property by property (pg's normalizeQueryConfig).
    super(text, values, callback);
  }

  handleRowDescription(message: { fields: FieldDescription[] }): void {
    const query = this as unknown as QueryInternals;
    query._checkForMultirow();
    const result = query._result;
    const name = this.names[this.answered];
    let shape = rowShapes.get(name);
    if (shape?.columns !== message.fields.length) {
      result.addFields(message.fields);
      shape = rowShapeOf(
        message.fields.map((field) => field.name),
        result._parsers,
      );
      rowShapes.set(name, shape);
    }
    result.fields = message.fields;
    result.parseRow = shape.parseRow;
    query._accumulateRows = true;
  }

  handleCommandComplete(message: unknown, connection: unknown): void {
    pgQuery.handleCommandComplete.call(this, message, connection);
    this.answered += 1;
  }
}

/** One named statement, through pg's own preparation: Parse the first time on a connection, then Bind, Describe, Execute and Sync. */
class NamedStatementQuery extends RowShapedQuery {
  constructor(statement: NamedStatement, callback: (error: Error | undefined, results: unknown) => void) {
    super([statement.name], statement.text, statement.values, callback);
    (this as unknown as QueryInternals).name = statement.name;
  }
}

/**
 * Statements sent as one batch under a single Sync: PostgreSQL answers the whole batch in one
 * write, where a Sync per statement (pg's own queries) makes it send, and wake the client, once
 * a statement. The first failure ends the batch (the server skips what follows it up to the
 * Sync), as a failed statement in a transaction fails everything after it anyway. Only for
 * statements the connection has prepared: a Parse sent here would leave pg's record of prepared
 * statements wrong when the batch fails before the server reaches it.
 */
class PreparedBatch extends RowShapedQuery {
  constructor(statements: readonly NamedStatement[], callback: (error: Error | undefined, results: unknown) => void) {
    const names = statements.map(({ name }) => name);
    super(names, names.join(';'), undefined, callback);
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

const rowsOf = (results: unknown): unknown[][] => ((Array.isArray(results) ? results : [results]) as pg.QueryResult[]).map(({ rows }) => rows);

/** Runs one named statement on the client; resolves with its rows. */
export function runNamedStatement(client: pg.PoolClient, statement: NamedStatement): Promise<unknown[]> {
  return new Promise((resolve, reject) => {
    client.query(new NamedStatementQuery(statement, (error, results) => (error ? reject(error) : resolve(rowsOf(results)[0]))));
  });
}

/** Runs prepared statements as one batch (see PreparedBatch); resolves with each statement's rows, in order. */
export function runPreparedBatch(client: pg.PoolClient, statements: readonly NamedStatement[]): Promise<unknown[][]> {
  return new Promise((resolve, reject) => {
    client.query(new PreparedBatch(statements, (error, results) => (error ? reject(error) : resolve(rowsOf(results)))));
  });
}

/**
 * Runs one named statement on a connection of the pool. A connection that failed while it was
 * out is discarded; one whose statement the server refused (a constraint, a lock timeout) is
 * as usable as before and goes back.
 */
export async function runPooledStatement(pool: pg.Pool, statement: NamedStatement): Promise<unknown[]> {
  const client = await pool.connect();
  let broken: Error | undefined;
  const onError = (error: Error) => {
    broken = error;
  };
  client.on('error', onError);
  try {
    return await runNamedStatement(client, statement);
  } finally {
    client.off('error', onError);
    client.release(broken);
  }
}
