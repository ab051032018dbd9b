import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { openDatabase, type Database } from '../../src/db/database.js';
import { createApiKey, createTenant } from '../../src/modules/admin/service.js';
import { createTestDatabase } from './databases.js';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';

export interface TestApp {
  app: FastifyInstance;
  database: Database;
  config: Config;
  /** Connection string of the test database when it is PostgreSQL. */
  databaseUrl: string | undefined;
  close(): Promise<void>;
}

export const TEST_SECRETS_KEY = Buffer.alloc(32, 7);

export interface TestAppOptions {
  /** Registers extra routes (e.g. a throwing one) on the app before ready(). */
  routes?: (app: FastifyInstance) => void | Promise<void>;
  /** Receives the app's log lines (with LOG_LEVEL set in env; tests default to silent). */
  logStream?: { write(line: string): void };
  /** The service's clock (tests cross month ends with it). */
  clock?: () => Date;
  /** false: responses are written as the server writes them, not checked against their schemas. */
  checkResponses?: boolean;
}

const testConfig = (env: Record<string, string>) =>
  loadConfig({ LOG_LEVEL: 'silent', ADMIN_TOKEN, DATA_DIR: '/tmp/fiscal-test-data', ...env });

export async function createTestApp(env: Record<string, string> = {}, options: TestAppOptions = {}): Promise<TestApp> {
  const { database, url, drop } = await createTestDatabase();
  const config = testConfig(env);
  const app = await buildApp({
    config,
    database,
    secretsKey: TEST_SECRETS_KEY,
    logStream: options.logStream,
    clock: options.clock,
    checkResponses: options.checkResponses,
  });
  await options.routes?.(app);
  await app.ready();
  return {
    app,
    database,
    config,
    databaseUrl: url,
    async close() {
      await app.close();
      await drop();
    },
  };
}

/**
 * A second instance of the service over the same database as `t` (its own
 * connection pool on PostgreSQL), as when several instances run side by side.
 */
export async function createPeerApp(
  t: TestApp,
  env: Record<string, string> = {},
  options: Pick<TestAppOptions, 'clock'> = {},
): Promise<{ app: FastifyInstance; close(): Promise<void> }> {
  const database = t.databaseUrl ? await openDatabase({ databaseUrl: t.databaseUrl, poolSize: 10 }) : t.database;
  const app = await buildApp({ config: testConfig(env), database, secretsKey: TEST_SECRETS_KEY, clock: options.clock });
  await app.ready();
  return {
    app,
    async close() {
      await app.close();
      if (database !== t.database) await database.close();
    },
  };
}

export interface Tenant {
  tenantId: string;
  apiKey: string;
}

export async function createTenantWithKey(db: Database, countryCode = 'DEU', environment: 'test' | 'live' = 'test'): Promise<Tenant> {
  const tenant = await createTenant(db.prisma, 'Test tenant');
  const { apiKey } = await createApiKey(db.prisma, tenant.id, environment, { kind: 'tenant', country_code: countryCode });
  return { tenantId: tenant.id, apiKey };
}

export const auth = (apiKey: string, merchantId?: string): Record<string, string> => ({
  authorization: `Bearer ${apiKey}`,
  ...(merchantId ? { 'x-service-merchant': merchantId } : {}),
});

export const DEU_ADDRESS = { line1: 'Friedrichstraße 1', city: 'Berlin', postal_code: '10117', country_code: 'DEU' };

export const deuMerchantBody = (overrides: Record<string, unknown> = {}) => ({
  legal_name: 'Bäckerei Müller GmbH',
  country_code: 'DEU',
  address: DEU_ADDRESS,
  fiscal_identities: [{ country_code: 'DEU', tax_number: '21/815/08150', vat_id: 'DE123456789' }],
  ...overrides,
});

/** An Italian merchant whose portal secrets are the given ones (tests that look for them in logs and responses). */
export const itaMerchantBody = (secrets: { password: string; pin: string }) => ({
  legal_name: 'Pasticceria Roma Srl',
  country_code: 'ITA',
  address: { line1: 'Via del Corso 1', city: 'Roma', postal_code: '00186', country_code: 'ITA' },
  fiscal_identities: [
    {
      country_code: 'ITA',
      tax_number: '12345678901',
      vat_number: '12345678901',
      legal_entity_type: 'COMPANY',
      fisconline_user: 'RSSMRA85T10A562S',
      fisconline_password: secrets.password,
      fisconline_pin: secrets.pin,
    },
  ],
});

export function json<T = any>(response: LightMyRequestResponse): T {
  return response.json() as T;
}

/** Creates a DEU merchant with one location and one register; returns their ids. */
export async function createDeuSetup(app: FastifyInstance, apiKey: string) {
  const merchant = json(await app.inject({ method: 'POST', url: '/v1/merchants', headers: auth(apiKey), payload: deuMerchantBody() }));
  const location = json(
    await app.inject({
      method: 'POST',
      url: '/v1/locations',
      headers: auth(apiKey, merchant.id),
      payload: { name: 'Filiale Mitte', address: DEU_ADDRESS },
    }),
  );
  const register = json(
    await app.inject({
      method: 'POST',
      url: '/v1/registers',
      headers: auth(apiKey, merchant.id),
      payload: { location_id: location.id, name: 'Kasse 1' },
    }),
  );
  return { merchantId: merchant.id as string, locationId: location.id as string, registerId: register.id as string };
}

/** Asserts the contract's error envelope (section 7) and returns the body. */
export function expectError(response: LightMyRequestResponse, status: number, code?: string): ErrorBody {
  if (response.statusCode !== status) {
    throw new Error(`expected ${status}${code ? ` ${code}` : ''}, got ${response.statusCode}: ${response.body}`);
  }
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  expect(response.headers['x-request-id']).toBeTruthy();
  const body = response.json() as ErrorBody;
  for (const key of Object.keys(body)) expect(['code', 'message', 'retryable', 'details']).toContain(key);
  expect(typeof body.code).toBe('string');
  expect(typeof body.message).toBe('string');
  expect(body.retryable).toBe(status >= 500 || status === 429 || status === 412);
  if (body.details !== undefined) expect(typeof body.details).toBe('object');
  if (code) expect(body.code).toBe(code);
  return body;
}

export interface ErrorBody {
  code: string;
  message: string;
  retryable: boolean;
  details?: Record<string, any>;
}
