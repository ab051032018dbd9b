import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import { formatNumeric, formatRow, truncateText } from '../../src/exports/dsfinvk/csv.js';
import { TABLES } from '../../src/exports/dsfinvk/tables.js';
import { formatLocalTimestamp } from '../../src/exports/dsfinvk/timestamps.js';

describe('formatNumeric', () => {
  const column = (accuracy: number) => ({ name: 'BETRAG', accuracy });

  it.each([
    ['12.5', 2, '12,50'],
    ['1234567.89', 2, '1234567,89'],
    ['-11.9', 2, '-11,90'],
    ['1.11765', 5, '1,11765'],
    ['7', 5, '7,00000'],
    ['-0.1', 5, '-0,10000'],
    ['7.123', 5, '7,12300'],
    ['2', 3, '2,000'],
    ['0.375', 3, '0,375'],
    ['42', 0, '42'],
    ['-3', 0, '-3'],
  ])('%s at accuracy %i is %s', (value, accuracy, expected) => {
    expect(formatNumeric(value, column(accuracy))).toBe(expected);
  });

  it('writes exactly the declared places for JS numbers and Decimals too, and zero without a sign', () => {
    expect(formatNumeric(17, column(0))).toBe('17');
    expect(formatNumeric(1.5, column(3))).toBe('1,500');
    expect(formatNumeric(new Decimal('0.5'), column(5))).toBe('0,50000');
    expect(formatNumeric(new Decimal(0).negated(), column(2))).toBe('0,00');
  });

  it('refuses a value finer than its column instead of rounding it', () => {
    expect(() => formatNumeric('1.11764706', { name: 'POS_UST', accuracy: 5 })).toThrow(/POS_UST holds 5 decimal places, not 1\.11764706/);
    expect(() => formatNumeric('0.005', column(2))).toThrow(RangeError);
    expect(() => formatNumeric(0.1 + 0.2, column(3))).toThrow(RangeError);
    expect(() => formatNumeric(2.5, column(0))).toThrow(RangeError);
  });
});

describe('truncateText', () => {
  it('keeps text within the limit and cuts by characters, not UTF-16 units', () => {
    expect(truncateText('Käse', 4)).toBe('Käse');
    expect(truncateText('😀😀😀', 2)).toBe('😀😀');
    expect(truncateText('x'.repeat(300), 255)).toHaveLength(255);
  });
});

describe('formatRow', () => {
  const lines = TABLES.find((table) => table.file === 'lines.csv')!;

  it('quotes fields with ; " CR LF or edge spaces, doubles quotes, and ends with CRLF', () => {
    const row = formatRow(lines, { BON_ID: 'op_1', POS_ZEILE: '1', ARTIKELTEXT: 'Brot "Spezial"; 750 g', GV_TYP: 'Umsatz', MENGE: '1', STK_BR: '4.28' });
    expect(row.endsWith('\r\n')).toBe(true);
    const cells = row.slice(0, -2).split(';');
    expect(row).toContain(';"Brot ""Spezial""; 750 g";');
    expect(formatRow(lines, { ARTIKELTEXT: ' lead' })).toContain('" lead"');
    expect(cells).toHaveLength(lines.columns.length + 1);
  });

  it('cuts AlphaNumeric values to MaxLength', () => {
    const row = formatRow(lines, { ARTIKELTEXT: 'y'.repeat(300) });
    expect(row).toContain(`;${'y'.repeat(255)};`);
    expect(row).not.toContain('y'.repeat(256));
  });
});

describe('formatLocalTimestamp', () => {
  it('writes local time with the offset of the date, to the second', () => {
    expect(formatLocalTimestamp(new Date('2026-03-15T21:30:00.999Z'), 'Europe/Berlin')).toBe('2026-03-15T22:30:00+01:00');
    expect(formatLocalTimestamp(new Date('2026-07-01T22:15:05.000Z'), 'Europe/Berlin')).toBe('2026-07-02T00:15:05+02:00');
    expect(formatLocalTimestamp(new Date('2026-07-01T22:15:05.000Z'), 'UTC')).toBe('2026-07-01T22:15:05+00:00');
    expect(formatLocalTimestamp(new Date('2026-07-01T22:15:05.000Z'), 'America/St_Johns')).toBe('2026-07-01T19:45:05-02:30');
  });
});
