import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { instantAtLocal, isAtOrAfterLocalTime, localDateIn, localDateTimeOf, startOfLocalDay, utcOffsetMinutes, type LocalDateTime } from '../../src/domain/localTime.js';

const local = (text: string): LocalDateTime => {
  const [year, month, day, hour, minute, second] = text.split(/[- :]/);
  return { year, month, day, hour, minute, second };
};

describe('instantAtLocal', () => {
  it.each([
    ['2026-01-15 12:00:00', 'Europe/Rome', '2026-01-15T11:00:00.000Z'],
    ['2026-07-15 12:00:00', 'Europe/Rome', '2026-07-15T10:00:00.000Z'],
    ['2026-03-29 03:00:00', 'Europe/Rome', '2026-03-29T01:00:00.000Z'],
    ['2026-12-31 23:59:59', 'UTC', '2026-12-31T23:59:59.000Z'],
  ])('%s in %s is %s', (wallClock, timeZone, instant) => {
    expect(instantAtLocal(local(wallClock), timeZone).toISOString()).toBe(instant);
  });

  it('finds an instant showing each wall time of a year of Italian hours', () => {
    for (let at = Date.UTC(2026, 0, 1); at < Date.UTC(2027, 0, 1); at += 3_600_000 + 17_000) {
      const wallClock = localDateTimeOf(new Date(at), 'Europe/Rome');
      expect(localDateTimeOf(instantAtLocal(wallClock, 'Europe/Rome'), 'Europe/Rome')).toEqual(wallClock);
    }
  });

  it('moves a wall time the spring change skips an hour later', () => {
    expect(localDateTimeOf(instantAtLocal(local('2026-03-29 02:30:00'), 'Europe/Rome'), 'Europe/Rome')).toMatchObject({ hour: '03', minute: '30' });
  });
});

describe('localDateIn', () => {
  it('is the calendar date the wall clock of the zone shows', () => {
    expect(localDateIn(new Date('2026-01-15T23:30:00Z'), 'Europe/Berlin')).toBe('2026-01-16');
    expect(localDateIn(new Date('2026-01-15T23:30:00Z'), 'UTC')).toBe('2026-01-15');
    expect(localDateIn(new Date('2026-07-01T03:59:59Z'), 'America/New_York')).toBe('2026-06-30');
  });
});

describe('the RT closure time in Europe/Rome', () => {
  it('is reached at the local time in winter (UTC+1) and summer (UTC+2)', () => {
    expect(isAtOrAfterLocalTime(new Date('2026-01-15T22:49:00Z'), '23:50', 'Europe/Rome')).toBe(false);
    expect(isAtOrAfterLocalTime(new Date('2026-01-15T22:50:00Z'), '23:50', 'Europe/Rome')).toBe(true);
    expect(isAtOrAfterLocalTime(new Date('2026-07-15T21:50:00Z'), '23:50', 'Europe/Rome')).toBe(true);
    expect(isAtOrAfterLocalTime(new Date('2026-07-15T22:10:00Z'), '23:50', 'Europe/Rome')).toBe(false);
  });

  it('counts one closure per local day from its start', () => {
    expect(startOfLocalDay(new Date('2026-01-15T22:50:30Z'), 'Europe/Rome').toISOString()).toBe('2026-01-14T23:00:00.000Z');
    expect(startOfLocalDay(new Date('2026-07-15T21:50:00Z'), 'Europe/Rome').toISOString()).toBe('2026-07-14T22:00:00.000Z');
  });
});

/** Intl's own reading, through formatters of the test's, so nothing the module remembers takes part. */
const testFormatters = new Map<string, Intl.DateTimeFormat>();
function intlWallClock(at: Date, timeZone: string): LocalDateTime {
  if (!testFormatters.has(timeZone)) {
    const options = { year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' } as const;
    testFormatters.set(timeZone, new Intl.DateTimeFormat('en-CA', { timeZone, ...options, hourCycle: 'h23' }));
  }
  const parts = testFormatters.get(timeZone)!.formatToParts(at);
  const part = (type: string) => parts.find((p) => p.type === type)!.value;
  return { year: part('year'), month: part('month'), day: part('day'), hour: part('hour'), minute: part('minute'), second: part('second') };
}

const intlOffsetMinutes = (at: Date, timeZone: string) => {
  const local = intlWallClock(at, timeZone);
  const wallClock = Date.UTC(+local.year, +local.month - 1, +local.day, +local.hour, +local.minute, +local.second);
  return Math.round((wallClock - Math.floor(at.getTime() / 1000) * 1000) / 60_000);
};

/** Zones with summer time, half and three-quarter hour offsets, a 30-minute summer shift, a skipped day and local mean time. */
const ZONES = [
  'UTC',
  'Europe/Berlin',
  'Europe/Vienna',
  'Europe/Rome',
  'America/New_York',
  'America/St_Johns',
  'Asia/Kathmandu',
  'Australia/Lord_Howe',
  'Pacific/Chatham',
  'Pacific/Apia',
];

describe('localDateTimeOf and utcOffsetMinutes', () => {
  it('read what Intl reads at any instant from 1850 to 2200, in any zone', () => {
    fc.assert(
      fc.property(fc.integer({ min: Date.UTC(1850, 0, 1), max: Date.UTC(2200, 0, 1) }), fc.constantFrom(...ZONES), (time, zone) => {
        const at = new Date(time);
        expect(localDateTimeOf(at, zone)).toEqual(intlWallClock(at, zone));
        expect(utcOffsetMinutes(at, zone)).toBe(intlOffsetMinutes(at, zone));
      }),
      { numRuns: 3000, seed: 20261129 },
    );
  });

  it('read what Intl reads every 7 seconds around every offset change of 2026, instants in time order as signing and exports ask', () => {
    for (const zone of ZONES) {
      for (let hour = Date.UTC(2026, 0, 1); hour < Date.UTC(2027, 0, 1); hour += 3_600_000) {
        if (intlOffsetMinutes(new Date(hour), zone) === intlOffsetMinutes(new Date(hour + 3_600_000), zone)) continue;
        for (let at = hour - 1_800_000; at < hour + 5_400_000; at += 7_001) {
          expect(localDateTimeOf(new Date(at), zone), `${zone} ${new Date(at).toISOString()}`).toEqual(intlWallClock(new Date(at), zone));
          expect(utcOffsetMinutes(new Date(at), zone)).toBe(intlOffsetMinutes(new Date(at), zone));
        }
      }
    }
  });

  it('read what Intl reads second by second around a change off the quarter hour (Berlin left local mean time at 23:06:32 UTC)', () => {
    const change = Date.UTC(1893, 2, 31, 23, 6, 32);
    for (let at = change - 1_200_000; at < change + 1_200_000; at += 1000) {
      expect(localDateTimeOf(new Date(at), 'Europe/Berlin'), new Date(at).toISOString()).toEqual(intlWallClock(new Date(at), 'Europe/Berlin'));
      expect(utcOffsetMinutes(new Date(at), 'Europe/Berlin')).toBe(intlOffsetMinutes(new Date(at), 'Europe/Berlin'));
    }
  });

  it('read what Intl reads at the edges of the time a Date holds, and refuse an invalid date as Intl does', () => {
    for (const time of [-8.64e15, -62_135_596_800_000, Date.UTC(1001, 0, 1), Date.UTC(9999, 11, 31, 23, 59, 59), 8.64e15]) {
      expect(localDateTimeOf(new Date(time), 'Europe/Berlin')).toEqual(intlWallClock(new Date(time), 'Europe/Berlin'));
      expect(utcOffsetMinutes(new Date(time), 'Europe/Berlin')).toBe(intlOffsetMinutes(new Date(time), 'Europe/Berlin'));
    }
    expect(() => localDateTimeOf(new Date(Number.NaN), 'Europe/Berlin')).toThrow(RangeError);
    expect(() => utcOffsetMinutes(new Date(Number.NaN), 'Europe/Berlin')).toThrow(RangeError);
  });
});
