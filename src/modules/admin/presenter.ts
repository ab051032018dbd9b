import type { ApiKey, Tenant } from '../../db/generated/client.js';
import type { ApiKeyView, TenantView } from './schemas.js';

/** The operator's view of a tenant, on /admin/v1 and in `npm run admin`. */
export function presentTenant(tenant: Tenant): TenantView {
  return { id: tenant.id, name: tenant.name, created_at: tenant.createdAt.toISOString() };
}

/** The operator's view of an API key: its prefix, never the key or its hash. */
export function presentKey(key: ApiKey): ApiKeyView {
  return {
    id: key.id,
    kind: key.kind as ApiKeyView['kind'],
    prefix: key.prefix,
    environment: key.environment as ApiKeyView['environment'],
    country_code: key.countryCode,
    organization_id: key.organizationId,
    created_at: key.createdAt.toISOString(),
    revoked_at: key.revokedAt?.toISOString() ?? null,
  };
}
