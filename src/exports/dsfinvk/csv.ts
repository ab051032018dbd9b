import { Decimal } from 'decimal.js';
import { formatAmount, toAmount } from '../../domain/money.js';
import type { ColumnSpec, ColumnOf, TableFile, TableSpec } from './tables.js';

/** CSV dialect of index.xml (reference §2): `;`, CRLF, `"` encapsulation, decimal comma, no grouping, no BOM. */
export const COLUMN_DELIMITER = ';';
export const RECORD_DELIMITER = '\r\n';

export type CellValue = string | number | Decimal | null | undefined;
export type RowValues<F extends TableFile> = Partial<Record<ColumnOf<F>, CellValue>>;

const NEEDS_QUOTES = /[;"\r\n]|^[ \t]|[ \t]$/;

function encodeField(text: string): string {
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** Cuts text to `max` characters (code points, as MaxLength counts them), never splitting a surrogate pair. */
export function truncateText(text: string, max: number): string {
  // UTF-16 length is never below the code point count, so most values skip the split.
  if (text.length <= max) return text;
  const chars = Array.from(text);
  return chars.length <= max ? text : chars.slice(0, max).join('');
}

/**
 * A number in the column's accuracy: rounded half away from zero to at most
 * `accuracy` places, written with at least 2 places (3 for quantities) as the
 * reference's writer does, with a decimal comma and never as `-0`.
 */
export function formatNumeric(value: string | number | Decimal, accuracy: number): string {
  if (typeof value === 'number' && accuracy === 0 && Number.isSafeInteger(value)) return String(value);
  const amount = Decimal.isDecimal(value) ? value : toAmount(typeof value === 'number' ? new Decimal(value) : value);
  const minPlaces = accuracy === 3 ? 3 : Math.min(2, accuracy);
  return formatAmount(amount.toDecimalPlaces(accuracy, Decimal.ROUND_HALF_UP), minPlaces).replace('.', ',');
}

function formatCell(column: ColumnSpec, value: CellValue): string {
  if (value === null || value === undefined || value === '') return '';
  if (column.type === 'Numeric') return formatNumeric(value, column.accuracy);
  // Longer text would break the import of the column; the export keeps the first MaxLength characters (contract 2.5).
  return encodeField(truncateText(String(value), column.maxLength));
}

export function formatHeader(table: TableSpec): string {
  return table.columns.map((column) => column.name).join(COLUMN_DELIMITER) + RECORD_DELIMITER;
}

/** One CSV record of `table`; columns not given are empty. */
export function formatRow(table: TableSpec, values: Readonly<Record<string, CellValue>>): string {
  return table.columns.map((column) => formatCell(column, values[column.name])).join(COLUMN_DELIMITER) + RECORD_DELIMITER;
}
