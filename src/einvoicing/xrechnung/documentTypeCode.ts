import type { InvoiceDocumentType } from '../invoiceDocument.js';

/**
 * BT-3, UNTDID 1001. A deferred invoice (fattura differita) and a simplified invoice are
 * commercial invoices in EN 16931: the model has no separate codes for them, and XRechnung
 * admits neither. A debit note keeps its own code 383; XRechnung's BR-DE-17 lists it among
 * the codes that should not be used, which is a warning, not a rejection.
 */
const TYPE_CODES: Record<InvoiceDocumentType, string> = {
  invoice: '380',
  simplified_invoice: '380',
  deferred_invoice: '380',
  credit_note: '381',
  debit_note: '383',
  self_invoice: '389',
};

export function documentTypeCode(type: InvoiceDocumentType): string {
  return TYPE_CODES[type];
}
