// The time zone a location gets when it names none: addresses store alpha-3 (DEU), Style O sends alpha-2 (DE).
import { describe, expect, it } from 'vitest';
import { defaultTimeZone } from '../../src/domain/countryTimeZones.js';

describe('defaultTimeZone', () => {
  it('knows the regimes’ countries by alpha-3 and alpha-2 code, in any case', () => {
    expect(defaultTimeZone('DEU')).toBe('Europe/Berlin');
    expect(defaultTimeZone('DE')).toBe('Europe/Berlin');
    expect(defaultTimeZone('aut')).toBe('Europe/Vienna');
    expect(defaultTimeZone('IT')).toBe('Europe/Rome');
  });

  it('is UTC for any other country', () => {
    expect(defaultTimeZone('USA')).toBe('UTC');
    expect(defaultTimeZone('FR')).toBe('UTC');
    expect(defaultTimeZone('XYZ')).toBe('UTC');
  });
});
