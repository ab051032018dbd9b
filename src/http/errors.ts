import { z } from 'zod';

/** The error envelope of contract section 2.6 / 7. */
export const ErrorEnvelope = z
  .object({
    code: z.string(),
    message: z.string(),
    retryable: z.boolean(),
    details: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: 'Error' });

export type ErrorBody = z.infer<typeof ErrorEnvelope>;

/** Contract section 7: retryable for every 5xx, 429 and 412, and nothing else. */
export function isRetryableStatus(status: number): boolean {
  return status >= 500 || status === 429 || status === 412;
}

export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** Set for failures of the outside world (a fiscal device), which a retry under the same key should re-attempt. */
  private transient = false;

  get retryable(): boolean {
    return isRetryableStatus(this.statusCode);
  }

  /** Whether an idempotent replay should return this error: final answers about the request, not transient conditions. */
  get replayable(): boolean {
    return !this.retryable && !this.transient;
  }

  markTransient(): this {
    this.transient = true;
    return this;
  }

  toBody(): ErrorBody {
    return {
      code: this.code,
      message: this.message,
      retryable: this.retryable,
      ...(this.details ? { details: this.details } : {}),
    };
  }
}

export const invalidRequest = (message: string, details?: Record<string, unknown>) =>
  new ApiError(400, 'invalid_request', message, details);
export const unauthorized = (message = 'Missing, malformed, revoked or invalid API key') =>
  new ApiError(401, 'unauthorized', message);
export const forbidden = (message: string, details?: Record<string, unknown>) =>
  new ApiError(403, 'forbidden', message, details);
export const notFound = (resource: string, id?: string) =>
  new ApiError(404, 'not_found', id ? `No ${resource} with id ${id}` : `${resource} not found`, id ? { resource, id } : { resource });
export const conflict = (code: string, message: string, details?: Record<string, unknown>) =>
  new ApiError(409, code, message, details);
export const validationError = (message: string, details?: Record<string, unknown>) =>
  new ApiError(422, 'validation_error', message, details);
export const unprocessable = (code: string, message: string, details?: Record<string, unknown>) =>
  new ApiError(422, code, message, details);
/**
 * The database cannot be used right now. Retry-After is one second: a lost pooled
 * connection is replaced on the next checkout, and clients have a 30 s retry budget (contract 8).
 */
export const serviceUnavailable = (message: string, details?: Record<string, unknown>) =>
  new ApiError(503, 'service_unavailable', message, details, { 'retry-after': '1' });
