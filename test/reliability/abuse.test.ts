// Abuse from outside. The per-key budget (contract 8) belongs to the
// authenticated key: a key padded with U+00A0, spaces or tabs is 401, never a
// budget of its own. Requests without a valid key are limited per client
// address: a flood of invalid keys gets 429 with Retry-After before it costs a
// database lookup, and the public token routes and the admin API count there
// too, whatever Authorization header they carry. Hosted-receipt tokens, export
// download signatures and API keys never reach the log.
import type { AddressInfo } from 'node:net';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '../../src/lib/apiKeys.js';
import { createAndCompleteSale, createOperation, fiscalizedRegisterWithSession } from '../support/operations.js';
import { openConnection } from '../support/processes.js';
import { ADMIN_TOKEN, auth, createTenantWithKey, createTestApp, expectError, json, type TestApp } from '../support/testApp.js';

const LIMIT = 5;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let t: TestApp;
/** API key lookups that reached the database. */
let lookups = 0;

beforeAll(async () => {
  t = await createTestApp({ RATE_LIMIT_PER_SECOND: String(LIMIT) });
  // Authentication reads api_keys through ctx.sql, this very object: count the statements that do.
  const sql = t.database.sql;
  const query = sql.query.bind(sql);
  sql.query = ((text: string, params?: readonly unknown[]) => {
    if (text.includes('FROM api_keys')) lookups++;
    return query(text, params);
  }) as typeof sql.query;
});
afterAll(() => t?.close());

let addresses = 0;
/** A client address of its own for each burst (TEST-NET-2), so bursts share no per-address budget. */
const newAddress = () => `198.51.100.${++addresses}`;
const unknownKey = () => generateApiKey('tenant', 'test', 'DEU').apiKey;

const list = (headers: Record<string, string>, remoteAddress: string) =>
  t.app.inject({ method: 'GET', url: '/v1/merchants', headers, remoteAddress });

function expectRateLimited(response: LightMyRequestResponse, budget: 'api_key' | 'client_address') {
  const body = expectError(response, 429, 'rate_limit_exceeded');
  expect(Number(response.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  expect(body.details).toMatchObject({ budget, limit: LIMIT, retry_after_seconds: Number(response.headers['retry-after']) });
}

/**
 * Runs `burst` until it fits into one one-second budget window (a budget's window
 * starts with its first request), with fresh addresses and what `prepare` makes each time.
 */
async function inOneWindow<T, S = void>(burst: (prepared: S) => Promise<T>, prepare?: () => Promise<S>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const prepared = (await prepare?.()) as S;
    const started = Date.now();
    const result = await burst(prepared);
    if (Date.now() - started < 900) return result;
    if (attempt === 3) throw new Error('the burst never fit into one rate-limit window');
  }
}

describe('the per-key budget belongs to the key, not to the header text', () => {
  const padded = (key: string): [string, string][] => [
    ['U+00A0 after the key', `Bearer ${key}\u00a0`],
    ['U+00A0 before the key', `Bearer \u00a0${key}`],
    ['U+00A0 before the scheme', `\u00a0Bearer ${key}`],
    ['a trailing space', `Bearer ${key} `],
    ['a leading space', ` Bearer ${key}`],
    ['two spaces', `Bearer  ${key}`],
    ['a tab for the space', `Bearer\t${key}`],
    ['a trailing tab', `Bearer ${key}\t`],
    ['a lowercase scheme', `bearer ${key}`],
  ];

  it('a key padded with U+00A0, spaces or tabs is 401 unauthorized', async () => {
    const { apiKey } = await createTenantWithKey(t.database);
    for (const [what, header] of padded(apiKey)) {
      const response = await list({ authorization: header }, newAddress());
      expect(response.statusCode, `${what}: ${response.body}`).toBe(401);
      expectError(response, 401, 'unauthorized');
    }
  });

  it('padding never buys requests past the key’s budget', async () => {
    const statuses = await inOneWindow(async (key) => {
      const address = newAddress();
      const codes: number[] = [];
      for (let i = 0; i < LIMIT; i++) codes.push((await list(auth(key), address)).statusCode);
      for (const [, header] of padded(key)) codes.push((await list({ authorization: header }, address)).statusCode);
      codes.push((await list(auth(key), address)).statusCode);
      return codes;
    }, async () => (await createTenantWithKey(t.database)).apiKey);
    expect(statuses.slice(0, LIMIT)).toEqual(Array(LIMIT).fill(200));
    expect(statuses.slice(LIMIT).filter((status) => status === 200)).toEqual([]);
    expect(statuses.at(-1)).toBe(429);
  });

  it('the 429 of the key’s budget is the envelope with Retry-After, and another key from the same address keeps its own budget', async () => {
    const responses = await inOneWindow(async ([a, b]) => {
      const address = newAddress();
      const sent: LightMyRequestResponse[] = [];
      for (let i = 0; i <= LIMIT; i++) sent.push(await list(auth(a.apiKey), address));
      for (let i = 0; i <= LIMIT; i++) sent.push(await list(auth(b.apiKey), address));
      return sent;
    }, async () => [await createTenantWithKey(t.database), await createTenantWithKey(t.database)]);
    expect(responses.map((r) => r.statusCode)).toEqual([...Array(LIMIT).fill(200), 429, ...Array(LIMIT).fill(200), 429]);
    expectRateLimited(responses[LIMIT], 'api_key');
    expectRateLimited(responses.at(-1)!, 'api_key');
  });
});

describe('requests without a valid key are limited per client address', () => {
  it('a flood of invalid keys gets 429 with Retry-After and stops reaching the database', async () => {
    const { apiKey } = await createTenantWithKey(t.database);
    const run = await inOneWindow(async () => {
      const address = newAddress();
      const start = lookups;
      const failures: LightMyRequestResponse[] = [];
      for (let i = 0; i < LIMIT; i++) failures.push(await list(auth(unknownKey()), address));
      const lookupsOfFailures = lookups - start;
      const flood: LightMyRequestResponse[] = [];
      for (let i = 0; i < 20; i++) flood.push(await list(auth(unknownKey()), address));
      // Without a key, with a malformed one, and on another route: refused alike.
      flood.push(await list({}, address), await list({ authorization: 'Bearer nope' }, address));
      flood.push(await t.app.inject({ method: 'POST', url: '/v1/operations', headers: auth(unknownKey()), payload: {}, remoteAddress: address }));
      return { address, failures, flood, lookupsOfFailures, lookupsOfFlood: lookups - start - lookupsOfFailures };
    });
    for (const response of run.failures) expectError(response, 401, 'unauthorized');
    expect(run.lookupsOfFailures).toBe(LIMIT);
    for (const response of run.flood) expectRateLimited(response, 'client_address');
    expect(run.lookupsOfFlood).toBe(0);

    // Other addresses are served, and health checks are never limited.
    expect((await list(auth(apiKey), newAddress())).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/healthz', remoteAddress: run.address })).statusCode).toBe(200);
    // Once the window is over, the address is served again.
    await sleep(Number(run.flood[0].headers['retry-after']) * 1000 + 50);
    expect((await list(auth(apiKey), run.address)).statusCode).toBe(200);
  });

  it('a key that authenticated before is still served from an address over its budget', async () => {
    const statuses = await inOneWindow(async (apiKey) => {
      const address = newAddress();
      const codes = [(await list(auth(apiKey), address)).statusCode];
      for (let i = 0; i < LIMIT; i++) codes.push((await list(auth(unknownKey()), address)).statusCode);
      codes.push((await list(auth(unknownKey()), address)).statusCode);
      codes.push((await list(auth(apiKey), address)).statusCode);
      return codes;
    }, async () => (await createTenantWithKey(t.database)).apiKey);
    expect(statuses).toEqual([200, ...Array(LIMIT).fill(401), 429, 200]);
  });

  it('an IPv6 client is its /64 network, and an IPv4-mapped address its IPv4 address', async () => {
    const responses = await inOneWindow(async () => {
      const network = `2001:db8:${(++addresses).toString(16)}`;
      const sent: LightMyRequestResponse[] = [];
      for (let i = 1; i <= LIMIT; i++) sent.push(await list(auth(unknownKey()), `${network}:1::${i}`));
      sent.push(await list(auth(unknownKey()), `${network}:0001:ffff:ffff:ffff:ffff`));
      sent.push(await list(auth(unknownKey()), `${network}:2::1`));
      const v4 = newAddress();
      for (let i = 1; i <= LIMIT; i++) sent.push(await list(auth(unknownKey()), v4));
      sent.push(await list(auth(unknownKey()), `::ffff:${v4}`));
      return sent;
    });
    expect(responses.map((r) => r.statusCode)).toEqual([...Array(LIMIT).fill(401), 429, 401, ...Array(LIMIT).fill(401), 429]);
  });

  it('hosted receipts, signed downloads and unknown paths count per address, whatever Authorization header they carry', async () => {
    const responses = await inOneWindow(async () => {
      const address = newAddress();
      const sent: LightMyRequestResponse[] = [];
      for (let i = 0; i <= LIMIT; i++) {
        sent.push(
          await t.app.inject({ method: 'GET', url: `/receipts/${'x'.repeat(31)}${i}`, headers: { authorization: `Bearer guess-${i}` }, remoteAddress: address }),
        );
      }
      sent.push(
        await t.app.inject({
          method: 'GET',
          url: '/v1/exports/exp_QQQQQQQQQQQQQQQQQQQQ/download?expires=9999999999&signature=abc',
          headers: { authorization: 'Bearer another-guess' },
          remoteAddress: address,
        }),
      );
      sent.push(await t.app.inject({ method: 'GET', url: '/no/such/path', remoteAddress: address }));
      return sent;
    });
    for (const response of responses.slice(0, LIMIT)) expectError(response, 404, 'not_found');
    for (const response of responses.slice(LIMIT)) expectRateLimited(response, 'client_address');
  });

  it('guesses at the admin token count per address', async () => {
    const responses = await inOneWindow(async () => {
      const address = newAddress();
      const sent: LightMyRequestResponse[] = [];
      for (let i = 0; i <= LIMIT; i++) {
        sent.push(await t.app.inject({ method: 'POST', url: '/admin/v1/tenants', headers: { authorization: `Bearer ${ADMIN_TOKEN}-${i}` }, payload: { name: 'x' }, remoteAddress: address }));
      }
      return sent;
    });
    for (const response of responses.slice(0, LIMIT)) expectError(response, 401, 'unauthorized');
    expectRateLimited(responses[LIMIT], 'client_address');
    const fromElsewhere = await t.app.inject({ method: 'POST', url: '/admin/v1/tenants', headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, payload: { name: 'x' }, remoteAddress: newAddress() });
    expect(fromElsewhere.statusCode).toBe(201);
  });
});

describe('credentials never reach the log', () => {
  it('hosted-receipt tokens, download signatures and API keys are redacted in every log line', async () => {
    const lines: string[] = [];
    const logged = await createTestApp({ LOG_LEVEL: 'debug', EXPORT_POLL_MS: '100' }, { logStream: { write: (line) => void lines.push(line) } });
    let apiKey = '';
    let token = '';
    let signature = '';
    try {
      const { app } = logged;
      apiKey = (await createTenantWithKey(logged.database)).apiKey;
      const fx = await fiscalizedRegisterWithSession(app, apiKey);
      const sale = await createAndCompleteSale(app, fx);
      const receipt = json(await app.inject({ method: 'GET', url: `/v1/receipts/${sale.receipt_id}`, headers: fx.headers }));
      const hosted = new URL(receipt.links.hosted).pathname;
      token = hosted.split('/').pop()!;
      const get = (url: string) => app.inject({ method: 'GET', url });
      expect((await get(hosted)).statusCode).toBe(200);
      expect((await get(`${hosted}/pdf`)).statusCode).toBe(200);
      expect((await get(`${hosted}?utm_source=mail`)).statusCode).toBe(200);
      const altered = `${token.slice(0, -1)}${token.endsWith('x') ? 'y' : 'x'}`;
      expect((await get(`/receipts/${altered}`)).statusCode).toBe(404);
      expect((await get(`${hosted}/nope`)).statusCode).toBe(404);
      expect((await get(`/RECEIPTS/${token}`)).statusCode).toBe(404);
      expect((await get(`/%72eceipts/${token}`)).statusCode).toBeLessThan(500);

      expect((await createOperation(app, fx.headers, { type: 'session_cash_count', register_id: fx.registerId, counted_closing_amount: '111.90' })).statusCode).toBe(201);
      expect((await createOperation(app, fx.headers, { type: 'session_close', register_id: fx.registerId })).statusCode).toBe(201);
      const range = { type: 'dsfinvk', from: '2020-01-01T00:00:00Z', to: new Date(Date.now() + 1000).toISOString() };
      let job = json(await app.inject({ method: 'POST', url: '/v1/exports', headers: fx.headers, payload: range }));
      const deadline = Date.now() + 20_000;
      while (job.status === 'pending' || job.status === 'running') {
        if (Date.now() > deadline) throw new Error(`export ${job.id} still ${job.status}`);
        await sleep(100);
        job = json(await app.inject({ method: 'GET', url: `/v1/exports/${job.id}`, headers: fx.headers }));
      }
      expect(job.status, JSON.stringify(job)).toBe('completed');
      const download = new URL(job.download_url);
      signature = download.searchParams.get('signature')!;
      const expires = download.searchParams.get('expires')!;
      expect((await get(`${download.pathname}${download.search}`)).statusCode).toBe(200);
      // The parameter's name percent-encoded is still the signature.
      expect((await get(`${download.pathname}?expires=${expires}&sig%6Eature=${signature}`)).statusCode).toBe(200);
      expect((await get(`${download.pathname}?expires=${expires}&signature=${signature.slice(0, -2)}AA`)).statusCode).toBe(403);
      // A key where it does not belong: in the path and in the query.
      expect((await get(`/v1/merchants/${apiKey}`)).statusCode).toBe(401);
      expect((await app.inject({ method: 'GET', url: `/v1/merchants?api_key=${apiKey}`, headers: auth(apiKey) })).statusCode).toBeLessThan(500);

      // Over real HTTP too, and a request Node's parser rejects (its raw bytes carry the key).
      await app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = app.server.address() as AddressInfo;
      expect((await fetch(`http://127.0.0.1:${port}${hosted}`)).status).toBe(200);
      expect((await fetch(`http://127.0.0.1:${port}${download.pathname}${download.search}`)).status).toBe(200);
      const connection = await openConnection(port);
      connection.socket.write(`GET /v1/merchants HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${apiKey}\r\nBad Header: x\r\n\r\n`);
      await connection.received;
    } finally {
      await logged.close();
    }

    const log = lines.join('');
    expect(log).toContain('request completed');
    expect(log).toContain('/receipts/[redacted]');
    expect(log).toContain('unparsable request');
    const secretPart = apiKey.slice(apiKey.lastIndexOf('_') + 1);
    const leaks = (
      [
        ['hosted-receipt token', token.slice(0, 16)],
        ['download signature', signature.slice(0, 16)],
        ['API key', secretPart.slice(0, 16)],
        ['API key as bytes', [...Buffer.from(secretPart.slice(0, 16))].join(',')],
      ] as const
    ).filter(([, secret]) => log.includes(secret));
    expect(leaks.map(([what]) => what)).toEqual([]);
  });
});
