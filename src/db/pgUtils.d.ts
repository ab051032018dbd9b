// pg turns a parameter into its text form here (dates, arrays, JSON); its package ships no types for it.
declare module 'pg/lib/utils.js' {
  export function prepareValue(value: unknown): unknown;
}
