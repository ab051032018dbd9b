/**
 * BT-130 must be a UN/ECE Recommendation 20 (or 21) code. Requests often carry free text, so
 * the usual abbreviations in English and German map to their code; a value that already is
 * one of these codes passes unchanged (in any letter case); anything else, and a missing unit,
 * becomes C62 ("one"), the code for a count of units.
 */
const CODE_OF_UNIT: ReadonlyMap<string, string> = new Map(
  Object.entries({
    H87: ['pcs', 'pc', 'piece', 'pieces', 'stk', 'stück', 'stueck', 'st'],
    C62: ['unit', 'units', 'each', 'ea', 'einheit'],
    SET: ['set', 'sets'],
    PR: ['pair', 'pairs', 'paar'],
    LS: ['lump sum', 'flat', 'flat rate', 'pauschal', 'pauschale', 'psch'],
    SEC: ['s', 'sec', 'second', 'seconds', 'sek', 'sekunde', 'sekunden'],
    MIN: ['min', 'minute', 'minutes', 'minuten'],
    HUR: ['h', 'hr', 'hrs', 'hour', 'hours', 'std', 'stunde', 'stunden'],
    DAY: ['d', 'day', 'days', 'tag', 'tage'],
    WEE: ['wk', 'week', 'weeks', 'woche', 'wochen'],
    MON: ['mo', 'month', 'months', 'monat', 'monate'],
    ANN: ['yr', 'year', 'years', 'jahr', 'jahre'],
    MGM: ['mg'],
    GRM: ['g', 'gram', 'grams', 'gramm'],
    KGM: ['kg', 'kilo', 'kilogram', 'kilograms', 'kilogramm'],
    TNE: ['t', 'tonne', 'tonnes', 'tonnen'],
    MMT: ['mm'],
    CMT: ['cm'],
    MTR: ['m', 'meter', 'metre', 'meters', 'metres'],
    KMT: ['km'],
    MTK: ['m2', 'm²', 'sqm', 'qm'],
    MTQ: ['m3', 'm³', 'cbm'],
    MLT: ['ml'],
    LTR: ['l', 'liter', 'litre', 'liters', 'litres'],
    KWH: ['kwh'],
  }).flatMap(([code, names]) => [[code.toLowerCase(), code] as const, ...names.map((name) => [name, code] as const)]),
);

export const DEFAULT_UNIT_CODE = 'C62';

export function unitCode(unit: string | null): string {
  if (unit === null) return DEFAULT_UNIT_CODE;
  const key = unit.trim().replace(/\.$/, '').toLowerCase();
  return CODE_OF_UNIT.get(key) ?? DEFAULT_UNIT_CODE;
}
