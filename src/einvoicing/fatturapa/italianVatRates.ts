import { toAmount } from '../../domain/money.js';

/**
 * The Italian VAT rates an invoice may charge (reference §5): 22 % standard, 10 % and 5 %
 * reduced, 4 % super-reduced, and 0 with a natura code. A FatturaPA document is issued under
 * Italian VAT by an Italian VAT-registered seller, so another country's rate (19 %, 20 %) is a
 * mistake the SdI would not catch. The agricultural compensation rates belong to regime RF04,
 * which this format does not write.
 */
const RATES: readonly string[] = ['0', '0.04', '0.05', '0.1', '0.22'];

export const ITALIAN_VAT_RATES_TEXT = '0.22, 0.10, 0.05, 0.04 or 0';

export function isItalianVatRate(rate: string): boolean {
  const value = toAmount(rate);
  return RATES.some((allowed) => value.eq(allowed));
}
