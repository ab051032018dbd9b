import { Decimal } from 'decimal.js';
import { toAmount } from '../../domain/money.js';
import type { ColumnSpec, ColumnOf, NumericColumn, TableFile, TableSpec } from './tables.js';

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
 * A number as its column declares it in index.xml: exactly `accuracy` places
 * after a decimal comma (none for an integer), no grouping, never `-0`.
 * Strict readers reject fewer places than declared and no reader can take
 * more, so a value finer than its column is refused rather than rounded: the
 * mapping (businessCases.ts) rounds by its documented rules before a value
 * gets here.
 */
export function formatNumeric(value: string | number | Decimal, column: Pick<NumericColumn, 'name' | 'accuracy'>): string {
  if (typeof value === 'number' && column.accuracy === 0 && Number.isSafeInteger(value)) return String(value);
  const amount = Decimal.isDecimal(value) ? value : toAmount(typeof value === 'number' ? new Decimal(value) : value);
  if (amount.decimalPlaces() > column.accuracy) {
    throw new RangeError(`${column.name} holds ${column.accuracy} decimal places, not ${amount.toFixed()}`);
  }
  return amount.toFixed(column.accuracy).replace('.', ',');
}

function formatCell(column: ColumnSpec, value: CellValue): string {
  if (value === null || value === undefined || value === '') return '';
  if (column.type === 'Numeric') return formatNumeric(value, column);
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
