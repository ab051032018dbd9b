import type { InvoiceJurisdictionCode } from '../invoiceDocument.js';
import { germany } from './germany.js';
import type { InvoiceJurisdiction } from './invoiceJurisdiction.js';
import { italy } from './italy.js';

const INVOICE_JURISDICTIONS: Readonly<Record<InvoiceJurisdictionCode, InvoiceJurisdiction>> = { IT: italy, DE: germany };

export const jurisdictionOf = (code: string): InvoiceJurisdiction => {
  const jurisdiction = INVOICE_JURISDICTIONS[code as InvoiceJurisdictionCode];
  if (!jurisdiction) throw new RangeError(`no invoice jurisdiction ${code}`);
  return jurisdiction;
};
