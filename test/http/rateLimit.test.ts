// Contract 8: a per-API-key request budget (RATE_LIMIT_PER_SECOND); excess is 429 rate_limit_exceeded
// with Retry-After in seconds; with REDIS_URL several instances share one budget, per key and per
// client address (requests without a valid key, test/reliability/abuse.test.ts).
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '../../src/lib/apiKeys.js';
import { auth, createPeerApp, createTenantWithKey, createTestApp, expectError, type TestApp } from '../support/testApp.js';

const LIMIT = 5;
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ RATE_LIMIT_PER_SECOND: String(LIMIT) });
});
afterAll(() => t.close());

const list = (app: TestApp['app'], apiKey: string) => app.inject({ method: 'GET', url: '/v1/merchants', headers: auth(apiKey) });

function expectRateLimited(response: Awaited<ReturnType<typeof list>>) {
  const body = expectError(response, 429, 'rate_limit_exceeded');
  expect(body.retryable).toBe(true);
  const retryAfter = response.headers['retry-after'];
  expect(String(retryAfter)).toMatch(/^\d+$/);
  expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  expect(Number(retryAfter)).toBeLessThanOrEqual(1);
}

describe('per-key budget', () => {
  it('the request after the budget is 429 with Retry-After in seconds', async () => {
    expect(t.config.rateLimitPerSecond).toBe(LIMIT);
    const { apiKey } = await createTenantWithKey(t.database);
    const statuses = [];
    for (let i = 0; i < LIMIT; i++) statuses.push((await list(t.app, apiKey)).statusCode);
    expect(statuses).toEqual(Array(LIMIT).fill(200));
    expectRateLimited(await list(t.app, apiKey));
    // writes count against the same budget
    expectRateLimited(await t.app.inject({ method: 'POST', url: '/v1/merchants', headers: auth(apiKey), payload: {} }));
  });

  it('two keys have separate budgets (even of one tenant)', async () => {
    const a = await createTenantWithKey(t.database);
    const b = await createTenantWithKey(t.database);
    for (let i = 0; i < LIMIT; i++) await list(t.app, a.apiKey);
    expectRateLimited(await list(t.app, a.apiKey));
    for (let i = 0; i < LIMIT; i++) expect((await list(t.app, b.apiKey)).statusCode).toBe(200);
    expectRateLimited(await list(t.app, b.apiKey));
  });

  it('the budget comes back after the window', async () => {
    const { apiKey } = await createTenantWithKey(t.database);
    for (let i = 0; i < LIMIT; i++) await list(t.app, apiKey);
    const limited = await list(t.app, apiKey);
    expectRateLimited(limited);
    await new Promise((resolve) => setTimeout(resolve, Number(limited.headers['retry-after']) * 1000 + 50));
    expect((await list(t.app, apiKey)).statusCode).toBe(200);
  });

  it('health checks are not rate limited', async () => {
    for (let i = 0; i < LIMIT * 2; i++) expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });
});

describe('several instances', () => {
  it('with REDIS_URL two instances share one budget', async () => {
    const a = await createPeerApp(t, { RATE_LIMIT_PER_SECOND: String(LIMIT), REDIS_URL });
    const b = await createPeerApp(t, { RATE_LIMIT_PER_SECOND: String(LIMIT), REDIS_URL });
    try {
      const { apiKey } = await createTenantWithKey(t.database);
      const responses = [];
      // 3 + 3 requests: within one instance's budget each, over the shared one
      for (let i = 0; i < 3; i++) {
        responses.push(await list(a.app, apiKey));
        responses.push(await list(b.app, apiKey));
      }
      expect(responses.slice(0, LIMIT).map((r) => r.statusCode)).toEqual(Array(LIMIT).fill(200));
      expectRateLimited(responses[LIMIT]);
      expectRateLimited(await list(a.app, apiKey));
      // another key is unaffected on both
      const other = await createTenantWithKey(t.database);
      expect((await list(a.app, other.apiKey)).statusCode).toBe(200);
      expect((await list(b.app, other.apiKey)).statusCode).toBe(200);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('with REDIS_URL two instances share one budget per client address too', async () => {
    const a = await createPeerApp(t, { RATE_LIMIT_PER_SECOND: String(LIMIT), REDIS_URL });
    const b = await createPeerApp(t, { RATE_LIMIT_PER_SECOND: String(LIMIT), REDIS_URL });
    try {
      // An address of this run alone: the Redis counters outlive the apps.
      const remoteAddress = `2001:db8:${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}::1`;
      const unknownKey = () => auth(generateApiKey('tenant', 'test', 'DEU').apiKey);
      const responses = [];
      for (let i = 0; i <= LIMIT; i++) {
        responses.push(await (i % 2 === 0 ? a : b).app.inject({ method: 'GET', url: '/v1/merchants', headers: unknownKey(), remoteAddress }));
      }
      expect(responses.slice(0, LIMIT).map((r) => r.statusCode)).toEqual(Array(LIMIT).fill(401));
      expectRateLimited(responses[LIMIT]);
      expectRateLimited(await a.app.inject({ method: 'GET', url: '/receipts/x', remoteAddress }));
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('without REDIS_URL each instance counts on its own (the control case)', async () => {
    const a = await createPeerApp(t, { RATE_LIMIT_PER_SECOND: String(LIMIT) });
    const b = await createPeerApp(t, { RATE_LIMIT_PER_SECOND: String(LIMIT) });
    try {
      const { apiKey } = await createTenantWithKey(t.database);
      const statuses = [];
      for (let i = 0; i < 3; i++) {
        statuses.push((await list(a.app, apiKey)).statusCode);
        statuses.push((await list(b.app, apiKey)).statusCode);
      }
      expect(statuses).toEqual(Array(6).fill(200));
    } finally {
      await a.close();
      await b.close();
    }
  });
});
