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

/**
 * An answer in the error envelope: what errorHandler.ts maps a DomainError to, or what
 * the HTTP layer answers by itself (framework errors, If-Match, rate limit, an unusable database).
 */
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

  /** Carried over from a transient DomainError (see DomainError.markTransient). */
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

/**
 * The database cannot be used right now. Retry-After is one second: a lost pooled
 * connection is replaced on the next checkout, and clients have a 30 s retry budget (contract 8).
 */
export const serviceUnavailable = (message: string, details?: Record<string, unknown>) =>
  new ApiError(503, 'service_unavailable', message, details, { 'retry-after': '1' });

/** The answer to a method and path the service does not serve. */
export const noRoute = (method: string, url: string) => new ApiError(404, 'not_found', `No route ${method} ${url.split('?')[0]}`);
