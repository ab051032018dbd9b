import type { RuleViolation } from '../../domain/violation.js';

/** A FatturaPA rule broken by the request field `field`. */
export const violation = (field: string, message: string): RuleViolation => ({ code: 'validation_error', field, message });
