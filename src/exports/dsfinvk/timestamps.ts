import { utcOffsetMinutes } from '../../domain/localTime.js';

const pad = (value: number) => String(value).padStart(2, '0');

/**
 * Local wall-clock time with its UTC offset, RFC 3339 to the second
 * (`2026-09-03T22:00:00+02:00`): the form the reference (§2, TWEECORE) gives
 * for Z_ERSTELLUNG, BON_START, BON_ENDE and REF_DATUM.
 */
export function formatLocalTimestamp(instant: Date, timeZone: string): string {
  const offset = utcOffsetMinutes(instant, timeZone);
  const local = new Date(Math.floor(instant.getTime() / 1000) * 1000 + offset * 60_000);
  const sign = offset < 0 ? '-' : '+';
  return (
    `${String(local.getUTCFullYear()).padStart(4, '0')}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}` +
    `T${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}` +
    `${sign}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`
  );
}

/** The local calendar date (YYYY-MM-DD) of an RFC 3339 timestamp from formatLocalTimestamp. */
export const localDateOf = (timestamp: string): string => timestamp.slice(0, 10);
