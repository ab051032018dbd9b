// The operator console on the command line: `npm run admin -- <command>` prints JSON, on the embedded
// database of a temporary DATA_DIR; keys are stored hashed and revocation takes effect; input the admin
// API refuses is refused; while the server holds DATA_DIR the CLI, the worker and a second server are
// refused, and a lost demo key is replaced through the admin API or, with the server stopped, the CLI.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/database.js';
import { LOCK_FILE } from '../../src/db/dataDirLock.js';
import { runNpmScript, startServer, tempDir } from '../support/processes.js';
import { ADMIN_TOKEN, auth, deuMerchantBody, TEST_SECRETS_KEY } from '../support/testApp.js';

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

  it(
    'refuses what the admin API refuses: exit 2, the option named, nothing stored',
    async () => {
      const tenant = (await admin('create-tenant', 'Strict GmbH')).json();
      const refusals: [string[], RegExp][] = [
        [['--kind', 'bogus', '--country', 'DEU'], /^--kind: .*"tenant"\|"organization"\|"platform"/],
        [['--kind', 'tenant', '--country', 'FRA'], /^--country: .*"DEU"\|"AUT"\|"ITA"/],
        [['--kind', 'platform', '--country', 'DEU'], /platform key has no country/],
      ];
      for (const [options, message] of refusals) {
        const run = await admin('create-key', tenant.id, ...options);
        expect(run.code, options.join(' ')).toBe(2);
        expect(JSON.parse(run.stderr.trim().split('\n').pop()!).error).toMatch(message);
      }
      const split = await admin('create-tenant', 'Two', 'Words');
      expect(split.code).toBe(2);
      expect(split.stderr).toMatch(/one argument/);

      expect((await admin('list-keys', tenant.id)).json()).toEqual({ data: [] });
      const tenants = await admin('list-tenants');
      expect(tenants.code, tenants.stderr).toBe(0);
      expect(tenants.json().data).toContainEqual(tenant);
      expect(tenants.json().data.map((t: { name: string }) => t.name)).not.toContain('Two');
    },
    TIMEOUT,
  );
});

describe('one process at a time on the embedded database', () => {
  it(
    'while the server runs, the CLI, the worker and a second server are refused; a lost demo key is replaced by the admin API or, stopped, by the CLI',
    async () => {
      const data = tempDir('fiscal-cli-lock-');
      const env = { DATA_DIR: data.path, ADMIN_TOKEN };
      const run = async (script: string, ...args: string[]) => runNpmScript(script, args, env);
      try {
        const server = await startServer(env);
        let demoTenant: { id: string; name: string; created_at: string };
        let apiKey: string;
        try {
          for (const refused of [await run('admin', 'create-tenant', 'Lost GmbH'), await run('worker')]) {
            expect(refused.code).toBe(1);
            expect(refused.stderr).toContain(`in use by pid ${server.child.pid}`);
            expect(refused.stderr).toContain('curl -H "Authorization: Bearer $ADMIN_TOKEN"');
          }
          await expect(startServer(env)).rejects.toThrow(`in use by pid ${server.child.pid}`);

          const adminApi = { authorization: `Bearer ${ADMIN_TOKEN}` };
          const tenants = (await (await fetch(`${server.url}/admin/v1/tenants`, { headers: adminApi })).json()) as { data: (typeof demoTenant)[] };
          expect(tenants.data.map((t: { name: string }) => t.name)).toEqual(['Demo tenant']);
          demoTenant = tenants.data[0];
          const issued = await fetch(`${server.url}/admin/v1/tenants/${demoTenant.id}/api-keys`, {
            method: 'POST',
            headers: { ...adminApi, 'content-type': 'application/json' },
            body: JSON.stringify({ kind: 'tenant', country_code: 'DEU' }),
          });
          expect(issued.status).toBe(201);
          apiKey = ((await issued.json()) as { api_key: string }).api_key;
          expect((await fetch(`${server.url}/v1/merchants`, { headers: auth(apiKey) })).status).toBe(200);
        } finally {
          expect(await server.stop()).toBe(0);
        }
        expect(existsSync(join(data.path, LOCK_FILE))).toBe(false);

        const listed = await run('admin', 'list-tenants');
        expect(listed.code, listed.stderr).toBe(0);
        expect(JSON.parse(listed.stdout)).toEqual({ data: [demoTenant] });
        const created = await run('admin', 'create-key', demoTenant.id, '--kind', 'tenant', '--country', 'DEU');
        expect(created.code, created.stderr).toBe(0);
        const cliKey: string = JSON.parse(created.stdout).api_key;

        const restarted = await startServer(env);
        try {
          for (const key of [apiKey, cliKey]) expect((await fetch(`${restarted.url}/v1/merchants`, { headers: auth(key) })).status).toBe(200);
        } finally {
          expect(await restarted.stop()).toBe(0);
        }
      } finally {
        data.remove();
      }
    },
    TIMEOUT,
  );
});
