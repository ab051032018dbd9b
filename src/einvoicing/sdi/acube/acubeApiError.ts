/**
 * How a call to A-Cube failed:
 * - `unauthorized`: the credentials were refused (401), also with a fresh token;
 * - `forbidden`: the account may not do this (403: disabled, or without the invoicing role);
 * - `rate_limited`: 429, with how long A-Cube asked to wait;
 * - `unavailable`: 5xx;
 * - `unreachable`: no answer (connection refused, reset, DNS);
 * - `timeout`: no answer within the call's bound;
 * - `rejected`: any other 4xx (A-Cube's validation of the file: 400).
 */
export type AcubeFailureKind = 'unauthorized' | 'forbidden' | 'rate_limited' | 'unavailable' | 'unreachable' | 'timeout' | 'rejected';

/** A failed call; its message names the method, the path and A-Cube's answer, never a credential or a token. */
export class AcubeApiError extends Error {
  constructor(
    readonly kind: AcubeFailureKind,
    message: string,
    readonly status: number | null = null,
    /** From Retry-After, for `rate_limited`. */
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
    this.name = 'AcubeApiError';
  }

  /** The code the invoice's fiscal_errors show for it. */
  get code(): string {
    return `ACUBE_${this.kind.toUpperCase()}`;
  }
}
