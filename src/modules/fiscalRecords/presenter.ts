import type { FiscalRecord } from '../../fiscal/fiscalDevice.js';
import { publishedRecord } from '../../fiscal/regimes.js';
import type { FiscalInformationView } from './schemas.js';

/** A stored fiscal record as Style M publishes it: `fiscal_information`, the receipt's `fiscal`. */
export function presentFiscalInformation(record: FiscalRecord | null): FiscalInformationView | null {
  return record && publishedRecord(record);
}
