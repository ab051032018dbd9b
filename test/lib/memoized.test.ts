import { describe, expect, it } from 'vitest';
import { memoized } from '../../src/lib/memoized.js';

describe('memoized', () => {
  it('makes each key once and hands out what it made', () => {
    const made: string[] = [];
    const formatOf = memoized((language) => {
      made.push(language);
      return new Intl.NumberFormat(language);
    });
    const german = formatOf('de-DE');
    expect(formatOf('de-DE')).toBe(german);
    expect(formatOf('it-IT')).not.toBe(german);
    expect(formatOf('it-IT').format(1234.5)).toBe(new Intl.NumberFormat('it-IT').format(1234.5));
    expect(made).toEqual(['de-DE', 'it-IT']);
  });

  it('keeps nothing for a key whose making throws, so the next call throws too', () => {
    const zoneFormat = memoized((timeZone) => new Intl.DateTimeFormat('de-DE', { timeZone }));
    expect(() => zoneFormat('Mars/Olympus')).toThrow(RangeError);
    expect(() => zoneFormat('Mars/Olympus')).toThrow(RangeError);
  });
});
