import type { Decimal } from 'decimal.js';
import type { RuleViolation } from '../violation.js';
import type { GoodsMovementType } from './operationInput.js';

/**
 * Contract 4.2 rule 4: sale amounts are >= 0, return amounts <= 0, exchange amounts free.
 * Zero (negative zero included) passes for both.
 */
export function checkSign(type: GoodsMovementType, amount: Decimal, field: string): RuleViolation | undefined {
  if (type === 'sale' && amount.lt(0)) {
    return { code: 'validation_error', field, message: `${field} must not be negative for a sale.` };
  }
  if (type === 'return' && amount.gt(0)) {
    return { code: 'validation_error', field, message: `${field} must not be positive for a return.` };
  }
  return undefined;
}
