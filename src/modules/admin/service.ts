import type { Prisma } from '../../db/database.js';
import { notFound, validationError } from '../../domain/errors.js';
import { generateApiKey, hashApiKey, type KeyEnvironment, type KeyKind } from '../../lib/apiKeys.js';
import { newId } from '../../lib/ids.js';

export interface CreateApiKeyInput {
  kind: KeyKind;
  country_code?: string;
  organization_id?: string;
}

export async function createTenant(db: Prisma, name: string) {
  return db.tenant.create({ data: { id: newId('ten'), name } });
}

/** Every tenant, oldest first (the order they were created in). */
export async function listTenants(db: Prisma) {
  return db.tenant.findMany({ orderBy: { createdAt: 'asc' } });
}

/** A tenant's keys, revoked ones included, oldest first. */
export async function listApiKeys(db: Prisma, tenantId: string) {
  return db.apiKey.findMany({ where: { tenantId }, orderBy: { createdAt: 'asc' } });
}

/** Issues a key; the secret is returned once and only its SHA-256 hash is stored. */
export async function createApiKey(db: Prisma, tenantId: string, environment: KeyEnvironment, input: CreateApiKeyInput) {
  const tenant = await db.tenant.findUnique({ where: { id: tenantId } });
  if (!tenant) throw notFound('tenant', tenantId);
  let countryCode: string | null = null;
  let organizationId: string | null = null;
  if (input.kind === 'platform') {
    if (input.country_code || input.organization_id) {
      throw validationError('A platform key has no country and no organization', {
        field: input.country_code ? 'country_code' : 'organization_id',
      });
    }
  } else if (input.kind === 'organization') {
    if (!input.organization_id) throw validationError('organization_id is required for an organization key', { field: 'organization_id' });
    const merchant = await db.merchant.findFirst({ where: { id: input.organization_id, tenantId } });
    if (!merchant) throw notFound('organization', input.organization_id);
    if (input.country_code && input.country_code !== merchant.countryCode) {
      throw validationError('country_code must be the organization\'s country', { field: 'country_code' });
    }
    countryCode = merchant.countryCode;
    organizationId = merchant.id;
  } else {
    if (!input.country_code) throw validationError('country_code is required for a tenant key', { field: 'country_code' });
    if (input.organization_id) throw validationError('A tenant key is not bound to an organization', { field: 'organization_id' });
    countryCode = input.country_code;
  }
  const { apiKey, prefix } = generateApiKey(input.kind, environment, countryCode ?? undefined);
  const record = await db.apiKey.create({
    data: {
      id: newId('key'),
      tenantId,
      kind: input.kind,
      environment,
      countryCode,
      organizationId,
      prefix,
      keyHash: hashApiKey(apiKey),
    },
  });
  return { record, apiKey };
}

export async function revokeApiKey(db: Prisma, keyId: string) {
  const key = await db.apiKey.findUnique({ where: { id: keyId } });
  if (!key) throw notFound('api_key', keyId);
  if (key.revokedAt) return key;
  return db.apiKey.update({ where: { id: keyId }, data: { revokedAt: new Date() } });
}
