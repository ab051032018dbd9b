// `npm run worker`: with EXPORT_WORKER=off the server only queues export jobs,
// and a separate worker process (sharing PostgreSQL) builds them.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN } from '../support/testApp.js';
import { createEmptyPostgresDatabase, ROOT, startServer, tempDir, type ChildServer } from '../support/processes.js';

const onPostgres = Boolean(process.env.DATABASE_URL);
let server: ChildServer;
let database: { url: string; drop(): Promise<void> };
let data: { path: string; remove(): void };

async function api(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : undefined };
}

describe.skipIf(!onPostgres)('export worker process', () => {
  beforeAll(async () => {
    database = await createEmptyPostgresDatabase();
    data = tempDir();
    server = await startServer({
      DATABASE_URL: database.url,
      DATA_DIR: data.path,
      ADMIN_TOKEN,
      EXPORT_WORKER: 'off',
      SEED_DEMO_TENANT: 'false',
      SECRETS_KEY: 'cd'.repeat(32),
    });
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    await database?.drop();
    data?.remove();
  });

  it('builds the jobs the server queued, and exits cleanly on SIGTERM', async () => {
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const tenant = await api('POST', '/admin/v1/tenants', { name: 'worker' }, admin);
    const key = await api('POST', `/admin/v1/tenants/${tenant.json.id}/api-keys`, { kind: 'tenant', country_code: 'DEU' }, admin);
    const auth = { authorization: `Bearer ${key.json.api_key}` };
    const address = { line1: 'Friedrichstraße 1', city: 'Berlin', postal_code: '10117', country_code: 'DEU' };
    const merchant = await api('POST', '/v1/merchants', {
      legal_name: 'Worker GmbH',
      country_code: 'DEU',
      address,
      fiscal_identities: [{ country_code: 'DEU', tax_number: '1', vat_id: 'DE123456789' }],
    }, auth);
    const headers = { ...auth, 'x-service-merchant': merchant.json.id };
    const location = await api('POST', '/v1/locations', { name: 'Mitte', address }, headers);
    const register = await api('POST', '/v1/registers', { location_id: location.json.id, name: 'Kasse' }, headers);
    expect((await api('POST', `/v1/registers/${register.json.id}/fiscalize`, undefined, headers)).status).toBe(200);
    let n = 0;
    const event = (body: object) => api('POST', '/v1/operations', { register_id: register.json.id, ...body }, { ...headers, 'idempotency-key': `w-${n++}` });
    expect((await event({ type: 'session_open', opening_amount: '50.00' })).status).toBe(201);
    expect((await event({ type: 'session_cash_count', counted_closing_amount: '50.00' })).status).toBe(201);
    expect((await event({ type: 'session_close' })).status).toBe(201);

    const job = await api('POST', '/v1/exports', { type: 'dsfinvk', from: '2020-01-01T00:00:00Z', to: '2099-01-01T00:00:00Z' }, headers);
    expect(job.status).toBe(202);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect((await api('GET', `/v1/exports/${job.json.id}`, undefined, headers)).json.status).toBe('pending');

    const worker = spawn(join(ROOT, 'node_modules/.bin/tsx'), ['src/cli/worker.ts'], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: database.url, DATA_DIR: data.path, SECRETS_KEY: 'cd'.repeat(32), EXPORT_POLL_MS: '100', LOG_LEVEL: 'warn' },
      stdio: 'ignore',
    });
    const exited = new Promise<number | null>((resolve) => worker.once('exit', resolve));
    let status = 'pending';
    const deadline = Date.now() + 30_000;
    while (status === 'pending' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      status = (await api('GET', `/v1/exports/${job.json.id}`, undefined, headers)).json.status;
    }
    expect(status).toBe('completed');
    worker.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 120_000);
});
