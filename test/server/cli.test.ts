// The operator console on the command line: `npm run admin -- <command>` prints JSON, on the embedded
// database of a temporary DATA_DIR; keys are stored hashed and revocation takes effect.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/database.js';
import { runNpmScript, tempDir } from '../support/processes.js';
import { auth, deuMerchantBody, TEST_SECRETS_KEY } from '../support/testApp.js';

const TIMEOUT = 120_000;
let dir: ReturnType<typeof tempDir>;

const admin = async (...args: string[]) => {
  const result = await runNpmScript('admin', args, { DATA_DIR: dir.path });
  return { ...result, json: () => JSON.parse(result.stdout) };
};

/** Opens the DATA_DIR database in this process (the CLI has exited), runs `fn`, closes it. */
async function withService<T>(fn: (inject: Awaited<ReturnType<typeof buildApp>>['inject'], db: Awaited<ReturnType<typeof openDatabase>>) => Promise<T>) {
  const database = await openDatabase({ dataDir: dir.path });
  const app = await buildApp({ config: loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: dir.path }), database, secretsKey: TEST_SECRETS_KEY });
  await app.ready();
  try {
    return await fn(app.inject.bind(app), database);
  } finally {
    await app.close();
    await database.close();
  }
}

beforeAll(() => {
  dir = tempDir('fiscal-cli-');
});
afterAll(() => dir.remove());

describe('npm run admin', () => {
  it(
    'create-tenant, create-key, list-keys, revoke-key print JSON; keys are hashed; revocation is immediate',
    async () => {
      const tenantRun = await admin('create-tenant', 'Acme GmbH');
      expect(tenantRun.code, tenantRun.stderr).toBe(0);
      const tenant = tenantRun.json();
      expect(tenant).toEqual({ id: expect.stringMatching(/^ten_/), name: 'Acme GmbH', created_at: expect.any(String) });

      const keyRun = await admin('create-key', tenant.id, '--kind', 'tenant', '--country', 'DEU');
      expect(keyRun.code, keyRun.stderr).toBe(0);
      const key = keyRun.json();
      expect(key).toMatchObject({ id: expect.stringMatching(/^key_/), kind: 'tenant', environment: 'test', country_code: 'DEU', revoked_at: null });
      expect(key.api_key).toMatch(/^svc_test_deu_[0-9A-Za-z]{22,}$/);
      expect(key.api_key.startsWith(key.prefix)).toBe(true);
      expect(key.prefix.length).toBeLessThan(key.api_key.length);

      const listRun = await admin('list-keys', tenant.id);
      expect(listRun.code, listRun.stderr).toBe(0);
      const listed = listRun.json();
      expect(listed.data).toHaveLength(1);
      expect(listed.data[0]).toMatchObject({ id: key.id, prefix: key.prefix, kind: 'tenant', country_code: 'DEU', revoked_at: null });
      expect(listed.data[0]).not.toHaveProperty('api_key');
      expect(listRun.stdout).not.toContain(key.api_key);

      // the key works against the service, and only its hash is stored
      const merchantId = await withService(async (inject, database) => {
        expect((await inject({ method: 'GET', url: '/v1/merchants', headers: auth(key.api_key) })).statusCode).toBe(200);
        const merchant = await inject({ method: 'POST', url: '/v1/merchants', headers: auth(key.api_key), payload: deuMerchantBody() });
        expect(merchant.statusCode).toBe(201);
        const row = await database.prisma.apiKey.findUniqueOrThrow({ where: { id: key.id } });
        expect(row.keyHash).toBe(createHash('sha256').update(key.api_key).digest('hex'));
        expect(JSON.stringify(row)).not.toContain(key.api_key.slice('svc_test_deu_'.length));
        return merchant.json().id as string;
      });

      const org = await admin('create-key', tenant.id, '--kind', 'organization', '--organization', merchantId);
      expect(org.code, org.stderr).toBe(0);
      expect(org.json()).toMatchObject({ kind: 'organization', organization_id: merchantId, country_code: 'DEU' });
      expect(org.json().api_key).toMatch(/^svc_test_deu_/);

      const platform = await admin('create-key', tenant.id, '--kind', 'platform');
      expect(platform.code, platform.stderr).toBe(0);
      expect(platform.json()).toMatchObject({ kind: 'platform', country_code: null, organization_id: null });
      expect(platform.json().api_key).toMatch(/^svc_platform_test_[0-9A-Za-z]{22,}$/);

      const revokeRun = await admin('revoke-key', key.id);
      expect(revokeRun.code, revokeRun.stderr).toBe(0);
      expect(revokeRun.json()).toMatchObject({ id: key.id, revoked_at: expect.any(String) });

      await withService(async (inject) => {
        const response = await inject({ method: 'GET', url: '/v1/merchants', headers: auth(key.api_key) });
        expect(response.statusCode).toBe(401);
        expect(response.json()).toMatchObject({ code: 'unauthorized', retryable: false });
        const own = await inject({ method: 'GET', url: `/v1/merchants/${merchantId}`, headers: auth(org.json().api_key) });
        expect(own.statusCode).toBe(200);
      });

      // errors: non-zero exit and a JSON error; an unknown command prints the usage
      const noCountry = await admin('create-key', tenant.id, '--kind', 'tenant');
      expect(noCountry.code).not.toBe(0);
      expect(JSON.parse(noCountry.stderr.trim().split('\n').pop()!)).toHaveProperty('error');
      const usage = await admin('frobnicate');
      expect(usage.code).not.toBe(0);
      expect(usage.stderr).toMatch(/usage/);
    },
    TIMEOUT,
  );
});
