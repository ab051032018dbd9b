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

/** The wall-clock date and time of an instant in an IANA time zone, as zero-padded digits. */
export function localDateTimeOf(at: Date, timeZone: string): LocalDateTime {
  const part = Object.fromEntries(formatterFor(timeZone).formatToParts(at).map(({ type, value }) => [type, value]));
  return { year: part.year!, month: part.month!, day: part.day!, hour: part.hour!, minute: part.minute!, second: part.second! };
}

/**
 * The instant at which the wall clock of `timeZone` shows `local`. The zone's offset is
 * read at a first guess and again where that lands, which settles across a DST change;
 * a wall time the change skips lands an hour later, a repeated one on either instant.
 */
export function instantAtLocal(local: LocalDateTime, timeZone: string): Date {
  const wallClock = (at: LocalDateTime) => Date.UTC(+at.year, +at.month - 1, +at.day, +at.hour, +at.minute, +at.second);
  const wanted = wallClock(local);
  let instant = wanted;
  for (let reading = 0; reading < 2; reading += 1) instant += wanted - wallClock(localDateTimeOf(new Date(instant), timeZone));
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
