export interface LocalDateTime {
  year: string;
  month: string;
  day: string;
  hour: string;
  minute: string;
  second: string;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** The wall clock of `timeZone` at `at`, as Intl reads it. */
function readWallClock(at: Date, timeZone: string): LocalDateTime {
  const part = Object.fromEntries(formatterFor(timeZone).formatToParts(at).map(({ type, value }) => [type, value]));
  return { year: part.year!, month: part.month!, day: part.day!, hour: part.hour!, minute: part.minute!, second: part.second! };
}

const SECOND_MS = 1000;
const QUARTER_HOUR_MS = 15 * 60_000;

const FOUR_DIGIT_YEARS_FROM = Date.UTC(1001, 0, 2);
const FOUR_DIGIT_YEARS_UNTIL = Date.UTC(9998, 11, 30);

/** Instants whose local year, in any zone, Intl prints as four digits, as localDateTimeOf's fields are; NaN is not one. */
const isFourDigitYear = (time: number) => time >= FOUR_DIGIT_YEARS_FROM && time < FOUR_DIGIT_YEARS_UNTIL;

const wallClockMs = (at: LocalDateTime) => Date.UTC(+at.year, +at.month - 1, +at.day, +at.hour, +at.minute, +at.second);

/** The zone's offset from UTC at a whole second, in ms, as Intl reads it. */
const offsetAtSecond = (second: number, timeZone: string) => wallClockMs(readWallClock(new Date(second), timeZone)) - second;

/** Per zone, the last quarter hour (UTC) whose offset was found constant, and that offset. */
const quarterOffsets = new Map<string, { quarter: number; offsetMs: number }>();

/**
 * The zone's UTC offset at `at`, in ms. Intl's reading costs about 10 µs, and fiscal
 * signing, receipts and exports ask for the local time of the same few quarter hours
 * again and again, so a quarter hour whose first and last second show the same offset
 * is remembered: two offset changes are months apart in every zone, so none falls
 * between two readings that agree. A quarter hour with a change in it is read per call.
 */
function offsetMsAt(at: Date, timeZone: string): number {
  const second = Math.floor(at.getTime() / SECOND_MS) * SECOND_MS;
  if (!isFourDigitYear(second)) return offsetAtSecond(second, timeZone);
  const quarter = Math.floor(second / QUARTER_HOUR_MS);
  const known = quarterOffsets.get(timeZone);
  if (known?.quarter === quarter) return known.offsetMs;
  const start = quarter * QUARTER_HOUR_MS;
  const offsetMs = offsetAtSecond(start, timeZone);
  if (offsetAtSecond(start + QUARTER_HOUR_MS - SECOND_MS, timeZone) !== offsetMs) return offsetAtSecond(second, timeZone);
  quarterOffsets.set(timeZone, { quarter, offsetMs });
  return offsetMs;
}

/** The zone's offset from UTC at `at`, in whole minutes (an RFC 3339 timestamp's `+01:00`). */
export const utcOffsetMinutes = (at: Date, timeZone: string): number => Math.round(offsetMsAt(at, timeZone) / 60_000);

const twoDigits = (value: number) => (value < 10 ? `0${value}` : String(value));

/** The wall-clock date and time of an instant in an IANA time zone, as zero-padded digits. */
export function localDateTimeOf(at: Date, timeZone: string): LocalDateTime {
  if (!isFourDigitYear(at.getTime())) return readWallClock(at, timeZone);
  const local = new Date(at.getTime() + offsetMsAt(at, timeZone));
  return {
    year: String(local.getUTCFullYear()),
    month: twoDigits(local.getUTCMonth() + 1),
    day: twoDigits(local.getUTCDate()),
    hour: twoDigits(local.getUTCHours()),
    minute: twoDigits(local.getUTCMinutes()),
    second: twoDigits(local.getUTCSeconds()),
  };
}

/** The calendar date (YYYY-MM-DD) of an instant in an IANA time zone. */
export function localDateIn(at: Date, timeZone: string): string {
  const { year, month, day } = localDateTimeOf(at, timeZone);
  return `${year}-${month}-${day}`;
}

/**
 * The instant at which the wall clock of `timeZone` shows `local`. The zone's offset is
 * read at a first guess and again where that lands, which settles across a DST change;
 * a wall time the change skips lands an hour later, a repeated one on either instant.
 */
export function instantAtLocal(local: LocalDateTime, timeZone: string): Date {
  const wanted = wallClockMs(local);
  let instant = wanted;
  for (let reading = 0; reading < 2; reading += 1) instant += wanted - wallClockMs(localDateTimeOf(new Date(instant), timeZone));
  return new Date(instant);
}

/** The instant the local day of `at` began in `timeZone`. */
export const startOfLocalDay = (at: Date, timeZone: string): Date =>
  instantAtLocal({ ...localDateTimeOf(at, timeZone), hour: '00', minute: '00', second: '00' }, timeZone);

/** Whether the wall clock of `timeZone` at `at` shows `time` ("HH:MM", zero-padded) or later. */
export function isAtOrAfterLocalTime(at: Date, time: string, timeZone: string): boolean {
  const { hour, minute } = localDateTimeOf(at, timeZone);
  return `${hour}:${minute}` >= time;
}
