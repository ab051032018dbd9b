/** Error codes a domain rule can produce; each maps to a 422 of contract section 7. */
export type RuleViolationCode =
  | 'validation_error'
  | 'tax_amount_precision_invalid'
  | 'gift_card_id_required'
  | 'gift_card_tax_rate_must_be_zero';

/**
 * One broken rule. Rules return a list of these instead of throwing so that the HTTP layer
 * can decide how many to report and always name the offending field.
 */
export interface RuleViolation {
  code: RuleViolationCode;
  message: string;
  /** JSON path into the request body, e.g. `line_items[0].taxes[1].tax_amount`. */
  field: string;
  details?: Record<string, unknown>;
}
