/**
 * Invoice numbers `<series>/<year>/<n>`: n counts from 1, without gaps, per organization,
 * series and year of the issue date. A series is 1-8 of [A-Z0-9-], so a number stays within
 * FatturaPA's 20 characters (Numero) up to n = 999999.
 */
export const SERIES_PATTERN = /^[A-Z0-9-]{1,8}$/;

export const DEFAULT_SERIES = 'INV';

export const formatInvoiceNumber = (series: string, year: number, n: number): string => `${series}/${year}/${n}`;

/** The year of a YYYY-MM-DD date. */
export const yearOfDate = (date: string): number => Number(date.slice(0, 4));
