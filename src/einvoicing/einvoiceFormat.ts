import type { RuleViolation } from '../domain/violation.js';
import type { InvoiceContent, InvoiceDocument } from './invoiceDocument.js';

/** The electronic document as it is stored and served, byte for byte. */
export interface BuiltInvoiceDocument {
  /** UTF-8 XML. */
  xml: string;
  /** The file name the authority or the buyer receives, e.g. `IT01234567890_0000A.xml`. */
  fileName: string;
  /** FatturaPA: FPR12 or FPA12; XRechnung: the CustomizationID. Goes into `fiscal.jurisdiction_data`. */
  jurisdictionData: Record<string, unknown>;
}

/**
 * One e-invoice format per jurisdiction (FatturaPA for IT, XRechnung for DE). Validation runs
 * at create, update and submit, before anything is numbered; `field` paths name the request
 * fields (`buyer.tax_id`, `line_items[0].nature_code`, `routing.codice_destinatario`).
 */
export interface EInvoiceFormat {
  violations(invoice: InvoiceContent): RuleViolation[];
  build(invoice: InvoiceDocument): BuiltInvoiceDocument;
}
