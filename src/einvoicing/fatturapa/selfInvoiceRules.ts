import type { RuleViolation } from '../../domain/violation.js';
import type { InvoiceContent } from '../invoiceDocument.js';
import { normalizedId } from './taxIds.js';
import { violation } from './violation.js';

/**
 * Who may be both seller and buyer. The SdI refuses an ordinary or deferred invoice (TD01,
 * TD24) the seller addresses to itself (00471), and a self-invoice for self-consumption or
 * free supply (TD27) addressed to anyone else (00472). Parties are the same when their VAT ids
 * are.
 */
export function selfInvoiceViolations(invoice: InvoiceContent): RuleViolation[] {
  const sellerVatId = invoice.seller.vatId === null ? null : normalizedId(invoice.seller.vatId);
  const buyerVatId = invoice.buyer.vatId === null ? null : normalizedId(invoice.buyer.vatId);
  const sameParty = sellerVatId !== null && sellerVatId === buyerVatId;
  if (invoice.documentType === 'self_invoice' && !sameParty) {
    return [violation('buyer.tax_id', 'A self_invoice (TD27, self-consumption or free supply) is addressed to the seller itself: the buyer’s VAT id must be the seller’s.')];
  }
  if (['invoice', 'simplified_invoice', 'deferred_invoice'].includes(invoice.documentType) && sameParty) {
    return [violation('buyer.tax_id', 'The buyer’s VAT id is the seller’s: an invoice to oneself is a self_invoice.')];
  }
  return [];
}
