import type { RuleViolation } from '../violation.js';
import { CORRECTABLE_STATES, type InvoiceState } from './invoiceStates.js';
import { lineNetOf, type InvoiceLineDiscountInput } from './invoiceTotals.js';
import { vatCategoryMismatch, type VatCategory } from './vatCategory.js';

/**
 * The rules every invoice obeys whatever its jurisdiction (each format adds its own): checked
 * at create, update and submit, before anything is numbered. Field paths name the request's
 * fields.
 */
export type InvoiceDocumentKind = 'invoice' | 'simplified_invoice' | 'credit_note' | 'debit_note' | 'deferred_invoice' | 'self_invoice';

export interface RuleLine {
  quantity: string;
  unitPriceNet: number;
  discount: InvoiceLineDiscountInput | null;
  rate: string;
  requestedCategory: VatCategory | null;
}

/** The invoice a credit or debit note refers to, as the service found it in the organization (null: no such invoice there). */
export interface ReferencedInvoice {
  state: InvoiceState;
  jurisdiction: string;
  currency: string;
  documentType: InvoiceDocumentKind;
  /** Whether the original's pending cancellation is the note being checked (the note a cancellation issues). */
  cancelledByThisNote?: boolean;
}

export interface InvoiceRuleInput {
  jurisdiction: string;
  documentType: InvoiceDocumentKind;
  currency: string;
  /** YYYY-MM-DD, or null while a draft leaves it to the submission. */
  issueDate: string | null;
  paymentTerms: { dueDate: string | null; installments: readonly { dueDate: string; amount: number }[] } | null;
  originalInvoiceId: string | null;
  original: ReferencedInvoice | null;
}

const violation = (field: string, message: string, details?: Record<string, unknown>): RuleViolation => ({
  code: 'validation_error',
  field,
  message,
  ...(details ? { details } : {}),
});

/**
 * The lines' violations: no discount may exceed its line (before this holds, the amounts
 * cannot be computed), and a category named in the request must fit the rate.
 */
export function invoiceLineViolations(lines: readonly RuleLine[]): RuleViolation[] {
  return lines.flatMap((line, index) => {
    const found: RuleViolation[] = [];
    const { base, discountAmount } = lineNetOf(line);
    if (discountAmount > base) {
      const field = `line_items[${index}].discount.${line.discount?.type === 'rate' ? 'rate' : 'amount'}`;
      found.push(violation(field, `the discount (${discountAmount}) exceeds the line's quantity × unit_price_net (${base})`));
    }
    const mismatch = line.requestedCategory ? vatCategoryMismatch(line.rate, line.requestedCategory) : null;
    if (mismatch) found.push(violation(`line_items[${index}].tax.category`, mismatch));
    return found;
  });
}

function referenceViolations(input: InvoiceRuleInput): RuleViolation[] {
  const field = 'references.original_invoice_id';
  const corrects = input.documentType === 'credit_note' || input.documentType === 'debit_note';
  if (!input.originalInvoiceId) {
    return input.documentType === 'credit_note' ? [violation(field, 'a credit_note must name the invoice it corrects')] : [];
  }
  if (!corrects) return [violation(field, `only a credit_note or debit_note refers to an original invoice, not a ${input.documentType}`)];
  const original = input.original;
  if (!original) return [violation(field, 'no invoice of this organization has this id')];
  if (original.documentType === 'credit_note') return [violation(field, 'a credit note is not corrected by another note; issue a new invoice')];
  if (!CORRECTABLE_STATES.includes(original.state) && !(original.state === 'cancellation_requested' && original.cancelledByThisNote)) {
    return [violation(field, `the original invoice is ${original.state}; only a submitted invoice that was not rejected or cancelled can be corrected`, { state: original.state })];
  }
  if (original.jurisdiction !== input.jurisdiction) {
    return [violation(field, `the original invoice is of jurisdiction ${original.jurisdiction}`, { jurisdiction: original.jurisdiction })];
  }
  if (original.currency !== input.currency) {
    return [violation(field, `the original invoice is in ${original.currency}`, { currency: original.currency })];
  }
  return [];
}

function paymentViolations(input: InvoiceRuleInput, totalGross: number): RuleViolation[] {
  const terms = input.paymentTerms;
  if (!terms) return [];
  const found: RuleViolation[] = [];
  if (terms.dueDate && input.issueDate && terms.dueDate < input.issueDate) {
    found.push(violation('payment_terms.due_date', `the due date is before the issue date ${input.issueDate}`));
  }
  if (terms.installments.length) {
    const sum = terms.installments.reduce((total, installment) => total + installment.amount, 0);
    if (sum !== totalGross) {
      found.push(violation('payment_terms.installments', `the installments add up to ${sum}, the invoice's total_gross is ${totalGross}`, { sum, total_gross: totalGross }));
    }
  }
  return found;
}

/**
 * The violations of the document's rules, once its lines are computable (invoiceLineViolations
 * found nothing). `totalGross` is the invoice's total (for the installments); `today` (YYYY-MM-DD in the jurisdiction's time zone) is given at submission,
 * when an issue date after it is refused, as the SdI refuses an invoice dated after its
 * transmission.
 */
export function invoiceRuleViolations(input: InvoiceRuleInput, totalGross: number, today?: string): RuleViolation[] {
  const found = [...referenceViolations(input), ...paymentViolations(input, totalGross)];
  if (today && input.issueDate && input.issueDate > today) {
    found.push(violation('issue_date', `an invoice cannot be submitted before its issue date (${input.issueDate}; today is ${today})`));
  }
  return found;
}
