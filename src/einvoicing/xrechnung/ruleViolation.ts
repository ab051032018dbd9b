import type { RuleViolation } from '../../domain/violation.js';

/** A request field an XRechnung cannot be built from, and the business rule (BR-*) it would break. */
export function xrechnungViolation(field: string, rule: string, message: string): RuleViolation {
  return { code: 'validation_error', field, message: `${message} (XRechnung, ${rule})`, details: { rule } };
}
