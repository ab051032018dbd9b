// Infrastructure failures say so. A database that cannot be used (down, refusing
// connections, a connection lost mid-request) is 503 service_unavailable with
// Retry-After, never a 500, and is not stored as an Idempotency-Key's answer;
// /readyz does not flap when a pooled connection dies; a request without Host
// still gets the envelope and X-Request-Id; every response says nosniff, and the
// hosted receipt page a strict Content-Security-Policy.
// Which errors mean "unavailable" is checked on errors produced for real: refused
// and hanging sockets here, terminated backends and refused connections on the
// PostgreSQL test server (only this file's databases are disturbed).
import { createServer, type Server, type Socket } from 'node:net';
import { PrismaPg } from '@prisma/adapter-pg';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/database.js';
import { isDatabaseUnavailable } from '../../src/db/databaseUnavailable.js';
import { PrismaClient } from '../../src/db/generated/client.js';
import { postgresSql } from '../../src/db/sql.js';
import { createAndCompleteSale, fiscalizedRegisterWithSession, idem, saleBody, type OperationsFixture } from '../support/operations.js';
import { createEmptyPostgresDatabase, freePort, openConnection, parseResponses, type RawResponse } from '../support/processes.js';
import { ADMIN_TOKEN, createTenantWithKey, createTestApp, json, TEST_SECRETS_KEY, type TestApp } from '../support/testApp.js';
import { expectEnvelope, pgClient, usesPostgres } from './support.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const ignore = () => undefined;

/** The error a promise rejects with; fails the test when it resolves. */
async function rejection(promise: Promise<unknown>): Promise<any> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

/** The 503 of a database that cannot be used: envelope, retryable, Retry-After, X-Request-Id. */
function expectUnavailable(status: number, headers: Record<string, unknown>, body: string, what: string) {
  expect(status, `${what}: ${body}`).toBe(503);
  const envelope = expectEnvelope(status, headers, body, what);
  expect(envelope.code, what).toBe('service_unavailable');
  expect(envelope.retryable, what).toBe(true);
  expect(Number(headers['retry-after']), `${what} retry-after`).toBeGreaterThanOrEqual(1);
  return envelope;
}
const expectUnavailableResponse = (response: LightMyRequestResponse, what: string) =>
  expectUnavailable(response.statusCode, response.headers, response.body, what);

/** A TCP server that does one thing with every connection (close it, reset it, or never answer). */
async function fakeDatabaseServer(onConnection: (socket: Socket) => void): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', ignore);
    socket.on('close', () => sockets.delete(socket));
    onConnection(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `postgresql://postgres@127.0.0.1:${port}/fiscal`,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const closedPortUrl = async () => `postgresql://postgres@127.0.0.1:${await freePort()}/fiscal`;

describe('which errors mean the database is unavailable (produced without a database)', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(ignore);
  });
  const pool = (config: pg.PoolConfig) => {
    const created = new pg.Pool(config);
    created.on('error', ignore);
    cleanups.push(() => created.end());
    return created;
  };

  it('a refused connection, through pg and through Prisma', async () => {
    const url = await closedPortUrl();
    const direct = await rejection(pool({ connectionString: url }).query('SELECT 1'));
    expect(direct.code).toBe('ECONNREFUSED');
    expect(isDatabaseUnavailable(direct)).toBe(true);

    const prisma = new PrismaClient({ adapter: new PrismaPg(pool({ connectionString: url })) });
    cleanups.push(() => prisma.$disconnect());
    const viaPrisma = await rejection(prisma.merchant.count());
    expect(viaPrisma.code).toBe('P1001');
    expect(isDatabaseUnavailable(viaPrisma)).toBe(true);
    const viaTransaction = await rejection(prisma.$transaction((tx) => tx.merchant.count()));
    expect(isDatabaseUnavailable(viaTransaction)).toBe(true);
  });

  it('a connection closed, reset or left unanswered by the server, and a pool checkout that times out, in pg and in Prisma', async () => {
    const closing = await fakeDatabaseServer((socket) => socket.destroy());
    cleanups.push(() => closing.close());
    const closed = await rejection(pool({ connectionString: closing.url }).query('SELECT 1'));
    expect(closed.message).toBe('Connection terminated unexpectedly');
    expect(isDatabaseUnavailable(closed)).toBe(true);

    const resetting = await fakeDatabaseServer((socket) => socket.resetAndDestroy());
    cleanups.push(() => resetting.close());
    const reset = await rejection(pool({ connectionString: resetting.url }).query('SELECT 1'));
    expect(reset.code).toBe('ECONNRESET');
    expect(isDatabaseUnavailable(reset)).toBe(true);

    const silent = await fakeDatabaseServer(ignore);
    cleanups.push(() => silent.close());
    const onePool = pool({ connectionString: silent.url, max: 1, connectionTimeoutMillis: 300 });
    const [connecting, waiting] = await Promise.all([rejection(onePool.query('SELECT 1')), rejection(onePool.query('SELECT 1'))]);
    expect(connecting.message).toBe('Connection terminated due to connection timeout');
    expect(isDatabaseUnavailable(connecting)).toBe(true);
    expect(waiting.message).toBe('timeout exceeded when trying to connect');
    expect(isDatabaseUnavailable(waiting)).toBe(true);

    const prisma = new PrismaClient({ adapter: new PrismaPg(pool({ connectionString: silent.url, max: 1, connectionTimeoutMillis: 2000 })) });
    cleanups.push(() => prisma.$disconnect());
    const notStarted = await rejection(prisma.$transaction((tx) => tx.merchant.count(), { maxWait: 200 }));
    expect(notStarted.code).toBe('P2028');
    expect(isDatabaseUnavailable(notStarted)).toBe(true);
  });

  it('genuine bugs are not', () => {
    for (const error of [new Error('boom'), new TypeError("Cannot read properties of undefined (reading 'id')"), new RangeError('x'), 'text', null, undefined, 42]) {
      expect(isDatabaseUnavailable(error), String(error)).toBe(false);
    }
  });
});

describe.skipIf(!usesPostgres)('which errors mean the database is unavailable (produced by PostgreSQL)', () => {
  let scratch: { url: string; drop(): Promise<void> };
  let dbName: string;
  let admin: pg.Client;
  let pool: pg.Pool;
  let prisma: PrismaClient;

  beforeAll(async () => {
    scratch = await createEmptyPostgresDatabase();
    dbName = new URL(scratch.url).pathname.slice(1);
    admin = await pgClient(process.env.DATABASE_URL!);
    pool = new pg.Pool({ connectionString: scratch.url, max: 4 });
    pool.on('error', ignore);
    prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
    await pool.query('CREATE TABLE items (id int PRIMARY KEY)');
    await pool.query('CREATE SEQUENCE counter');
  });
  afterAll(async () => {
    await admin?.query(`ALTER DATABASE ${dbName} ALLOW_CONNECTIONS true`).catch(ignore);
    await prisma?.$disconnect();
    await pool?.end();
    await admin?.end();
    await scratch?.drop();
  });

  const terminateAll = () =>
    admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [dbName]);

  /** Waits until a statement of the scratch database is running (so terminating its backend interrupts it). */
  async function untilRunning(pattern: string) {
    for (let i = 0; i < 200; i++) {
      const { rowCount } = await admin.query(`SELECT 1 FROM pg_stat_activity WHERE datname = $1 AND state = 'active' AND query LIKE $2`, [dbName, pattern]);
      if (rowCount) return;
      await sleep(10);
    }
    throw new Error(`no running ${pattern}`);
  }

  it('a query whose backend is terminated (57P01), through pg and through Prisma', async () => {
    const direct = rejection(pool.query('SELECT pg_sleep(10) AS direct'));
    await untilRunning('%AS direct');
    await terminateAll();
    const error = await direct;
    expect(error.code).toBe('57P01');
    expect(isDatabaseUnavailable(error)).toBe(true);

    const viaPrisma = rejection(prisma.$queryRawUnsafe('SELECT pg_sleep(10) AS via_prisma'));
    await untilRunning('%AS via_prisma');
    await terminateAll();
    const wrapped = await viaPrisma;
    expect(wrapped.code).toBe('P2010');
    expect(wrapped.meta.driverAdapterError.cause.code).toBe('57P01');
    expect(isDatabaseUnavailable(wrapped)).toBe(true);
  });

  it('a transaction whose connection is lost between two statements, in plain SQL and through Prisma', async () => {
    const lostBetween = async (query: (text: string) => Promise<unknown>) => {
      await query('SELECT 1');
      await terminateAll();
      await sleep(200);
      return query('SELECT 2');
    };
    const plain = await rejection(postgresSql(pool).transaction((sql) => lostBetween((text) => sql.query(text))));
    expect(plain.message).toBe('Client has encountered a connection error and is not queryable');
    expect(isDatabaseUnavailable(plain)).toBe(true);

    const viaPrisma = await rejection(prisma.$transaction((tx) => lostBetween((text) => tx.$queryRawUnsafe(text))));
    expect(isDatabaseUnavailable(viaPrisma)).toBe(true);
  });

  it('a database that refuses connections (FATAL 55000), through pg and through Prisma', async () => {
    await admin.query(`ALTER DATABASE ${dbName} ALLOW_CONNECTIONS false`);
    try {
      await terminateAll();
      await sleep(100);
      const direct = await rejection(pool.query('SELECT 1'));
      expect(direct.code).toBe('55000');
      expect(isDatabaseUnavailable(direct)).toBe(true);
      const model = await rejection(prisma.merchant.count());
      expect(model.meta.driverAdapterError.cause.code).toBe('55000');
      expect(isDatabaseUnavailable(model)).toBe(true);
      expect(isDatabaseUnavailable(await rejection(prisma.$queryRawUnsafe('SELECT 1')))).toBe(true);
    } finally {
      await admin.query(`ALTER DATABASE ${dbName} ALLOW_CONNECTIONS true`);
    }
  });

  it('answers the database gave to a bad statement, and misuse of a transaction, are not (with the same codes where they exist)', async () => {
    let finished: Parameters<Parameters<typeof prisma.$transaction>[0]>[0] | undefined;
    await prisma.$transaction(async (tx) => {
      finished = tx;
    });
    const answers = [
      await rejection(pool.query('SELEC 1')),
      await rejection(prisma.$queryRawUnsafe('SELEC 1')),
      await rejection(pool.query('SELECT 1 / 0')),
      // 55000 like a refused database, but an ERROR of this session, not a FATAL ending it.
      await rejection(pool.query("SELECT currval('counter')")),
      await rejection(prisma.$executeRawUnsafe('INSERT INTO items (id) VALUES (1), (1)')),
      // P2028 like a transaction that could not start in time, but a bug: the transaction is over.
      await rejection(finished!.$queryRawUnsafe('SELECT 1')),
    ];
    expect(answers.map((error) => error.code)).toEqual(['42601', 'P2010', '22012', '55000', 'P2010', 'P2028']);
    for (const error of answers) expect(isDatabaseUnavailable(error), error.message).toBe(false);
  });
});

describe('a database that is down (the pool points at a closed port)', () => {
  let app: FastifyInstance;
  let closeDatabase: () => Promise<void>;

  beforeAll(async () => {
    const database = await openDatabase({ databaseUrl: await closedPortUrl(), poolSize: 2 });
    closeDatabase = () => database.close();
    const config = loadConfig({ LOG_LEVEL: 'silent', ADMIN_TOKEN, DATA_DIR: '/tmp/fiscal-test-data', EXPORT_WORKER: 'off' });
    app = await buildApp({ config, database, secretsKey: TEST_SECRETS_KEY });
    await app.ready();
  });
  afterAll(async () => {
    await app?.close();
    await closeDatabase?.();
  });

  it('API calls and /readyz are 503 service_unavailable with Retry-After; /healthz stays 200', async () => {
    const headers = { authorization: `Bearer svc_test_deu_${'A'.repeat(26)}`, 'x-service-merchant': 'mer_unknown' };
    const list = await app.inject({ method: 'GET', url: '/v1/registers', headers });
    expectUnavailableResponse(list, 'list');
    const create = await app.inject({ method: 'POST', url: '/v1/operations', headers: { ...headers, 'idempotency-key': idem() }, payload: saleBody('reg_x') });
    expectUnavailableResponse(create, 'create');
    const admin = await app.inject({ method: 'POST', url: '/admin/v1/tenants', headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, payload: { name: 'x' } });
    expectUnavailableResponse(admin, 'admin');
    const ready = await app.inject({ method: 'GET', url: '/readyz' });
    expect(expectUnavailableResponse(ready, 'readyz').details).toEqual({ database: 'unavailable' });
    expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });

  it('every API operation documents the 503', async () => {
    const doc = json(await app.inject({ method: 'GET', url: '/openapi-json' }));
    const undocumented = Object.entries<Record<string, { responses: Record<string, unknown> }>>(doc.paths)
      .filter(([path]) => path.startsWith('/v1/'))
      .flatMap(([path, operations]) => Object.entries(operations).filter(([, operation]) => !operation.responses['503']).map(([method]) => `${method} ${path}`));
    expect(undocumented).toEqual([]);
  });
});

describe.skipIf(!usesPostgres)('connections of the pool terminated (PostgreSQL)', () => {
  let t: TestApp;
  let fx: OperationsFixture;
  let admin: pg.Client;
  let dbName: string;

  beforeAll(async () => {
    t = await createTestApp({ EXPORT_WORKER: 'off' });
    dbName = new URL(t.databaseUrl!).pathname.slice(1);
    admin = await pgClient(process.env.DATABASE_URL!);
    fx = await fiscalizedRegisterWithSession(t.app, (await createTenantWithKey(t.database, 'DEU')).apiKey);
  });
  afterAll(async () => {
    await admin?.end();
    await t?.close();
  });

  /**
   * Several idle connections in the app's pool, as after a burst of requests. First a pause:
   * the pool evicts a connection whose backend ended once it hears of it, a moment later.
   */
  const warmPool = async () => {
    await sleep(100);
    await Promise.all(Array.from({ length: 5 }, () => t.database.sql.query('SELECT pg_sleep(0.05)')));
  };
  const terminate = async (limit: number) =>
    (
      await admin.query(
        'SELECT pg_terminate_backend(pid) FROM (SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid() LIMIT $2) AS pool',
        [dbName, limit],
      )
    ).rowCount ?? 0;

  it('requests on a terminated connection are 503 service_unavailable with Retry-After, never 500, and not stored under their key', async () => {
    const outcomes: { what: string; response: LightMyRequestResponse; key?: string }[] = [];
    for (let round = 0; round < 6; round++) {
      await warmPool();
      expect(await terminate(100)).toBeGreaterThan(0);
      const key = idem();
      outcomes.push({
        what: `create ${round}`,
        key,
        response: await t.app.inject({ method: 'POST', url: '/v1/operations', headers: { ...fx.headers, 'idempotency-key': key }, payload: saleBody(fx.registerId) }),
      });
      outcomes.push({ what: `list ${round}`, response: await t.app.inject({ method: 'GET', url: '/v1/registers', headers: fx.headers }) });
    }
    const failures = outcomes.filter(({ response }) => response.statusCode >= 300);
    // Right after the termination the pool still hands out a dead connection, so requests do fail.
    expect(failures.length).toBeGreaterThan(0);
    for (const { what, response } of failures) expectUnavailableResponse(response, what);

    await warmPool();
    expect(await t.database.sql.query(`SELECT 1 FROM idempotency_keys WHERE response_status >= 500`)).toEqual([]);
    for (const { what, key } of failures.filter((failure) => failure.key)) {
      const retry = await t.app.inject({ method: 'POST', url: '/v1/operations', headers: { ...fx.headers, 'idempotency-key': key! }, payload: saleBody(fx.registerId) });
      expect(retry.statusCode, `${what} retried: ${retry.body}`).toBe(201);
      expect(retry.headers['idempotent-replayed']).toBeUndefined();
    }
  });

  it('/readyz stays 200 when one pooled connection, or all of them, are terminated', async () => {
    const statuses: number[] = [];
    for (let round = 0; round < 8; round++) {
      await warmPool();
      expect(await terminate(round % 2 === 0 ? 1 : 100)).toBeGreaterThan(0);
      for (let call = 0; call < 3; call++) statuses.push((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode);
    }
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
  });
});

describe('HTTP without a Host header, and nosniff (a listening server)', () => {
  let t: TestApp;
  let port: number;

  beforeAll(async () => {
    t = await createTestApp({ EXPORT_WORKER: 'off' });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as { port: number }).port;
  });
  afterAll(() => t?.close());

  async function exchange(raw: string): Promise<RawResponse> {
    const connection = await openConnection(port);
    connection.socket.write(raw, 'latin1');
    const timer = setTimeout(() => connection.socket.destroy(), 5000);
    const [response] = parseResponses(await connection.received);
    clearTimeout(timer);
    if (!response) throw new Error(`no answer to ${JSON.stringify(raw)}`);
    return response;
  }

  it('HTTP/1.1 without Host is 400 invalid_request naming the header, with X-Request-Id', async () => {
    for (const path of ['/healthz', '/v1/registers', '/no/such/route']) {
      const response = await exchange(`GET ${path} HTTP/1.1\r\nConnection: close\r\n\r\n`);
      expect(response.status, `${path}: ${response.body}`).toBe(400);
      const body = expectEnvelope(response.status, response.headers, response.body, path);
      expect(body.code).toBe('invalid_request');
      expect(body.details).toEqual({ header: 'Host' });
    }
    const echoed = await exchange('GET /healthz HTTP/1.1\r\nX-Request-Id: probe-no-host\r\nConnection: close\r\n\r\n');
    expect(echoed.headers['x-request-id']).toBe('probe-no-host');
  });

  it('HTTP/1.0 needs no Host: answered as usual, with X-Request-Id', async () => {
    const health = await exchange('GET /healthz HTTP/1.0\r\n\r\n');
    expect(health.status).toBe(200);
    expect(health.headers['x-request-id']).toBeTruthy();
    const unauthorized = await exchange('GET /v1/registers HTTP/1.0\r\n\r\n');
    expect(unauthorized.status).toBe(401);
    expect(expectEnvelope(unauthorized.status, unauthorized.headers, unauthorized.body, 'HTTP/1.0').code).toBe('unauthorized');
  });

  it('every response says X-Content-Type-Options: nosniff, whatever answered it', async () => {
    const answers = {
      ok: await exchange('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
      notFound: await exchange('GET /nowhere HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
      badUrl: await exchange('GET /v1/registers/%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
      unparsable: await exchange('GET /healthz HTTP/1.1\r\nHost: x\r\nBroken Header\r\n\r\n'),
      noHost: await exchange('GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n'),
    };
    expect(Object.fromEntries(Object.entries(answers).map(([what, response]) => [what, response.headers['x-content-type-options']]))).toEqual({
      ok: 'nosniff',
      notFound: 'nosniff',
      badUrl: 'nosniff',
      unparsable: 'nosniff',
      noHost: 'nosniff',
    });
  });
});

describe('the hosted receipt page and PDF', () => {
  let t: TestApp;
  let hostedPath: string;

  beforeAll(async () => {
    t = await createTestApp({ EXPORT_WORKER: 'off' });
    const fx = await fiscalizedRegisterWithSession(t.app, (await createTenantWithKey(t.database, 'DEU')).apiKey);
    const sale = await createAndCompleteSale(t.app, fx);
    const receipt = json(await t.app.inject({ method: 'GET', url: `/v1/receipts/${sale.receipt_id}`, headers: fx.headers }));
    hostedPath = new URL(receipt.links.hosted).pathname;
  });
  afterAll(() => t?.close());

  it('the page sends a strict Content-Security-Policy that allows exactly what the page uses', async () => {
    const page = await t.app.inject({ method: 'GET', url: hostedPath });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-security-policy']).toBe(
      "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.headers['cache-control']).toMatch(/^private/);
    // What the policy allows is what the page needs: inline styles and an inline SVG, nothing loaded.
    expect(page.body).toMatch(/<style>/);
    expect(page.body).toMatch(/<svg[\s>]/);
    expect(page.body).not.toMatch(/<(script|img|link|iframe|object|embed|form)[\s>]|\s(src|href|srcset|action)=/i);
  });

  it('the PDF says nosniff and is kept out of shared caches and referrers too', async () => {
    const pdf = await t.app.inject({ method: 'GET', url: `${hostedPath}/pdf` });
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers['content-type']).toMatch(/^application\/pdf/);
    expect(pdf.headers['x-content-type-options']).toBe('nosniff');
    expect(pdf.headers['referrer-policy']).toBe('no-referrer');
    expect(pdf.headers['cache-control']).toMatch(/^private/);
  });
});
