import { xrechnungFormat } from '../xrechnung/index.js';
import type { InvoiceJurisdiction } from './invoiceJurisdiction.js';

/**
 * Germany: XRechnung 3 in UN/CEFACT CII. There is no clearance authority: the invoice goes to
 * the buyer directly, so it is transmitted when submitted. The seller is the organization's
 * DEU identity's USt-IdNr.
 */
export const germany: InvoiceJurisdiction = {
  code: 'DE',
  fiscalIdentityCountry: 'DEU',
  sellerVatIdOf: (identity) => (typeof identity.vat_id === 'string' ? identity.vat_id : null),
  timeZone: 'Europe/Berlin',
  language: 'de',
  format: xrechnungFormat,
  signing: null,
  channel: () => null,
};
