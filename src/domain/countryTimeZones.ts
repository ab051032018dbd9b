import { alpha3Of } from './styleO/countries.js';

/** The fiscal regimes' countries lie in one time zone each. */
const TIME_ZONE_BY_ALPHA3: ReadonlyMap<string, string> = new Map([
  ['DEU', 'Europe/Berlin'],
  ['AUT', 'Europe/Vienna'],
  ['ITA', 'Europe/Rome'],
]);

/**
 * The IANA time zone of a location that names none, from its country: ISO 3166-1 alpha-3
 * as addresses store it (DEU), or alpha-2 as Style O sends it (DE); UTC for a country
 * without one.
 */
export function defaultTimeZone(countryCode: string): string {
  const code = countryCode.toUpperCase();
  return TIME_ZONE_BY_ALPHA3.get(alpha3Of(code) ?? code) ?? 'UTC';
}
