// Services raise DomainErrors (src/domain/errors.ts); src/http/errorHandler.ts is the one place that
// turns them into HTTP answers: each kind's status, the envelope, and what idempotency may replay.
import { describe, expect, it } from 'vitest';
import {
  conflict,
  DomainError,
  forbidden,
  invalidRequest,
  notFound,
  unauthorized,
  unprocessable,
  validationError,
  type DomainErrorKind,
} from '../../src/domain/errors.js';
import { assertCurrentVersion } from '../../src/domain/resourceVersion.js';
import { apiErrorOf, STATUS_OF_KIND } from '../../src/http/errorHandler.js';

/** Contract section 7: the status of each kind, and whether a client may retry it. */
const ANSWERS: Record<DomainErrorKind, { status: number; retryable: boolean }> = {
  invalid_request: { status: 400, retryable: false },
  unauthorized: { status: 401, retryable: false },
  forbidden: { status: 403, retryable: false },
  not_found: { status: 404, retryable: false },
  conflict: { status: 409, retryable: false },
  precondition_failed: { status: 412, retryable: true },
  unprocessable: { status: 422, retryable: false },
  not_implemented: { status: 501, retryable: true },
};

describe('apiErrorOf', () => {
  it('maps every kind to its status, with the code, message and details in the envelope', () => {
    expect(Object.keys(STATUS_OF_KIND).sort()).toEqual(Object.keys(ANSWERS).sort());
    for (const [kind, { status, retryable }] of Object.entries(ANSWERS)) {
      const answer = apiErrorOf(new DomainError(kind as DomainErrorKind, 'some_rule', 'Some rule failed', { field: 'name' }));
      expect([kind, answer.statusCode]).toEqual([kind, status]);
      expect(answer.toBody()).toEqual({ code: 'some_rule', message: 'Some rule failed', retryable, details: { field: 'name' } });
      expect([kind, answer.replayable]).toEqual([kind, !retryable]);
    }
  });

  it('leaves details out when there are none', () => {
    expect(apiErrorOf(unauthorized()).toBody()).toEqual({
      code: 'unauthorized',
      message: 'Missing, malformed, revoked or invalid API key',
      retryable: false,
    });
  });

  it('a transient error (a fiscal device failed) keeps its status but is not replayed', () => {
    const answer = apiErrorOf(validationError('Fiscal signing failed in phase 1: unreachable', { phase: 1 }).markTransient());
    expect(answer.statusCode).toBe(422);
    expect(answer.retryable).toBe(false);
    expect(answer.replayable).toBe(false);
    expect(apiErrorOf(validationError('The register is not fiscalized')).replayable).toBe(true);
  });
});

describe('the factories', () => {
  it('build the codes, messages and details the contract names', () => {
    const answers = [
      invalidRequest('limit: too big', { field: 'limit' }),
      forbidden('This key is bound to another organization'),
      notFound('merchant', 'mer_1'),
      notFound('route'),
      conflict('session_invalid_state', 'The session is closed', { session_id: 'ses_1' }),
      validationError('from must not be after to', { field: 'to' }),
      unprocessable('tax_amount_precision_invalid', 'Too many places', { field: 'tax_amount' }),
    ].map((error) => {
      const answer = apiErrorOf(error);
      return { status: answer.statusCode, ...answer.toBody() };
    });
    expect(answers).toEqual([
      { status: 400, code: 'invalid_request', message: 'limit: too big', retryable: false, details: { field: 'limit' } },
      { status: 403, code: 'forbidden', message: 'This key is bound to another organization', retryable: false },
      { status: 404, code: 'not_found', message: 'No merchant with id mer_1', retryable: false, details: { resource: 'merchant', id: 'mer_1' } },
      { status: 404, code: 'not_found', message: 'route not found', retryable: false, details: { resource: 'route' } },
      { status: 409, code: 'session_invalid_state', message: 'The session is closed', retryable: false, details: { session_id: 'ses_1' } },
      { status: 422, code: 'validation_error', message: 'from must not be after to', retryable: false, details: { field: 'to' } },
      { status: 422, code: 'tax_amount_precision_invalid', message: 'Too many places', retryable: false, details: { field: 'tax_amount' } },
    ]);
  });

  it('a stale resource_version is 412 precondition_failed naming both versions', () => {
    expect(() => assertCurrentVersion(undefined, 3)).not.toThrow();
    expect(() => assertCurrentVersion(3, 3)).not.toThrow();
    let thrown: unknown;
    try {
      assertCurrentVersion(2, 3);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(DomainError);
    const answer = apiErrorOf(thrown as DomainError);
    expect({ status: answer.statusCode, ...answer.toBody() }).toEqual({
      status: 412,
      code: 'precondition_failed',
      message: 'Resource version mismatch: If-Match was 2, the current resource_version is 3',
      retryable: true,
      details: { expected_resource_version: 2, current_resource_version: 3 },
    });
  });
});
