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

/**
 * OpenAPI extension on a header its handler requires. Zod lets a request without it through, so
 * the handler answers with the contract's own error (X-Service-Merchant and Idempotency-Key: 400
 * invalid_request naming the header; If-Match: 428 precondition_required); the document
 * (modules/openapi/document.ts) lists the header as required.
 */
export const REQUIRED_BY_HANDLER = 'x-required-by-handler';

const requiredByHandler = (header: z.ZodString) => header.optional().meta({ [REQUIRED_BY_HANDLER]: true });

const MerchantIdHeader = z.string().describe('The merchant the call acts for (its id, never the key)');
const IdempotencyKeyHeader = z
  .string()
  .describe('1-255 visible ASCII characters, unique per endpoint, merchant and tenant; a retry with the same key and payload returns the original response, another payload is 409 idempotency_key_conflict');
const IfMatchHeader = z
  .string()
  .describe('The current resource_version as a quoted integer, e.g. "1" (the ETag of the last answer); a stale one is 412 precondition_failed');

/** Merchant-scoped Style M calls (contract 5.5): X-Service-Merchant, required. */
export const StyleMHeaders = z.object({ 'x-service-merchant': requiredByHandler(MerchantIdHeader) });

/** Creates and actions whose retries the contract leaves to the caller: Idempotency-Key, optional. */
export const IdempotencyHeaders = z.object({ 'idempotency-key': IdempotencyKeyHeader.optional() });

/** Updates: Idempotency-Key and If-Match, both optional (without If-Match the update is unconditional). */
export const UpdateHeaders = IdempotencyHeaders.extend({ 'if-match': IfMatchHeader.optional() });

/** POST /operations (contract 5.7): Idempotency-Key, required. */
export const RequiredIdempotencyHeaders = z.object({ 'idempotency-key': requiredByHandler(IdempotencyKeyHeader) });

/** Complete and void (contract 5.7, 5.8): Idempotency-Key and If-Match, both required. */
export const TransitionHeaders = RequiredIdempotencyHeaders.extend({ 'if-match': requiredByHandler(IfMatchHeader) });
