import { timingSafeEqual, createHash } from 'node:crypto';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { unauthorized } from '../../domain/errors.js';
import { environmentOfService } from '../../lib/apiKeys.js';
import { listOf } from '../common/schemas.js';
import { errorResponses } from '../common/responses.js';
import { presentKey, presentTenant } from './presenter.js';
import { ApiKey, ApiKeyParams, CreateApiKeyBody, CreateTenantBody, IssuedApiKey, Tenant, TenantParams } from './schemas.js';
import { createApiKey, createTenant, listApiKeys, listTenants, revokeApiKey } from './service.js';

const digest = (value: string) => createHash('sha256').update(value).digest();

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
        operationId: 'createTenant',
        summary: 'Create a tenant',
        body: CreateTenantBody,
        response: { 201: Tenant.describe('The new tenant'), ...errorResponses(400) },
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
        response: { 200: listOf(Tenant).describe('Every tenant, oldest first'), ...errorResponses() },
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
        summary: 'Issue an API key for a tenant',
        params: TenantParams,
        body: CreateApiKeyBody,
        response: { 201: IssuedApiKey.describe('The new key; api_key is shown only here'), ...errorResponses(400, 404, 422) },
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
        summary: "List a tenant's API keys",
        params: TenantParams,
        response: { 200: listOf(ApiKey).describe("The tenant's keys by prefix, revoked ones included, oldest first"), ...errorResponses(400) },
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
        summary: 'Revoke an API key',
        params: ApiKeyParams,
        response: { 200: ApiKey.describe('The revoked key'), ...errorResponses(400, 404) },
      },
    },
    async (request) => presentKey(await revokeApiKey(app.ctx.db, request.params.keyId)),
  );
};
