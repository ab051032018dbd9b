import { z } from 'zod';
import { ErrorEnvelope } from '../../http/errors.js';

const DESCRIPTIONS: Record<number, string> = {
  400: 'invalid_request: malformed or schema-invalid input; details name the field',
  401: 'unauthorized: missing, malformed, revoked or invalid API key, or a key of the other environment',
  403: 'forbidden: the key is not allowed for this tenant, country or merchant',
  404: 'not_found: the resource does not exist or is invisible to the caller',
  409: 'conflict: see the code',
  412: 'precondition_failed: stale If-Match',
  422: 'validation_error or a more specific rule code',
  428: 'precondition_required: If-Match missing',
  429: "rate_limit_exceeded: the API key's budget, or the client address's budget for requests without a valid key, is used up; honour Retry-After",
  500: 'internal_error',
  501: 'not_implemented',
  503: 'service_unavailable: the database is temporarily unavailable; retry after Retry-After (seconds)',
};

/** Error responses for a route's OpenAPI description; 401, 429, 500 and 503 apply to every API route. */
export function errorResponses(...statuses: number[]): Record<number, typeof ErrorEnvelope> {
  const all = [...new Set([...statuses, 401, 429, 500, 503])].sort();
  return Object.fromEntries(all.map((status) => [status, ErrorEnvelope.describe(DESCRIPTIONS[status] ?? 'error')]));
}

/** Request headers of Style M calls, documented; their rules are checked by the handlers. */
export const StyleMHeaders = z.object({
  'x-service-merchant': z.string().optional().describe('The merchant id (required on merchant-scoped calls)'),
});

export const IdempotencyHeaders = z.object({
  'idempotency-key': z.string().optional().describe('Makes retries safe; unique per endpoint, merchant and tenant'),
});

export const MutationHeaders = IdempotencyHeaders.extend({
  'if-match': z.string().optional().describe('The current resource_version as a quoted integer, e.g. "1"'),
});
