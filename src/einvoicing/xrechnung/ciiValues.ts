import { Decimal } from 'decimal.js';
import { formatAmount, fromMinorUnits } from '../../domain/money.js';

/** An amount in minor units as CII writes it: a decimal with two places ("1234.50"), exact. */
export function ciiAmount(minor: number, currency: string): string {
  return formatAmount(fromMinorUnits(minor, currency), 2);
}

/** A rate as a fraction ("0.19") as a percentage ("19", "5.5"). */
export function ciiPercent(rate: string): string {
  return new Decimal(rate).times(100).toFixed();
}

/** YYYY-MM-DD as date format 102 (YYYYMMDD). */
export function ciiDate(date: string): string {
  return date.replaceAll('-', '');
}

/** A udt or qdt DateTimeString element's content in format 102. */
export function dateTimeString(date: string): { '@_format': string; '#text': string } {
  return { '@_format': '102', '#text': ciiDate(date) };
}
