/**
 * How a call to A-Cube failed:
 * - `unauthorized`: the credentials were refused (401), also with a fresh token;
 * - `forbidden`: the account may not do this (403: disabled, or without the invoicing role);
 * - `rate_limited`: 429, with how long A-Cube asked to wait;
 * - `unavailable`: 5xx;
 * - `unreachable`: no answer (connection refused, reset, DNS);
 * - `timeout`: no answer within the call's bound;
 * - `rejected`: any other 4xx: A-Cube's validation of a file (400, 422, with its violations),
 *   or a request it does not take (404, 409, ...).
 */
export type AcubeFailureKind = 'unauthorized' | 'forbidden' | 'rate_limited' | 'unavailable' | 'unreachable' | 'timeout' | 'rejected';

/** One constraint an invalid request broke, as A-Cube's API Platform lists it: where (`propertyPath`, may be empty) and what. */
export interface AcubeViolation {
  propertyPath: string;
  message: string;
}

/** A failed call; its message and violations name the method, the path and A-Cube's answer, never a credential or a token. */
export class AcubeApiError extends Error {
  constructor(
    readonly kind: AcubeFailureKind,
    message: string,
    readonly status: number | null = null,
    /** From Retry-After, for `rate_limited`. */
    readonly retryAfterMs: number | null = null,
    /** The answer's `violations`, for `rejected`. */
    readonly violations: readonly AcubeViolation[] = [],
  ) {
    super(message);
    this.name = 'AcubeApiError';
  }

  /** The code the invoice's fiscal_errors show for it. */
  get code(): string {
    return `ACUBE_${this.kind.toUpperCase()}`;
  }
}
