/**
 * What kind of failure a domain error is. src/http/errorHandler.ts is the one place
 * that turns a kind into an HTTP status; the code says which rule failed.
 */
export type DomainErrorKind =
  | 'invalid_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'precondition_failed'
  | 'unprocessable'
  | 'not_implemented';

/** A failure services (and the rules and plugins they rely on) report: the contract's code, message and details. */
export class DomainError extends Error {
  private isTransient = false;

  constructor(
    readonly kind: DomainErrorKind,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'DomainError';
  }

  /** Set for failures of the outside world (a fiscal device), which a retry under the same key should re-attempt. */
  get transient(): boolean {
    return this.isTransient;
  }

  markTransient(): this {
    this.isTransient = true;
    return this;
  }
}

export const invalidRequest = (message: string, details?: Record<string, unknown>) =>
  new DomainError('invalid_request', 'invalid_request', message, details);
export const unauthorized = (message = 'Missing, malformed, revoked or invalid API key') =>
  new DomainError('unauthorized', 'unauthorized', message);
export const forbidden = (message: string, details?: Record<string, unknown>) =>
  new DomainError('forbidden', 'forbidden', message, details);
export const notFound = (resource: string, id?: string) =>
  new DomainError('not_found', 'not_found', id ? `No ${resource} with id ${id}` : `${resource} not found`, id ? { resource, id } : { resource });
export const conflict = (code: string, message: string, details?: Record<string, unknown>) =>
  new DomainError('conflict', code, message, details);
export const validationError = (message: string, details?: Record<string, unknown>) =>
  new DomainError('unprocessable', 'validation_error', message, details);
export const unprocessable = (code: string, message: string, details?: Record<string, unknown>) =>
  new DomainError('unprocessable', code, message, details);
