import type { RuleViolation } from '../../domain/violation.js';
import type { InvoiceContent } from '../invoiceDocument.js';
import { isValidIban } from './iban.js';
import { paymentMeansOf, XRECHNUNG_PAYMENT_METHODS } from './paymentMeans.js';
import { xrechnungViolation } from './ruleViolation.js';

/**
 * Payment instructions (BR-DE-1) by a means XRechnung can state, the payee's IBAN for a credit
 * transfer (BR-61, BR-DE-23-a) with valid check digits (BR-DE-19), and a due date or
 * installments for an amount due (BR-CO-25).
 */
export function paymentViolations(invoice: InvoiceContent): RuleViolation[] {
  const terms = invoice.paymentTerms;
  if (!terms) return [xrechnungViolation('payment_terms', 'BR-DE-1', 'Payment terms with payment instructions are required')];
  const violations: RuleViolation[] = [];
  const means = paymentMeansOf(terms.method);
  if (!means) {
    violations.push(
      xrechnungViolation('payment_terms.method', 'BR-DE-1', `The payment method must be one of ${XRECHNUNG_PAYMENT_METHODS.join(', ')}, or absent for a credit transfer`),
    );
  } else if (means.creditTransfer && !terms.iban?.trim()) {
    violations.push(xrechnungViolation('payment_terms.iban', 'BR-DE-23-a', "A credit transfer needs the seller's IBAN"));
  }
  if (terms.iban?.trim() && !isValidIban(terms.iban)) {
    violations.push(xrechnungViolation('payment_terms.iban', 'BR-DE-19', 'The IBAN is not valid'));
  }
  if (invoice.totals.gross > 0 && !terms.dueDate && terms.installments.length === 0) {
    violations.push(xrechnungViolation('payment_terms.due_date', 'BR-CO-25', 'An amount due needs a due date or installments'));
  }
  return violations;
}
