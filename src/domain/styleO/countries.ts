/**
 * ISO 3166-1 alpha-2 <-> alpha-3 for the countries the service supports in
 * Style O addresses: the fiscal regimes' countries (DE, AT, IT), the rest of
 * the EU and EEA, and common neighbours. Style M stores and shows alpha-3;
 * Style O shows alpha-2; one location record serves both.
 */
const PAIRS: readonly (readonly [alpha2: string, alpha3: string])[] = [
  ['DE', 'DEU'],
  ['AT', 'AUT'],
  ['IT', 'ITA'],
  ['BE', 'BEL'],
  ['BG', 'BGR'],
  ['CY', 'CYP'],
  ['CZ', 'CZE'],
  ['DK', 'DNK'],
  ['EE', 'EST'],
  ['ES', 'ESP'],
  ['FI', 'FIN'],
  ['FR', 'FRA'],
  ['GR', 'GRC'],
  ['HR', 'HRV'],
  ['HU', 'HUN'],
  ['IE', 'IRL'],
  ['LT', 'LTU'],
  ['LU', 'LUX'],
  ['LV', 'LVA'],
  ['MT', 'MLT'],
  ['NL', 'NLD'],
  ['PL', 'POL'],
  ['PT', 'PRT'],
  ['RO', 'ROU'],
  ['SE', 'SWE'],
  ['SI', 'SVN'],
  ['SK', 'SVK'],
  ['IS', 'ISL'],
  ['LI', 'LIE'],
  ['NO', 'NOR'],
  ['CH', 'CHE'],
  ['GB', 'GBR'],
  ['MC', 'MCO'],
  ['SM', 'SMR'],
  ['VA', 'VAT'],
  ['AD', 'AND'],
  ['US', 'USA'],
  ['CA', 'CAN'],
];

const TO_ALPHA3: ReadonlyMap<string, string> = new Map(PAIRS);
const TO_ALPHA2: ReadonlyMap<string, string> = new Map(PAIRS.map(([alpha2, alpha3]) => [alpha3, alpha2]));

export const SUPPORTED_ALPHA2: readonly string[] = PAIRS.map(([alpha2]) => alpha2);

/** Uppercase alpha-3 of a supported alpha-2 code, or undefined. */
export function alpha3Of(alpha2: string): string | undefined {
  return TO_ALPHA3.get(alpha2);
}

/**
 * Alpha-2 of an alpha-3 code. A Style M location may carry any well-formed
 * alpha-3 code; one outside the table is returned unchanged rather than guessed.
 */
export function alpha2Of(alpha3: string): string {
  return TO_ALPHA2.get(alpha3) ?? alpha3;
}
