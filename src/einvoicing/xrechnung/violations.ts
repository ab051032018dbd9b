import type { RuleViolation } from '../../domain/violation.js';
import { currencyExponent } from '../../domain/money.js';
import type { InvoiceContent } from '../invoiceDocument.js';
import { lineViolations } from './lineRules.js';
import { partyViolations } from './partyRules.js';
import { paymentViolations } from './paymentRules.js';
import { xrechnungViolation } from './ruleViolation.js';

/**
 * Everything in an invoice request that would make its XRechnung break the EN 16931 or the
 * XRechnung business rules, each naming the request field to fix. The buyer reference BT-10
 * (the Leitweg-ID for public buyers) is XRechnung's first requirement (BR-DE-15); amounts
 * have at most two decimals (BR-DEC-*), so currencies with three-decimal minor units cannot be
 * invoiced in it.
 */
export function xrechnungViolations(invoice: InvoiceContent): RuleViolation[] {
  return [
    ...(invoice.routing.buyerReference?.trim() ? [] : [xrechnungViolation('routing.buyer_reference', 'BR-DE-15', 'A buyer reference (Leitweg-ID for public buyers) is required')]),
    ...(currencyExponent(invoice.currency) > 2 ? [xrechnungViolation('currency', 'BR-DEC-09', 'Amounts in this currency need more than two decimals')] : []),
    ...partyViolations(invoice),
    ...lineViolations(invoice),
    ...paymentViolations(invoice),
  ];
}
