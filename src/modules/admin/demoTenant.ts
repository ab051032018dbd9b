import type { Prisma } from '../../db/database.js';
import type { KeyEnvironment } from '../../lib/apiKeys.js';
import { createApiKey, createTenant } from './service.js';

/**
 * On the first start of an empty sandbox, a demo tenant with a DEU key lets a
 * newcomer call the API at once. Returns the key, or null when tenants exist.
 */
export async function seedDemoTenant(db: Prisma, environment: KeyEnvironment): Promise<string | null> {
  if ((await db.tenant.count()) > 0) return null;
  const tenant = await createTenant(db, 'Demo tenant');
  const { apiKey } = await createApiKey(db, tenant.id, environment, { kind: 'tenant', country_code: 'DEU' });
  return apiKey;
}
