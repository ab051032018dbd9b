import { timingSafeEqual, createHash } from 'node:crypto';
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { unauthorized } from '../../domain/errors.js';
import { ErrorEnvelope, noRoute } from '../../http/errors.js';
import { environmentOfService } from '../../lib/apiKeys.js';
import { ResourceId, Timestamp } from '../common/schemas.js';
import { errorResponses } from '../common/responses.js';
import { createApiKey, createTenant, KEY_COUNTRIES, revokeApiKey } from './service.js';

const digest = (value: string) => createHash('sha256').update(value).digest();

const Tenant = z.object({ id: z.string(), name: z.string(), created_at: Timestamp });

const ApiKeyView = z.object({
  id: z.string(),
  kind: z.enum(['tenant', 'organization', 'platform']),
  prefix: z.string(),
  environment: z.enum(['test', 'live']),
  country_code: z.string().nullable(),
  organization_id: z.string().nullable(),
  created_at: Timestamp,
  revoked_at: Timestamp.nullable(),
});

const KeyParams = z.strictObject({ keyId: ResourceId });
const TenantParams = z.strictObject({ tenantId: ResourceId });

/** Admin errors: 401 is about the admin token, not an API key. */
const adminErrors = (...statuses: number[]) => ({
  ...errorResponses(...statuses),
  401: ErrorEnvelope.describe('unauthorized: the admin token is missing or wrong'),
});

/**
 * The operator console over HTTP. Always registered, so the OpenAPI document describes it (tag
 * Admin, security adminToken); without ADMIN_TOKEN every call answers as an unknown route does.
 */
export const adminRoutes: FastifyPluginAsyncZod<{ adminToken: string | undefined }> = async (app, options) => {
  const expected = options.adminToken === undefined ? null : digest(options.adminToken);
  app.addHook('onRequest', async (request) => {
    if (!expected) throw noRoute(request.method, request.url);
    const match = /^Bearer (.+)$/.exec(request.headers.authorization ?? '');
    if (!match || !timingSafeEqual(digest(match[1]), expected)) throw unauthorized('Invalid admin token');
  });
  const schemaBase = { tags: ['Admin'], security: [{ adminToken: [] }] };
  const environment = environmentOfService(app.ctx.config.environment);

  app.post(
    '/tenants',
    {
      schema: {
        ...schemaBase,
        operationId: 'createTenant',
        summary: 'Create a tenant',
        body: z.strictObject({ name: z.string().min(1).max(200) }),
        response: { 201: Tenant.describe('The tenant created'), ...adminErrors(400) },
      },
    },
    async (request, reply) => {
      const tenant = await createTenant(app.ctx.db, request.body.name);
      return reply.code(201).send({ id: tenant.id, name: tenant.name, created_at: tenant.createdAt.toISOString() });
    },
  );

  app.post(
    '/tenants/:tenantId/api-keys',
    {
      schema: {
        ...schemaBase,
        operationId: 'createApiKey',
        summary: "Issue an API key of the deployment's environment for a tenant",
        description:
          'kind tenant needs country_code; organization needs organization_id (its country is the organization\'s); platform takes neither. The secret api_key is shown only in this answer.',
        params: TenantParams,
        body: z.strictObject({
          kind: z.enum(['tenant', 'organization', 'platform']),
          country_code: z.enum(KEY_COUNTRIES).optional(),
          organization_id: ResourceId.optional(),
        }),
        response: { 201: ApiKeyView.extend({ api_key: z.string() }).describe('The key issued, with its secret (shown only here)'), ...adminErrors(400, 404, 422) },
      },
    },
    async (request, reply) => {
      const { record, apiKey } = await createApiKey(app.ctx.db, request.params.tenantId, environment, request.body);
      return reply.code(201).send({ ...presentKey(record), api_key: apiKey });
    },
  );

  app.get(
    '/tenants/:tenantId/api-keys',
    {
      schema: {
        ...schemaBase,
        operationId: 'listApiKeys',
        summary: "List a tenant's API keys (prefixes only), oldest first",
        params: TenantParams,
        response: { 200: z.object({ data: z.array(ApiKeyView) }).describe("The tenant's keys, revoked ones included"), ...adminErrors(400) },
      },
    },
    async (request) => ({
      data: (await app.ctx.db.apiKey.findMany({ where: { tenantId: request.params.tenantId }, orderBy: { createdAt: 'asc' } })).map(
        presentKey,
      ),
    }),
  );

  app.delete(
    '/api-keys/:keyId',
    {
      schema: {
        ...schemaBase,
        operationId: 'revokeApiKey',
        summary: 'Revoke an API key (revoking it again changes nothing)',
        params: KeyParams,
        response: { 200: ApiKeyView.describe('The key, revoked (revoked_at set)'), ...adminErrors(400, 404) },
      },
    },
    async (request) => presentKey(await revokeApiKey(app.ctx.db, request.params.keyId)),
  );
};

function presentKey(key: {
  id: string;
  kind: string;
  prefix: string;
  environment: string;
  countryCode: string | null;
  organizationId: string | null;
  createdAt: Date;
  revokedAt: Date | null;
}): z.infer<typeof ApiKeyView> {
  return {
    id: key.id,
    kind: key.kind as z.infer<typeof ApiKeyView>['kind'],
    prefix: key.prefix,
    environment: key.environment as 'test' | 'live',
    country_code: key.countryCode,
    organization_id: key.organizationId,
    created_at: key.createdAt.toISOString(),
    revoked_at: key.revokedAt?.toISOString() ?? null,
  };
}
