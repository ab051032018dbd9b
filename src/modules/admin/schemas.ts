import { z } from 'zod';
import { ResourceId, Timestamp } from '../common/schemas.js';

/** The countries a tenant key may be issued for. */
export const KEY_COUNTRIES = ['DEU', 'AUT', 'ITA'] as const;

export const KEY_KINDS = ['tenant', 'organization', 'platform'] as const;

export const CreateTenantBody = z.strictObject({ name: z.string().min(1).max(200) });

export const TenantParams = z.strictObject({ tenantId: ResourceId });

export const CreateApiKeyBody = z.strictObject({
  kind: z.enum(KEY_KINDS),
  country_code: z.enum(KEY_COUNTRIES).optional(),
  organization_id: ResourceId.optional(),
});

export const ApiKeyParams = z.strictObject({ keyId: ResourceId });

export const Tenant = z.object({ id: z.string(), name: z.string(), created_at: Timestamp });
export type TenantView = z.infer<typeof Tenant>;

export const ApiKey = z.object({
  id: z.string(),
  kind: z.enum(KEY_KINDS),
  prefix: z.string(),
  environment: z.enum(['test', 'live']),
  country_code: z.string().nullable(),
  organization_id: z.string().nullable(),
  created_at: Timestamp,
  revoked_at: Timestamp.nullable(),
});
export type ApiKeyView = z.infer<typeof ApiKey>;

export const IssuedApiKey = ApiKey.extend({ api_key: z.string().describe('The key itself, shown only in this response') });
