// TRUST_PROXY: behind a load balancer or reverse proxy every connection comes from the proxy,
// so the per-address budget and the log need the client's address it forwarded. Only the
// proxies named are believed; unset, X-Forwarded-For is ignored.
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createTestApp, type TestApp } from '../support/testApp.js';

const LIMIT = 3;

describe('TRUST_PROXY', () => {
  it('takes a number of hops or the proxies’ addresses, and refuses anything else naming the setting', () => {
    const base = { DATA_DIR: '/tmp/x' };
    expect(loadConfig(base).trustProxy).toBe(false);
    expect(loadConfig({ ...base, TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ ...base, TRUST_PROXY: '10.0.0.0/8, 192.0.2.7,loopback,2001:db8::/32' }).trustProxy).toEqual([
      '10.0.0.0/8',
      '192.0.2.7',
      'loopback',
      '2001:db8::/32',
    ]);
    for (const value of ['true', '0', '11', '10.0.0.0/33', '2001:db8::/129', 'proxy.example', '10.0.0.1/8/1', '10.0.0.1,']) {
      expect(() => loadConfig({ ...base, TRUST_PROXY: value }), value).toThrow(/TRUST_PROXY: must be a number of proxy hops/);
    }
  });
});

/** Requests without a key to an unknown path (404), each spending its client address's budget. */
async function burst(app: TestApp['app'], requests: { remoteAddress: string; forwardedFor?: string }[]): Promise<number[]> {
  const responses: LightMyRequestResponse[] = [];
  for (const { remoteAddress, forwardedFor } of requests) {
    responses.push(await app.inject({ method: 'GET', url: '/no/such/path', remoteAddress, headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {} }));
  }
  return responses.map((response) => response.statusCode);
}

/** A test app with `env` for the enclosing describe block: its `inject`, once started. */
function appWith(env: Record<string, string>): () => TestApp['app'] {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ RATE_LIMIT_PER_SECOND: String(LIMIT), ...env });
  });
  afterAll(() => t?.close());
  return () => t.app;
}

describe('behind trusted proxies', () => {
  const app = appWith({ TRUST_PROXY: '10.0.0.0/8' });

  it('counts each client the proxy forwards on its own budget', async () => {
    const viaProxy = (client: string) => ({ remoteAddress: '10.1.2.3', forwardedFor: client });
    expect(await burst(app(), Array.from({ length: LIMIT + 1 }, () => viaProxy('203.0.113.10')))).toEqual([...Array(LIMIT).fill(404), 429]);
    expect(await burst(app(), [viaProxy('203.0.113.11'), viaProxy('198.51.100.7, 203.0.113.12')])).toEqual([404, 404]);
  });

  it('believes no X-Forwarded-For from a client that is not one of them', async () => {
    const direct = (spoofed: string) => ({ remoteAddress: '198.51.100.20', forwardedFor: spoofed });
    expect(await burst(app(), Array.from({ length: LIMIT + 1 }, (_, i) => direct(`203.0.113.${100 + i}`)))).toEqual([...Array(LIMIT).fill(404), 429]);
  });
});

describe('without TRUST_PROXY', () => {
  const app = appWith({});

  it('ignores X-Forwarded-For: the connection’s peer is the client', async () => {
    const viaProxy = (client: string) => ({ remoteAddress: '10.9.9.9', forwardedFor: client });
    expect(await burst(app(), Array.from({ length: LIMIT + 1 }, (_, i) => viaProxy(`203.0.113.${200 + i}`)))).toEqual([...Array(LIMIT).fill(404), 429]);
  });
});

describe('TRUST_PROXY as a number of hops', () => {
  const app = appWith({ TRUST_PROXY: '1' });

  it('believes the nearest proxy, whatever its address, and nothing a client wrote before it', async () => {
    const spoofing = (i: number) => ({ remoteAddress: '192.0.2.50', forwardedFor: `203.0.113.${i}, 198.51.100.30` });
    expect(await burst(app(), Array.from({ length: LIMIT + 1 }, (_, i) => spoofing(i)))).toEqual([...Array(LIMIT).fill(404), 429]);
    expect(await burst(app(), [{ remoteAddress: '192.0.2.50', forwardedFor: '198.51.100.31' }])).toEqual([404]);
  });
});
