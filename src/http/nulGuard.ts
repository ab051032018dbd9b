import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { toFieldPath } from './errorHandler.js';
import { invalidRequest } from '../domain/errors.js';

/**
 * Deepest nesting of arrays and objects a request may have (the body itself is
 * level 1). No request of this API needs more than about 6; the bound keeps every
 * later recursive walk (validation, canonical JSON, JSON.stringify) far from the stack limit.
 */
export const MAX_JSON_DEPTH = 64;

type Path = (string | number)[];

export interface InputViolation {
  problem: 'nul' | 'too_deep';
  /** Where it is: the string or key holding a NUL, or the first container nested too deep. */
  path: Path;
}

interface Frame {
  value: unknown;
  key: string | number | null;
  parent: Frame | null;
  /** Containers enclosing this value. */
  depth: number;
}

function pathOf(frame: Frame): Path {
  const path: Path = [];
  for (let at: Frame | null = frame; at && at.key !== null; at = at.parent) path.push(at.key);
  return path.reverse();
}

/**
 * The first NUL character (in a string or a key) or container nested deeper than
 * maxDepth, in document order, or null. The walk keeps its own stack, so no depth
 * of input can overflow the call stack.
 */
export function findInputViolation(root: unknown, maxDepth = MAX_JSON_DEPTH): InputViolation | null {
  const stack: Frame[] = [{ value: root, key: null, parent: null, depth: 0 }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const { value, key } = frame;
    if (typeof key === 'string' && key.includes('\u0000')) return { problem: 'nul', path: pathOf(frame) };
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return { problem: 'nul', path: pathOf(frame) };
      continue;
    }
    // A raw body (the SdI's SOAP pushes, read as bytes) is no JSON that reaches a text column.
    if (value === null || typeof value !== 'object' || Buffer.isBuffer(value)) continue;
    if (frame.depth >= maxDepth) return { problem: 'too_deep', path: pathOf(frame) };
    const children: [string | number, unknown][] = Array.isArray(value) ? value.map((child, index) => [index, child]) : Object.entries(value);
    // Pushed last to first, so they are taken in document order.
    for (let index = children.length - 1; index >= 0; index -= 1) {
      const [childKey, child] = children[index];
      stack.push({ value: child, key: childKey, parent: frame, depth: frame.depth + 1 });
    }
  }
  return null;
}

/**
 * PostgreSQL text and jsonb cannot hold U+0000, so a NUL anywhere in the input
 * would fail deep in a query as a 500; it is refused up front as a 400 naming the
 * field. JSON nested deeper than MAX_JSON_DEPTH is refused here too, before validation walks it.
 */
export const nulGuardPlugin = fp(
  async (app: FastifyInstance) => {
    app.addHook('preValidation', async (request) => {
      for (const [location, value] of [
        ['path', request.params],
        ['query', request.query],
        ['body', request.body],
      ] as const) {
        const found = findInputViolation(value);
        if (found?.problem === 'too_deep') {
          throw invalidRequest(`The ${location} nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`, {
            field: location,
            location,
            max_depth: MAX_JSON_DEPTH,
          });
        }
        if (found) {
          const field = toFieldPath(found.path) || location;
          throw invalidRequest(`${field} must not contain NUL characters`, { field, location });
        }
      }
    });
  },
  { name: 'nul-guard' },
);
