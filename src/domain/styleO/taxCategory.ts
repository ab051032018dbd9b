import { normalizeRate } from './totals.js';

/** Standard VAT rates of the supported regimes' countries (alpha-3). */
const STANDARD_RATES: Readonly<Record<string, string>> = { DEU: '0.19', AUT: '0.2', ITA: '0.22' };

export type TaxCategory = 'standard' | 'reduced' | 'zero' | 'outside_scope';

/**
 * The Style O tax category of a line: a voucher (multi-purpose gift card) is
 * outside the scope of VAT when sold; rate 0 is zero-rated; the country's
 * standard rate is standard; any other positive rate is reduced (or, where
 * the country's standard rate is unknown, standard).
 */
export function taxCategory(rate: string, countryCode: string, options: { giftCard?: boolean } = {}): TaxCategory {
  if (options.giftCard) return 'outside_scope';
  const normalized = normalizeRate(rate);
  if (normalized === '0') return 'zero';
  const standard = STANDARD_RATES[countryCode];
  if (!standard || normalized === standard) return 'standard';
  return 'reduced';
}
