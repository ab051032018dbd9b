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
