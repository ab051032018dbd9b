import { timingSafeEqual, createHash } from 'node:crypto';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { unauthorized } from '../../domain/errors.js';
import { ErrorEnvelope, noRoute } from '../../http/errors.js';
import { environmentOfService } from '../../lib/apiKeys.js';
import { listOf } from '../common/schemas.js';
import { errorResponses } from '../common/responses.js';
import { presentKey, presentTenant } from './presenter.js';
import { ApiKey, ApiKeyParams, CreateApiKeyBody, CreateTenantBody, IssuedApiKey, Tenant, TenantParams } from './schemas.js';
import { createApiKey, createTenant, listApiKeys, listTenants, revokeApiKey } from './service.js';

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Admin errors: 401 is about the admin token, not an API key. */
const adminErrors = (...statuses: number[]) => ({
  ...errorResponses(...statuses),
  401: ErrorEnvelope.describe('unauthorized: the admin token is missing or wrong'),
});

/**
 * The operator console over HTTP (the CLI runs the same services). Always registered, so the
 * OpenAPI document describes it (tag Admin, security adminToken); without ADMIN_TOKEN every call
 * answers as an unknown route does.
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
        body: CreateTenantBody,
        response: { 201: Tenant.describe('The tenant created'), ...adminErrors(400) },
      },
    },
    async (request, reply) => reply.code(201).send(presentTenant(await createTenant(app.ctx.db, request.body.name))),
  );

  app.get(
    '/tenants',
    {
      schema: {
        ...schemaBase,
        operationId: 'listTenants',
        summary: 'List every tenant',
        response: { 200: listOf(Tenant).describe('Every tenant, oldest first'), ...adminErrors() },
      },
    },
    async () => ({ data: (await listTenants(app.ctx.db)).map(presentTenant) }),
  );

  app.post(
    '/tenants/:tenantId/api-keys',
    {
      schema: {
        ...schemaBase,
        operationId: 'createApiKey',
        summary: "Issue an API key of the deployment's environment for a tenant",
        description:
          "kind tenant needs country_code; organization needs organization_id (its country is the organization's); platform takes neither. The secret api_key is shown only in this answer.",
        params: TenantParams,
        body: CreateApiKeyBody,
        response: { 201: IssuedApiKey.describe('The key issued, with its secret (shown only here)'), ...adminErrors(400, 404, 422) },
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
        response: { 200: listOf(ApiKey).describe("The tenant's keys, revoked ones included"), ...adminErrors(400) },
      },
    },
    async (request) => ({ data: (await listApiKeys(app.ctx.db, request.params.tenantId)).map(presentKey) }),
  );

  app.delete(
    '/api-keys/:keyId',
    {
      schema: {
        ...schemaBase,
        operationId: 'revokeApiKey',
        summary: 'Revoke an API key (revoking it again changes nothing)',
        params: ApiKeyParams,
        response: { 200: ApiKey.describe('The key, revoked (revoked_at set)'), ...adminErrors(400, 404) },
      },
    },
    async (request) => presentKey(await revokeApiKey(app.ctx.db, request.params.keyId)),
  );
};
