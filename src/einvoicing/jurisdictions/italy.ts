import { fatturaPaFormat } from '../fatturapa/index.js';
import { fatturaPaSigning } from '../fatturapa/signing.js';
import { sandboxSdi } from '../sdi/sandboxSdi.js';
import { unconfiguredSdi } from '../sdi/unconfiguredSdi.js';
import type { InvoiceJurisdiction } from './invoiceJurisdiction.js';

/**
 * Italy: FatturaPA 1.2.3 through the SdI, signed CAdES-BES with the organization's certificate
 * when it has one; the seller is the organization's ITA identity's partita IVA.
 */
export const italy: InvoiceJurisdiction = {
  code: 'IT',
  fiscalIdentityCountry: 'ITA',
  sellerVatIdOf: (identity) => (typeof identity.vat_number === 'string' ? `IT${identity.vat_number}` : null),
  timeZone: 'Europe/Rome',
  language: 'it',
  format: fatturaPaFormat,
  signing: fatturaPaSigning,
  channel: (settings) => (settings.environment === 'sandbox' ? sandboxSdi(settings.sdiSimulatorDelayMs) : unconfiguredSdi),
};
