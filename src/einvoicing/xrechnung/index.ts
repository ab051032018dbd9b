import type { EInvoiceFormat } from '../einvoiceFormat.js';
import { buildCrossIndustryInvoice } from './crossIndustryInvoice.js';
import { xrechnungFileName } from './fileName.js';
import { XRECHNUNG_CUSTOMIZATION_ID, XRECHNUNG_FORMAT } from './profile.js';
import { xrechnungViolations } from './violations.js';

/** Germany's e-invoice: XRechnung 3.0 in UN/CEFACT CII. */
export const xrechnungFormat: EInvoiceFormat = {
  violations: xrechnungViolations,
  build: (invoice) => ({
    xml: buildCrossIndustryInvoice(invoice),
    fileName: xrechnungFileName(invoice.invoiceNumber),
    jurisdictionData: { format: XRECHNUNG_FORMAT, customization_id: XRECHNUNG_CUSTOMIZATION_ID },
  }),
};
