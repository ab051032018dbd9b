// The operator console on the command line (same operations as /admin/v1), printing JSON:
//   npm run admin -- create-tenant "<name>"
//   npm run admin -- create-key <tenantId> --kind tenant|organization|platform [--country DEU] [--organization <id>]
//   npm run admin -- list-keys <tenantId>
//   npm run admin -- revoke-key <keyId>
import { parseArgs } from 'node:util';
import { openMigratedDatabase } from '../bootstrap.js';
import { loadConfig } from '../config.js';
import { environmentOfService, type KeyKind } from '../lib/apiKeys.js';
import { createApiKey, createTenant, revokeApiKey } from '../modules/admin/service.js';

const USAGE = 'usage: admin create-tenant <name> | create-key <tenantId> --kind <kind> [--country DEU] [--organization <id>] | list-keys <tenantId> | revoke-key <keyId>';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { kind: { type: 'string' }, country: { type: 'string' }, organization: { type: 'string' } },
});
const [command, argument] = positionals;
const config = loadConfig();
const database = await openMigratedDatabase(config);
const db = database.prisma;

const keyView = (key: { id: string; kind: string; prefix: string; environment: string; countryCode: string | null; organizationId: string | null; revokedAt: Date | null }) => ({
  id: key.id,
  kind: key.kind,
  prefix: key.prefix,
  environment: key.environment,
  country_code: key.countryCode,
  organization_id: key.organizationId,
  revoked_at: key.revokedAt?.toISOString() ?? null,
});

try {
  if (command === 'create-tenant' && argument) {
    const tenant = await createTenant(db, argument);
    console.log(JSON.stringify({ id: tenant.id, name: tenant.name, created_at: tenant.createdAt.toISOString() }));
  } else if (command === 'create-key' && argument && values.kind) {
    const { record, apiKey } = await createApiKey(db, argument, environmentOfService(config.environment), {
      kind: values.kind as KeyKind,
      country_code: values.country?.toUpperCase(),
      organization_id: values.organization,
    });
    console.log(JSON.stringify({ ...keyView(record), api_key: apiKey }));
  } else if (command === 'list-keys' && argument) {
    const keys = await db.apiKey.findMany({ where: { tenantId: argument }, orderBy: { createdAt: 'asc' } });
    console.log(JSON.stringify({ data: keys.map(keyView) }));
  } else if (command === 'revoke-key' && argument) {
    console.log(JSON.stringify(keyView(await revokeApiKey(db, argument))));
  } else {
    console.error(USAGE);
    process.exitCode = 2;
  }
} catch (error) {
  console.error(JSON.stringify({ error: (error as Error).message }));
  process.exitCode = 1;
} finally {
  await database.close();
}
