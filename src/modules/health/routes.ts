import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ErrorEnvelope, serviceUnavailable } from '../../http/errors.js';

const Health = z.object({ status: z.string() });
const Readiness = z.object({ status: z.literal('ready'), database: z.literal('ok') });

export const healthRoutes: FastifyPluginAsyncZod = async (app) => {
  const config = { auth: 'public' as const, rateLimit: false as const };

  app.get('/healthz', { config, schema: { tags: ['Health'], summary: 'Liveness', response: { 200: Health } } }, async () => ({
    status: 'ok',
  }));

  // Readiness for a load balancer: the database accepts a connection and answers (Database.ping).
  // One lost pooled connection or a busy pool does not take the instance out of rotation.
  app.get(
    '/readyz',
    { config, schema: { tags: ['Health'], summary: 'Readiness: the database answers', response: { 200: Readiness, 503: ErrorEnvelope } } },
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
