import type { RuleViolation } from '../../domain/violation.js';
import type { InvoiceContent } from '../invoiceDocument.js';
import { documentViolations } from './documentRules.js';
import { lineViolations } from './lineRules.js';
import { buyerViolations, sellerViolations } from './partyRules.js';
import { selfInvoiceViolations } from './selfInvoiceRules.js';

/**
 * Everything in an invoice that would make its FatturaPA document invalid against the XSD or
 * refused by the SdI's checks that do not need the SdI's registers, each naming the request
 * field. An invoice without violations always builds a document the XSD accepts.
 */
export function fatturaPaViolations(invoice: InvoiceContent): RuleViolation[] {
  return [
    ...sellerViolations(invoice.seller),
    ...buyerViolations(invoice.buyer),
    ...selfInvoiceViolations(invoice),
    ...invoice.lines.flatMap((line, i) => lineViolations(line, i, invoice.currency)),
    ...documentViolations(invoice),
  ];
}
