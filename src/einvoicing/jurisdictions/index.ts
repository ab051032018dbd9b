import type { InvoiceJurisdictionCode } from '../invoiceDocument.js';
import { germany } from './germany.js';
import type { InvoiceJurisdiction } from './invoiceJurisdiction.js';
import { italy } from './italy.js';

export const INVOICE_JURISDICTIONS: Readonly<Record<InvoiceJurisdictionCode, InvoiceJurisdiction>> = { IT: italy, DE: germany };

export const JURISDICTION_CODES = Object.keys(INVOICE_JURISDICTIONS) as InvoiceJurisdictionCode[];

export const jurisdictionOf = (code: string): InvoiceJurisdiction => {
  const jurisdiction = INVOICE_JURISDICTIONS[code as InvoiceJurisdictionCode];
  if (!jurisdiction) throw new RangeError(`no invoice jurisdiction ${code}`);
  return jurisdiction;
};
