import type { EInvoiceFormat } from '../einvoiceFormat.js';
import { buildFatturaPa } from './buildFatturaPa.js';
import { fatturaPaViolations } from './violations.js';

/** FatturaPA 1.2.3 (IT): the document the SdI receives, FPR12 or FPA12 by the recipient code. */
export const fatturaPaFormat: EInvoiceFormat = {
  violations: fatturaPaViolations,
  build: buildFatturaPa,
};
