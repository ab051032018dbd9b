// Helpers shared by the reliability tests: HTTP calls to a child server, the
// contract's error envelope on plain fetch responses, and direct pg access.
import { readdirSync, readFileSync } from 'node:fs';
import { expect } from 'vitest';
import pg from 'pg';
import type { ChildServer } from '../support/processes.js';
import { deuMerchantBody, DEU_ADDRESS } from '../support/testApp.js';
import { saleBody } from '../support/operations.js';

export const usesPostgres = Boolean(process.env.DATABASE_URL);

export interface FetchResult {
  status: number;
  headers: Headers;
  text: string;
  body: any;
}

/** fetch with a JSON body; resolves with the parsed body (or undefined when it is not JSON). */
export async function call(
  baseUrl: string,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: unknown; signal?: AbortSignal } = {},
): Promise<FetchResult> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.body !== undefined) headers['content-type'] ??= 'application/json';
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: options.signal,
  });
  const text = await response.text();
  let body: any;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, text, body };
}

/** Fails unless the status is the expected one; returns the parsed body. */
export function must(result: FetchResult, status: number, what: string): any {
  if (result.status !== status) throw new Error(`${what}: expected ${status}, got ${result.status}: ${result.text}`);
  return result.body;
}

/** Contract 7 on any response: {code, message, retryable, details?}, retryable exactly for 5xx/429/412, X-Request-Id. */
export function expectEnvelope(status: number, headers: Headers | Record<string, unknown>, text: string, context = ''): any {
  const header = (name: string) => (headers instanceof Headers ? headers.get(name) : (headers[name] as string | undefined));
  expect(header('x-request-id'), `${context} x-request-id`).toBeTruthy();
  expect(header('content-type') ?? '', `${context} content-type`).toMatch(/^application\/json/);
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`${context}: error body is not JSON: ${text.slice(0, 300)}`);
  }
  expect(body !== null && typeof body === 'object' && !Array.isArray(body), `${context} body is an object: ${text.slice(0, 300)}`).toBe(true);
  const extra = Object.keys(body).filter((key) => !['code', 'message', 'retryable', 'details'].includes(key));
  expect(extra, `${context} unexpected keys in ${text.slice(0, 300)}`).toEqual([]);
  expect(typeof body.code, `${context} code`).toBe('string');
  expect(typeof body.message, `${context} message`).toBe('string');
  expect(body.retryable, `${context} retryable of ${status}: ${text.slice(0, 300)}`).toBe(status >= 500 || status === 429 || status === 412);
  if (body.details !== undefined) {
    expect(body.details !== null && typeof body.details === 'object' && !Array.isArray(body.details), `${context} details`).toBe(true);
  }
  return body;
}

/** A pg client on one database (closed by the caller). */
export async function pgClient(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

export const consecutiveFrom = (values: number[], first: number) =>
  [...values].sort((a, b) => a - b).every((value, i) => value === first + i);

/**
 * A fiscalized DEU register with an open session, set up over HTTP on a
 * listening server: admin API for the tenant and key, then the public API.
 */
export async function httpFixture(baseUrl: string, adminToken: string) {
  const admin = { authorization: `Bearer ${adminToken}` };
  const tenant = must(await call(baseUrl, 'POST', '/admin/v1/tenants', { headers: admin, body: { name: 'Reliability' } }), 201, 'tenant');
  const key = must(
    await call(baseUrl, 'POST', `/admin/v1/tenants/${tenant.id}/api-keys`, { headers: admin, body: { kind: 'tenant', country_code: 'DEU' } }),
    201,
    'api key',
  );
  const apiKey: string = key.api_key;
  const merchant = must(
    await call(baseUrl, 'POST', '/v1/merchants', { headers: { authorization: `Bearer ${apiKey}` }, body: deuMerchantBody() }),
    201,
    'merchant',
  );
  const headers = { authorization: `Bearer ${apiKey}`, 'x-service-merchant': merchant.id as string };
  const location = must(
    await call(baseUrl, 'POST', '/v1/locations', { headers, body: { name: 'Filiale', address: DEU_ADDRESS } }),
    201,
    'location',
  );
  const register = must(await call(baseUrl, 'POST', '/v1/registers', { headers, body: { location_id: location.id, name: 'Kasse 1' } }), 201, 'register');
  must(await call(baseUrl, 'POST', `/v1/registers/${register.id}/fiscalize`, { headers }), 200, 'fiscalize');
  must(
    await call(baseUrl, 'POST', '/v1/operations', {
      headers: { ...headers, 'idempotency-key': `open-${register.id}` },
      body: { type: 'session_open', register_id: register.id, opening_amount: '100.00' },
    }),
    201,
    'session_open',
  );
  return { tenantId: tenant.id as string, apiKey, merchantId: merchant.id as string, registerId: register.id as string, headers };
}

export { saleBody };

/** The process ids below `pid` (Linux /proc), deepest last. */
export function descendants(pid: number): number[] {
  let children: number[] = [];
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const text = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
      if (text) children = children.concat(text.split(/\s+/).map(Number));
    }
  } catch {
    return [];
  }
  return children.flatMap((child) => [child, ...descendants(child)]);
}

/** Whether a process with this id exists. */
export const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * SIGKILLs a child server and everything it started. On PostgreSQL the server's
 * primary runs its server processes as children (SERVER_PROCESSES): SIGKILL
 * cannot be relayed, so killing only the primary would leave them serving.
 */
export async function killServer(server: ChildServer | undefined): Promise<void> {
  if (!server || server.child.pid === undefined) return;
  const pids = [...descendants(server.child.pid).reverse(), server.child.pid];
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  await server.exited;
  const deadline = Date.now() + 10_000;
  while (pids.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
}
