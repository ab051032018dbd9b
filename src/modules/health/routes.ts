import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ErrorEnvelope, serviceUnavailable } from '../../http/errors.js';

const Health = z.object({ status: z.string() });
const Readiness = z.object({ status: z.literal('ready'), database: z.literal('ok') });

export const healthRoutes: FastifyPluginAsyncZod = async (app) => {
  const config = { auth: 'public' as const, rateLimit: false as const };
  const tags = ['Health'];
  // No API key: load balancers and orchestrators ask.
  const security: [] = [];

  app.get(
    '/healthz',
    { config, schema: { tags, operationId: 'getLiveness', summary: 'Liveness', security, response: { 200: Health.describe('The process is up') } } },
    async () => ({ status: 'ok' }),
  );

  // Readiness for a load balancer: the database accepts a connection and answers (Database.ping).
  // One lost pooled connection or a busy pool does not take the instance out of rotation.
  app.get(
    '/readyz',
    {
      config,
      schema: {
        tags,
        operationId: 'getReadiness',
        summary: 'Readiness: the database answers',
        security,
        response: {
          200: Readiness.describe('The instance can serve requests'),
          503: ErrorEnvelope.describe('service_unavailable: the database is not reachable'),
        },
      },
    },
    async () => {
      try {
        await app.ctx.database.ping();
      } catch {
        throw serviceUnavailable('The database is not reachable', { database: 'unavailable' });
      }
      return { status: 'ready' as const, database: 'ok' as const };
    },
  );
};
