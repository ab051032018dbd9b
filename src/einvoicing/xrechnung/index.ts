import type { EInvoiceFormat } from '../einvoiceFormat.js';
import { buildCrossIndustryInvoice } from './crossIndustryInvoice.js';
import { xrechnungFileName } from './fileName.js';
import { XRECHNUNG_CUSTOMIZATION_ID, XRECHNUNG_FORMAT } from './profile.js';
import { xrechnungViolations } from './violations.js';

/**
 * Germany's e-invoice: XRechnung 3.0 in UN/CEFACT CII. `build` refuses an invoice that
 * `violations` rejects: such a document would break the business rules, and the service
 * validates before it numbers, so reaching it is a defect.
 */
export const xrechnungFormat: EInvoiceFormat = {
  violations: xrechnungViolations,
  build: (invoice) => {
    const violations = xrechnungViolations(invoice);
    if (violations.length) throw new Error(`invoice cannot be an XRechnung: ${violations.map((violation) => `${violation.field}: ${violation.message}`).join('; ')}`);
    return {
      xml: buildCrossIndustryInvoice(invoice),
      fileName: xrechnungFileName(invoice.invoiceNumber),
      jurisdictionData: { format: XRECHNUNG_FORMAT, customization_id: XRECHNUNG_CUSTOMIZATION_ID },
    };
  },
};
