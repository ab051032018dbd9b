import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  currencyExponent,
  formatAmount,
  fromMinorUnits,
  parseAmount,
  sumAmounts,
  toMinorUnits,
} from '../../src/domain/money.js';
import { decimalString } from './fixtures.js';

describe('parseAmount', () => {
  it('parses decimal strings exactly', () => {
    expect(parseAmount('10.00').eq('10')).toBe(true);
    expect(parseAmount('-0.12345678').toFixed()).toBe('-0.12345678');
  });

  it.each(['1e3', 'Infinity', 'NaN', '0x1f', '', ' 1', '.5', '1.', '+1'])('rejects %j', (s) => {
    expect(() => parseAmount(s)).toThrow(RangeError);
  });
});

describe('sumAmounts', () => {
  it('adds without float error', () => {
    expect(sumAmounts(['0.1', '0.2']).toFixed()).toBe('0.3');
  });

  it('stays exact beyond the 20 significant digits decimal.js keeps by default', () => {
    expect(sumAmounts(['12345678901234567890.12345678', '0.00000001']).toFixed()).toBe(
      '12345678901234567890.12345679',
    );
  });

  it('is zero for no amounts', () => {
    expect(sumAmounts([]).isZero()).toBe(true);
  });
});

describe('formatAmount', () => {
  it.each([
    ['1.5', '1.50'],
    ['10', '10.00'],
    ['0.12345678', '0.12345678'],
    ['0.12345600', '0.123456'],
    ['-0', '0.00'],
    ['-0.00', '0.00'],
    ['-3.1', '-3.10'],
    ['0.000000001', '0.000000001'],
    ['1000000000000000000000000', '1000000000000000000000000.00'],
  ])('formats %s as %s', (input, output) => {
    expect(formatAmount(parseAmount(input))).toBe(output);
  });

  it('takes a different minimum of places and never rounds', () => {
    expect(formatAmount('10', 0)).toBe('10');
    expect(formatAmount('1.5', 3)).toBe('1.500');
    expect(formatAmount('1.23456', 2)).toBe('1.23456');
  });

  it.each([
    ['007.50', '7.50'],
    ['-000.000', '0.00'],
    ['-0.0010', '-0.001'],
    ['100', '100.00'],
  ])('formats the string %s as %s', (input, output) => {
    expect(formatAmount(input)).toBe(output);
  });

  it.each(['1e3', '', '.5', '1.', '+1', ' 1'])('refuses the string %j as parseAmount does', (input) => {
    expect(() => formatAmount(input)).toThrow(RangeError);
  });

  it('formats a string exactly as the Decimal of it (property)', () => {
    const digits = (min: number, max: number) => fc.array(fc.constantFrom(...'0123456789'), { minLength: min, maxLength: max }).map((d) => d.join(''));
    fc.assert(
      fc.property(
        fc.constantFrom('', '-'),
        digits(1, 24),
        fc.option(digits(1, 12)),
        fc.integer({ min: 0, max: 4 }),
        (sign, integer, fraction, minPlaces) => {
          const s = `${sign}${integer}${fraction === null ? '' : `.${fraction}`}`;
          expect(formatAmount(s, minPlaces)).toBe(formatAmount(parseAmount(s), minPlaces));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('keeps the numeric value (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10 }).chain((scale) => decimalString(-(10n ** 20n), 10n ** 20n, scale)),
        (s) => parseAmount(formatAmount(parseAmount(s))).eq(parseAmount(s)),
      ),
    );
  });
});

describe('currencyExponent', () => {
  it.each([
    ['EUR', 2],
    ['USD', 2],
    ['HUF', 2],
    ['JPY', 0],
    ['KRW', 0],
    ['ISK', 0],
    ['CLP', 0],
    ['VND', 0],
    ['BHD', 3],
    ['KWD', 3],
    ['OMR', 3],
    ['JOD', 3],
    ['TND', 3],
    ['LYD', 3],
    ['IQD', 3],
    ['CLF', 4],
    ['jpy', 0],
    ['XYZ', 2],
  ])('%s has exponent %i', (currency, exponent) => {
    expect(currencyExponent(currency)).toBe(exponent);
  });

  it.each(['EURO', 'EU', '', 'E1R'])('rejects %j', (currency) => {
    expect(() => currencyExponent(currency)).toThrow(RangeError);
  });
});

describe('toMinorUnits', () => {
  it.each([
    ['10.00', 'EUR', 1000],
    ['10.5', 'EUR', 1050],
    ['10.000', 'EUR', 1000],
    ['-12.34', 'EUR', -1234],
    ['10', 'JPY', 10],
    ['1.234', 'BHD', 1234],
    ['90071992547409.91', 'EUR', Number.MAX_SAFE_INTEGER],
  ])('%s %s is %i minor units', (amount, currency, minor) => {
    expect(toMinorUnits(amount, currency)).toBe(minor);
  });

  it('gives 0, not -0, for negative zero', () => {
    expect(Object.is(toMinorUnits('-0.00', 'EUR'), 0)).toBe(true);
  });

  it.each([
    ['10.001', 'EUR'],
    ['10.5', 'JPY'],
    ['1.2345', 'KWD'],
    ['0.001', 'USD'],
  ])('refuses to drop a fraction of a minor unit: %s %s', (amount, currency) => {
    expect(() => toMinorUnits(amount, currency)).toThrow(RangeError);
  });

  it('refuses amounts beyond a safe integer of minor units', () => {
    expect(() => toMinorUnits('90071992547409.92', 'EUR')).toThrow(RangeError);
  });

  it('accepts a Decimal', () => {
    expect(toMinorUnits(parseAmount('7.25'), 'EUR')).toBe(725);
  });
});

describe('fromMinorUnits', () => {
  it.each([
    [1050, 'EUR', '10.5'],
    [10, 'JPY', '10'],
    [1234, 'BHD', '1.234'],
    [-5, 'EUR', '-0.05'],
  ])('%i %s is %s', (minor, currency, amount) => {
    expect(fromMinorUnits(minor, currency).toFixed()).toBe(amount);
  });

  it.each([1.5, Number.NaN, Number.MAX_SAFE_INTEGER + 1, Infinity])('rejects %d', (minor) => {
    expect(() => fromMinorUnits(minor, 'EUR')).toThrow(RangeError);
  });
});

describe('minor-unit round trips (property)', () => {
  const currency = fc.constantFrom('EUR', 'JPY', 'BHD', 'CLF', 'HUF', 'KRW');

  it('toMinorUnits(fromMinorUnits(m)) is m', () => {
    fc.assert(
      fc.property(fc.maxSafeInteger(), currency, (minor, c) => toMinorUnits(fromMinorUnits(minor, c), c) === minor),
    );
  });

  it('fromMinorUnits(toMinorUnits(a)) equals a for amounts the currency can hold', () => {
    fc.assert(
      fc.property(
        currency.chain((c) =>
          fc.tuple(
            fc.constant(c),
            decimalString(-BigInt(Number.MAX_SAFE_INTEGER), BigInt(Number.MAX_SAFE_INTEGER), currencyExponent(c)),
          ),
        ),
        ([c, amount]) => fromMinorUnits(toMinorUnits(amount, c), c).eq(parseAmount(amount)),
      ),
    );
  });
});
