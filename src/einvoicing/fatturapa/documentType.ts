import type { InvoiceDocumentType } from '../invoiceDocument.js';

export type TipoDocumento = 'TD01' | 'TD04' | 'TD05' | 'TD24' | 'TD27';

/**
 * TipoDocumento per document type (reference §9.2):
 * - `simplified_invoice` -> TD01. The simplified invoice has its own schema (FSM10, TD07-TD09);
 *   this format builds the ordinary one, which the law always allows in place of the simplified.
 * - `self_invoice` -> TD27 (self-consumption or free supply without recourse). The seller is
 *   the organization and holds the Italian VAT id, and TD27 is the self-invoice it issues as
 *   CedentePrestatore; the reverse-charge integrations TD16-TD19 and TD20-TD21 name the
 *   foreign or defaulting supplier as CedentePrestatore, which this input cannot express.
 */
const TIPO_DOCUMENTO: Readonly<Record<InvoiceDocumentType, TipoDocumento>> = {
  invoice: 'TD01',
  simplified_invoice: 'TD01',
  credit_note: 'TD04',
  debit_note: 'TD05',
  deferred_invoice: 'TD24',
  self_invoice: 'TD27',
};

export function tipoDocumentoOf(documentType: InvoiceDocumentType): TipoDocumento {
  return TIPO_DOCUMENTO[documentType];
}
