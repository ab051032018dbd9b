import { createHash } from 'node:crypto';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { Redis } from 'ioredis';
import { ApiError } from './errors.js';

/** The budget belongs to the API key (hashed, never stored raw); unauthenticated calls share their IP's. */
function budgetKey(request: FastifyRequest): string {
  const authorization = request.headers.authorization;
  if (authorization) return `key:${createHash('sha256').update(authorization).digest('base64url').slice(0, 32)}`;
  return `ip:${request.ip}`;
}

export const rateLimitPlugin = fp(
  async (app: FastifyInstance, options: { perSecond: number; redisUrl?: string }) => {
    // Shared counters in Redis let several instances enforce one budget.
    const redis = options.redisUrl
      ? new Redis(options.redisUrl, { connectTimeout: 1000, maxRetriesPerRequest: 1, lazyConnect: false })
      : undefined;
    redis?.on('error', (error) => app.log.warn({ err: error }, 'rate-limit redis error'));
    if (redis) app.addHook('onClose', async () => void (await redis.quit().catch(() => undefined)));
    await app.register(rateLimit, {
      global: true,
      max: options.perSecond,
      timeWindow: 1000,
      keyGenerator: budgetKey,
      nameSpace: 'fiscal-rl:',
      redis,
      // An unreachable Redis must not take the API down; the budget is then unenforced.
      skipOnError: true,
      errorResponseBuilder: (_request, context) =>
        new ApiError(429, 'rate_limit_exceeded', `Rate limit of ${context.max} requests per second exceeded`, {
          limit: context.max,
          retry_after_seconds: Math.max(1, Math.ceil(context.ttl / 1000)),
        }),
    });
  },
  { name: 'rate-limit' },
);
