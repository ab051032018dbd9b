import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ApiError, ErrorEnvelope } from '../../http/errors.js';

const Health = z.object({ status: z.string() });
const Readiness = z.object({ status: z.literal('ready'), database: z.literal('ok') });

export const healthRoutes: FastifyPluginAsyncZod = async (app) => {
  const config = { auth: 'public' as const, rateLimit: false as const };

  app.get('/healthz', { config, schema: { tags: ['Health'], summary: 'Liveness', response: { 200: Health } } }, async () => ({
    status: 'ok',
  }));

  app.get(
    '/readyz',
    { config, schema: { tags: ['Health'], summary: 'Readiness: the database answers', response: { 200: Readiness, 503: ErrorEnvelope } } },
    async () => {
      try {
        await app.ctx.database.ping();
      } catch {
        throw new ApiError(503, 'service_unavailable', 'The database is not reachable', { database: 'unavailable' });
      }
      return { status: 'ready' as const, database: 'ok' as const };
    },
  );
};
