import type { FastifyPluginAsync } from 'fastify';

export const OPENAPI_INFO = {
  title: 'Fiscalization Service',
  version: '1.1.0',
  description:
    'Server-to-server fiscalization API. Style M (merchant-scoped: X-Service-Merchant, decimal strings, status, resource_version) and Style O (organization-scoped: integer minor units, state, object).',
};

/** The machine-readable contract (contract 9.3); /docs-json is its old address. */
export const openApiRoutes: FastifyPluginAsync = async (app) => {
  const config = { auth: 'public' as const };
  app.get('/openapi-json', { config, schema: { hide: true } }, async () => app.swagger());
  app.get('/docs-json', { config, schema: { hide: true } }, async (_request, reply) => reply.redirect('/openapi-json', 301));
};
