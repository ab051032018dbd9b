// src/db/namedStatements.ts is the one file that uses pg's private parts. This pins them: the
// installed pg must be the release that file was verified against, and every private member it
// touches must be there, with the shape it relies on. A pg upgrade fails here first, loudly,
// instead of breaking batches or row parsing quietly.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { prepareValue } from 'pg/lib/utils.js';
import { describe, expect, it } from 'vitest';
import { PG_VERSION_VERIFIED } from '../../src/db/namedStatements.js';
import { ROOT } from '../support/processes.js';

const installedPg = (createRequire(import.meta.url)('pg/package.json') as { version: string }).version;

describe('the pg internals src/db/namedStatements.ts uses', () => {
  it(`are pg ${PG_VERSION_VERIFIED}'s: package.json pins it exactly and it is the one installed`, () => {
    const pinned = JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8')).dependencies.pg;
    expect(pinned, 'package.json must pin pg exactly: namedStatements.ts depends on its internals').toBe(PG_VERSION_VERIFIED);
    expect(installedPg, `pg ${installedPg} is installed: re-verify src/db/namedStatements.ts against its internals, then raise PG_VERSION_VERIFIED`).toBe(PG_VERSION_VERIFIED);
  });

  it('a client\'s connection writes protocol messages and records what it prepared', () => {
    const connection = (new pg.Client() as unknown as { connection: Record<string, unknown> }).connection;
    for (const method of ['bind', 'describe', 'execute', 'sync']) expect(typeof connection[method], method).toBe('function');
    expect(connection.parsedStatements).toEqual({});
    const stream = connection.stream as { cork?: unknown; uncork?: unknown };
    expect(typeof stream.cork).toBe('function');
    expect(typeof stream.uncork).toBe('function');
  });

  it('a query hands rows and completions to the methods a subclass takes over, and keeps its result in _result', () => {
    const prototype = pg.Query.prototype as unknown as Record<string, unknown>;
    for (const method of ['handleRowDescription', 'handleDataRow', 'handleCommandComplete', 'submit', '_checkForMultirow']) {
      expect(typeof prototype[method], method).toBe('function');
    }
    const query = new pg.Query('SELECT 1') as unknown as { _result: Record<string, any> };
    expect(typeof query._result.addFields).toBe('function');
    expect(typeof query._result.parseRow).toBe('function');
    query._result.addFields([{ name: 'n', dataTypeID: 23, format: 'text' }]);
    expect(query._result._parsers).toHaveLength(1);
    expect(query._result._parsers[0]('42')).toBe(42);
    expect(query._result.fields).toEqual([{ name: 'n', dataTypeID: 23, format: 'text' }]);
  });

  it('prepareValue turns parameters into the text pg sends', () => {
    expect(prepareValue(new Date('2026-01-02T03:04:05.006Z'))).toMatch(/^2026-01-0[12]T/);
    expect(prepareValue(['a', 'b'])).toBe('{"a","b"}');
    expect(prepareValue(null)).toBeNull();
  });
});
