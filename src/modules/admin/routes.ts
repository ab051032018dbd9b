import { timingSafeEqual, createHash } from 'node:crypto';
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { unauthorized } from '../../domain/errors.js';
import { environmentOfService } from '../../lib/apiKeys.js';
import { ResourceId, Timestamp } from '../common/schemas.js';
import { errorResponses } from '../common/responses.js';
import { createApiKey, createTenant, KEY_COUNTRIES, revokeApiKey } from './service.js';

const digest = (value: string) => createHash('sha256').update(value).digest();

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

/** The operator console over HTTP; mounted only when ADMIN_TOKEN is set, and hidden from the public contract. */
export const adminRoutes: FastifyPluginAsyncZod<{ adminToken: string }> = async (app, options) => {
  const expected = digest(options.adminToken);
  app.addHook('onRequest', async (request) => {
    const match = /^Bearer (.+)$/.exec(request.headers.authorization ?? '');
    if (!match || !timingSafeEqual(digest(match[1]), expected)) throw unauthorized('Invalid admin token');
  });
  const schemaBase = { hide: true, tags: ['Admin'] };
  const environment = environmentOfService(app.ctx.config.environment);

  app.post(
    '/tenants',
    {
      schema: {
        ...schemaBase,
        body: z.strictObject({ name: z.string().min(1).max(200) }),
        response: { 201: z.object({ id: z.string(), name: z.string(), created_at: Timestamp }), ...errorResponses(400) },
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
        params: z.strictObject({ tenantId: ResourceId }),
        body: z.strictObject({
          kind: z.enum(['tenant', 'organization', 'platform']),
          country_code: z.enum(KEY_COUNTRIES).optional(),
          organization_id: ResourceId.optional(),
        }),
        response: { 201: ApiKeyView.extend({ api_key: z.string() }), ...errorResponses(400, 404, 422) },
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
        params: z.strictObject({ tenantId: ResourceId }),
        response: { 200: z.object({ data: z.array(ApiKeyView) }), ...errorResponses(400) },
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
    { schema: { ...schemaBase, params: z.strictObject({ keyId: ResourceId }), response: { 200: ApiKeyView, ...errorResponses(400, 404) } } },
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
