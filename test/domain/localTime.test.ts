import { describe, expect, it } from 'vitest';
import { instantAtLocal, isAtOrAfterLocalTime, localDateTimeOf, startOfLocalDay, type LocalDateTime } from '../../src/domain/localTime.js';

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
