import { isGoodsMovementType, type OperationType } from './operationInput.js';

/** Style M operation status machine of contract 3.1. */

export type OperationStatus = 'open' | 'completed' | 'voided';
export type OperationAction = 'complete' | 'void';

/** The reasons contract 4.1 allows on void. */
export const VOID_REASONS = [
  'void_before_completion',
  'customer_abandoned_checkout',
  'operator_cancelled',
  'payment_failed',
] as const;
export type VoidReason = (typeof VOID_REASONS)[number];

export function isVoidReason(reason: string): reason is VoidReason {
  return (VOID_REASONS as readonly string[]).includes(reason);
}

export type OperationTransitionCheck =
  | { ok: true; next: 'completed' | 'voided' }
  | { ok: false; code: 'operation_invalid_state'; message: string };

/**
 * Only an open goods movement can be completed or voided. Session events are created
 * `completed`, so they are always rejected, whatever status is passed.
 */
export function checkOperationTransition(
  status: OperationStatus,
  type: OperationType,
  action: OperationAction,
): OperationTransitionCheck {
  if (!isGoodsMovementType(type)) {
    return { ok: false, code: 'operation_invalid_state', message: `A ${type} operation cannot be ${pastTense(action)}.` };
  }
  if (status !== 'open') {
    return {
      ok: false,
      code: 'operation_invalid_state',
      message: `The operation is ${status}; only an open operation can be ${pastTense(action)}.`,
    };
  }
  return { ok: true, next: action === 'complete' ? 'completed' : 'voided' };
}

function pastTense(action: OperationAction): string {
  return action === 'complete' ? 'completed' : 'voided';
}
