import { memoized } from '../lib/memoized.js';
import { alpha2Of } from '../domain/styleO/countries.js';

const regionNames = memoized((locale) => new Intl.DisplayNames(locale, { type: 'region', fallback: 'code' }));

/**
 * A country's name in `locale` ("Deutschland" in de-DE) from its ISO 3166-1 code, alpha-3
 * as addresses store it or alpha-2. A code Intl has no region for is returned as given.
 */
export function countryName(countryCode: string, locale: string): string {
  const code = countryCode.toUpperCase();
  const alpha2 = code.length === 3 ? alpha2Of(code) : code;
  if (!/^[A-Z]{2}$/.test(alpha2)) return countryCode;
  return regionNames(locale).of(alpha2) ?? countryCode;
}
