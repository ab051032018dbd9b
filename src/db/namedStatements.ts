// The one file that reaches into pg's private parts (its connection's protocol writer, its
// Query's result handling, its value conversion). test/db/pgInternals.test.ts holds every part
// used here against the installed pg and fails on any other version than PG_VERSION_VERIFIED:
// a pg upgrade re-verifies this file first. What it buys: docs/architecture.md, "pg internals".
import type { Writable } from 'node:stream';
import pg from 'pg';
import { prepareValue } from 'pg/lib/utils.js';

/** The pg release whose internals this file was written against (package.json pins it exactly). */
export const PG_VERSION_VERIFIED = '8.23.1';

/** Parameters in the form pg sends them (text, or a Buffer, or null), as pg's own queries convert them. */
export const wireValues = (values: readonly unknown[]): unknown[] => values.map((value) => prepareValue(value));

/** A statement as the pool's connections prepare it: named after its text, with its parameters in wire form (see wireValues). */
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

/** The socket pg writes a client's messages to, to cork a batch into one write; undefined if pg keeps none there. */
export const socketOf = (client: pg.PoolClient): Writable | undefined => (client as pg.PoolClient & { connection?: { stream?: Writable } }).connection?.stream;

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
  handleDataRow(message: unknown): void;
  handleCommandComplete(message: unknown, connection: unknown): void;
  submit(connection: ProtocolConnection): Error | null;
}

/** A statement's columns (none for a statement without rows), with the parser of each (pg's, for the column's type). */
interface RowShape {
  fields: FieldDescription[];
  parseRow: ParseRow;
}

function rowShapeOf(fields: FieldDescription[], parsers: readonly ((value: string) => unknown)[]): RowShape {
  const names = fields.map((field) => field.name);
  return {
    fields,
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

const NO_COLUMNS = rowShapeOf([], []);

/**
 * Row shapes by statement name, for each connection: once a connection has prepared a
 * statement its columns are fixed (PostgreSQL refuses to run it should a table change them),
 * so the shape learnt from its first description holds for every later execution there.
 */
const rowShapes = new WeakMap<ProtocolConnection, Map<string, RowShape>>();

function rowShapesOf(connection: ProtocolConnection): Map<string, RowShape> {
  let shapes = rowShapes.get(connection);
  if (!shapes) {
    shapes = new Map();
    rowShapes.set(connection, shapes);
  }
  return shapes;
}

const pgQuery = pg.Query.prototype as unknown as QueryInternals;

/**
 * Named statements as one pg query, with rows parsed by each statement's shape. pg rebuilds a
 * result's parsers from every RowDescription, and copies a template of the column names for
 * every row: 6 % of a server process's busy time at 500 mutations/s, for the service's wide
 * rows. Here a statement's shape is learnt from its first description on a connection (see
 * rowShapes) and reused there. Rows come in text format (nothing here asks for binary), which
 * is all the shapes parse.
 */
abstract class RowShapedQuery extends pg.Query {
  /** The shapes of the connection the query is sent on, taken when it is submitted. */
  protected shapes!: Map<string, RowShape>;
  /** Statements answered so far: what arrives now belongs to the one after them. */
  private answered = 0;
  /** Whether the statement being answered has its result and shape in place (from its RowDescription or its first row). */
  private shaped = false;

  constructor(
    protected readonly names: readonly string[],
    text: string,
    values: unknown[] | undefined,
    callback: (error: Error | undefined, results: unknown) => void,
  ) {
    // Text and callback as arguments: a config object would be copied property by property (pg's normalizeQueryConfig).
    super(text, values, callback);
    // pg's types declare submit as a property.
    this.submit = ((connection: ProtocolConnection) => {
      this.shapes = rowShapesOf(connection);
      return this.send(connection);
    }) as unknown as pg.Query['submit'];
  }

  /** Writes the query's messages to the connection, as pg's submit does. */
  protected abstract send(connection: ProtocolConnection): Error | null;

  /** Starts the result of the statement being answered, parsed by `shape`. */
  private shapeResult(shape: RowShape): void {
    const query = this as unknown as QueryInternals;
    query._checkForMultirow();
    query._result.fields = shape.fields;
    query._result.parseRow = shape.parseRow;
    query._accumulateRows = true;
    this.shaped = true;
  }

  handleRowDescription(message: { fields: FieldDescription[] }): void {
    const name = this.names[this.answered];
    let shape = this.shapes.get(name);
    if (!shape) {
      const result = (this as unknown as QueryInternals)._result;
      result.addFields(message.fields);
      shape = rowShapeOf(message.fields, result._parsers);
      this.shapes.set(name, shape);
    }
    this.shapeResult(shape);
  }

  /** A row of a statement sent without a Describe (see PreparedBatch) comes without a RowDescription before it. */
  handleDataRow(message: unknown): void {
    if (!this.shaped) this.shapeResult(this.shapes.get(this.names[this.answered])!);
    pgQuery.handleDataRow.call(this, message);
  }

  handleCommandComplete(message: unknown, connection: unknown): void {
    // Described and answered without a RowDescription: the statement has no columns.
    if (!this.shaped) {
      const name = this.names[this.answered];
      if (!this.shapes.has(name)) this.shapes.set(name, NO_COLUMNS);
    }
    pgQuery.handleCommandComplete.call(this, message, connection);
    this.answered += 1;
    this.shaped = false;
  }
}

/** One named statement, through pg's own preparation: Parse the first time on a connection, then Bind, Describe, Execute and Sync. */
class NamedStatementQuery extends RowShapedQuery {
  constructor(statement: NamedStatement, callback: (error: Error | undefined, results: unknown) => void) {
    super([statement.name], statement.text, statement.values, callback);
    (this as unknown as QueryInternals).name = statement.name;
  }

  protected send(connection: ProtocolConnection): Error | null {
    return pgQuery.submit.call(this, connection);
  }
}

/**
 * Statements sent as one batch under a single Sync: PostgreSQL answers the whole batch in one
 * write, where a Sync per statement (pg's own queries) makes it send, and wake the client, once
 * a statement. The first failure ends the batch (the server skips what follows it up to the
 * Sync), as a failed statement in a transaction fails everything after it anyway. Only for
 * statements the connection has prepared: a Parse sent here would leave pg's record of prepared
 * statements wrong when the batch fails before the server reaches it. A statement whose shape
 * the connection knows goes without a Describe: PostgreSQL need not describe its columns
 * again, nor the client read them.
 */
class PreparedBatch extends RowShapedQuery {
  constructor(
    private readonly statements: readonly NamedStatement[],
    callback: (error: Error | undefined, results: unknown) => void,
  ) {
    const names = statements.map(({ name }) => name);
    super(names, names.join(';'), undefined, callback);
  }

  protected send(connection: ProtocolConnection): null {
    connection.stream.cork();
    try {
      for (const { name, values } of this.statements) {
        connection.bind({ statement: name, values });
        if (!this.shapes.has(name)) connection.describe({ type: 'P', name: '' });
        connection.execute({ portal: '' });
      }
      connection.sync();
    } finally {
      connection.stream.uncork();
    }
    return null;
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
 * Runs one named statement on a connection of the pool, as a batch of one once the connection
 * has prepared it (see PreparedBatch). A connection that failed while it was
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
    return allPrepared(client, [statement]) ? (await runPreparedBatch(client, [statement]))[0] : await runNamedStatement(client, statement);
  } finally {
    client.off('error', onError);
    client.release(broken);
  }
}
