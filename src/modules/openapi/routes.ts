import type { FastifyPluginAsync } from 'fastify';

/** The machine-readable contract (contract 9.3; built as ./document.ts says); /docs-json is its old address. */
export const openApiRoutes: FastifyPluginAsync = async (app) => {
  const config = { auth: 'public' as const };
  app.get('/openapi-json', { config, schema: { hide: true } }, async () => app.swagger());
  app.get('/docs-json', { config, schema: { hide: true } }, async (_request, reply) => reply.redirect('/openapi-json', 301));
};
