import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { toFieldPath } from './errorHandler.js';
import { invalidRequest } from './errors.js';

/** Path to the first string holding a NUL character, or null. */
export function findNul(value: unknown, path: (string | number)[] = []): (string | number)[] | null {
  if (typeof value === 'string') return value.includes('\u0000') ? path : null;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index += 1) {
      const found = findNul(value[index], [...path, index]);
      if (found) return found;
    }
    return null;
  }
  if (value && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      const found = key.includes('\u0000') ? [...path, key] : findNul(child, [...path, key]);
      if (found) return found;
    }
  }
  return null;
}

/**
 * PostgreSQL text and jsonb cannot hold U+0000, so a NUL anywhere in the input
 * would fail deep in a query as a 500; it is refused up front as a 400 naming the field.
 */
export const nulGuardPlugin = fp(
  async (app: FastifyInstance) => {
    app.addHook('preValidation', async (request) => {
      for (const [location, value] of [
        ['path', request.params],
        ['query', request.query],
        ['body', request.body],
      ] as const) {
        const found = findNul(value);
        if (found) {
          const field = toFieldPath(found) || location;
          throw invalidRequest(`${field} must not contain NUL characters`, { field, location });
        }
      }
    });
  },
  { name: 'nul-guard' },
);
