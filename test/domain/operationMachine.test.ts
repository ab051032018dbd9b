import { describe, expect, it } from 'vitest';
import { checkOperationTransition, isVoidReason, VOID_REASONS } from '../../src/domain/operations/operationMachine.js';
import { SESSION_EVENT_TYPES } from '../../src/domain/sessions/sessionMachine.js';

describe('checkOperationTransition', () => {
  it.each(['sale', 'return', 'exchange'] as const)('completes or voids an open %s', (type) => {
    expect(checkOperationTransition('open', type, 'complete')).toEqual({ ok: true, next: 'completed' });
    expect(checkOperationTransition('open', type, 'void')).toEqual({ ok: true, next: 'voided' });
  });

  it.each([
    ['completed', 'complete'],
    ['completed', 'void'],
    ['voided', 'complete'],
    ['voided', 'void'],
  ] as const)('rejects %s -> %s', (status, action) => {
    expect(checkOperationTransition(status, 'sale', action)).toEqual({
      ok: false,
      code: 'operation_invalid_state',
      message: expect.stringContaining(status),
    });
  });

  it.each(SESSION_EVENT_TYPES)('always rejects a %s', (type) => {
    for (const status of ['open', 'completed', 'voided'] as const) {
      for (const action of ['complete', 'void'] as const) {
        expect(checkOperationTransition(status, type, action)).toMatchObject({ ok: false, code: 'operation_invalid_state' });
      }
    }
  });
});

describe('VOID_REASONS', () => {
  it('are the four reasons of contract 4.1', () => {
    expect(VOID_REASONS).toEqual(['void_before_completion', 'customer_abandoned_checkout', 'operator_cancelled', 'payment_failed']);
    expect(isVoidReason('payment_failed')).toBe(true);
    expect(isVoidReason('changed_mind')).toBe(false);
  });
});
