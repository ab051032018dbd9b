import type { FastifySchema } from 'fastify';
import { z } from 'zod';
import { describeRoute } from '../openapi/document.js';
import { StyleOHeaders } from './schemas.js';

type SwaggerTransform = Parameters<typeof describeRoute>[0];

/**
 * Where both styles share a method and path (the style constraint picks the
 * route), OpenAPI has room for one operation. The Style O route is registered
 * after the Style M one, so its description wins: this gives it a schema that
 * describes both styles (headers of both, each request body, each response),
 * while the route itself validates with its Style O schema.
 */
export function describeBothStyles(schema: FastifySchema) {
  return {
    swaggerTransform: (args: SwaggerTransform) => describeRoute({ ...args, schema }),
  } as Record<string, unknown>;
}

// The headers of a call both styles make. None is required of every caller: X-Service-Merchant
// is what makes a call Style M, and each style's rules are in the descriptions.

/** X-Service-Merchant picks Style M; Service-Organization is Style O's. */
export const BothStylesHeaders = z
  .object({ 'x-service-merchant': z.string().optional().describe('Style M: the merchant the call acts for. Left out, the call is Style O.') })
  .extend(StyleOHeaders.shape);

/** Updates: Idempotency-Key optional in both styles, If-Match optional in Style M. */
export const BothStylesUpdateHeaders = BothStylesHeaders.extend({
  'idempotency-key': z
    .string()
    .optional()
    .describe('Optional. Style M: 1-255 visible ASCII characters; Style O: a UUID. A retry with the same key and payload returns the original response.'),
  'if-match': z
    .string()
    .optional()
    .describe('Style M only, optional: the current resource_version as a quoted integer, e.g. "1"; a stale one is 412 precondition_failed.'),
});

/** Complete: Idempotency-Key and If-Match required in Style M; in Style O the key is optional and If-Match unused. */
export const BothStylesTransitionHeaders = BothStylesHeaders.extend({
  'idempotency-key': z
    .string()
    .optional()
    .describe('Style M: required (400 invalid_request without it), 1-255 visible ASCII characters. Style O: optional, a UUID.'),
  'if-match': z
    .string()
    .optional()
    .describe('Style M: required, the current resource_version as a quoted integer, e.g. "1" (428 precondition_required without it, 412 precondition_failed when stale). Style O: not used.'),
});
