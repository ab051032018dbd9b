// The operator console on the command line: the operations of /admin/v1, checked by the same schemas,
// printing JSON on stdout:
//   npm run admin -- list-tenants
//   npm run admin -- create-tenant "<name>"
//   npm run admin -- create-key <tenantId> --kind tenant|organization|platform [--country DEU|AUT|ITA] [--organization <merchantId>]
//   npm run admin -- list-keys <tenantId>
//   npm run admin -- revoke-key <keyId>
// It opens the database itself, so on the embedded database it refuses while another process (the
// server) holds DATA_DIR; use the admin API then. Exit 0 when done; 2 when the command or its input
// is refused (usage, validation: nothing is stored); 1 for anything else, with the reason on stderr.
import { parseArgs } from 'node:util';
import type { z } from 'zod';
import { openMigratedDatabase } from '../bootstrap.js';
import { loadConfig } from '../config.js';
import type { Prisma } from '../db/database.js';
import { DomainError, invalidRequest } from '../domain/errors.js';
import { environmentOfService, type KeyEnvironment } from '../lib/apiKeys.js';
import { presentKey, presentTenant } from '../modules/admin/presenter.js';
import { ApiKeyParams, CreateApiKeyBody, CreateTenantBody, TenantParams } from '../modules/admin/schemas.js';
import { createApiKey, createTenant, listApiKeys, listTenants, revokeApiKey } from '../modules/admin/service.js';
import { openDatabaseOrExit } from './openDatabaseOrExit.js';

const USAGE = [
  'usage: npm run admin -- <command>',
  '  list-tenants',
  '  create-tenant <name>',
  '  create-key <tenantId> --kind tenant|organization|platform [--country DEU|AUT|ITA] [--organization <merchantId>]',
  '  list-keys <tenantId>',
  '  revoke-key <keyId>',
].join('\n');

/** How the command line names each field of the admin API's schemas, for messages. */
const ARGUMENT_OF_FIELD: Record<string, string> = {
  name: '<name>',
  tenantId: '<tenantId>',
  keyId: '<keyId>',
  kind: '--kind',
  country_code: '--country',
  organization_id: '--organization',
};

class UsageError extends Error {}

type Run = (db: Prisma, environment: KeyEnvironment) => Promise<unknown>;

/** Checks input with the schema its admin route uses; a refusal names the argument or option. */
function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue.path.join('.');
  throw invalidRequest(`${ARGUMENT_OF_FIELD[field] ?? field}: ${issue.message}`, { field });
}

/** The command the arguments name, its input checked before the database is opened. */
function commandOf(argv: string[]): Run {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { kind: { type: 'string' }, country: { type: 'string' }, organization: { type: 'string' } },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const [command, ...rest] = parsed.positionals;
  const options = parsed.values;
  if (command !== 'create-key' && Object.keys(options).length > 0) throw new UsageError(`${command} takes no options`);
  const only = (count: number) => {
    if (rest.length !== count) throw new UsageError(`${command} takes ${count === 0 ? 'no arguments' : 'one argument (quote one that holds spaces)'}`);
    return rest[0];
  };
  switch (command) {
    case 'list-tenants':
      only(0);
      return async (db) => ({ data: (await listTenants(db)).map(presentTenant) });
    case 'create-tenant': {
      const { name } = parseInput(CreateTenantBody, { name: only(1) });
      return async (db) => presentTenant(await createTenant(db, name));
    }
    case 'create-key': {
      const { tenantId } = parseInput(TenantParams, { tenantId: only(1) });
      const body = parseInput(CreateApiKeyBody, { kind: options.kind, country_code: options.country, organization_id: options.organization });
      return async (db, environment) => {
        const { record, apiKey } = await createApiKey(db, tenantId, environment, body);
        return { ...presentKey(record), api_key: apiKey };
      };
    }
    case 'list-keys': {
      const { tenantId } = parseInput(TenantParams, { tenantId: only(1) });
      return async (db) => ({ data: (await listApiKeys(db, tenantId)).map(presentKey) });
    }
    case 'revoke-key': {
      const { keyId } = parseInput(ApiKeyParams, { keyId: only(1) });
      return async (db) => presentKey(await revokeApiKey(db, keyId));
    }
    default:
      throw new UsageError(command ? `unknown command ${command}` : 'no command');
  }
}

/** Prints a failure on stderr (JSON like the results) and sets the exit code. */
function fail(error: unknown): void {
  if (error instanceof UsageError) {
    console.error(`${error.message}\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  const refused = error instanceof DomainError && (error.kind === 'invalid_request' || error.kind === 'unprocessable');
  const body = error instanceof DomainError ? { error: error.message, code: error.code, details: error.details } : { error: (error as Error).message };
  console.error(JSON.stringify(body));
  process.exitCode = refused ? 2 : 1;
}

let run: Run | undefined;
try {
  run = commandOf(process.argv.slice(2));
} catch (error) {
  fail(error);
}
if (run) {
  const config = loadConfig();
  const database = await openDatabaseOrExit(() => openMigratedDatabase(config));
  try {
    console.log(JSON.stringify(await run(database.prisma, environmentOfService(config.environment))));
  } catch (error) {
    fail(error);
  } finally {
    await database.close();
  }
}
