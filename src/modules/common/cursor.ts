import { invalidRequest } from '../../domain/errors.js';
import { EARLIEST_INPUT_INSTANT, LATEST_INPUT_INSTANT } from './schemas.js';

/**
 * Keyset pagination of the list endpoints: newest first on (created_at, id),
 * so pages never skip or repeat a row, whatever is written meanwhile.
 */
export interface ListPosition {
  createdAt: Date;
  id: string;
}

export const encodeCursor = (row: ListPosition): string => Buffer.from(`${row.createdAt.toISOString()}|${row.id}`).toString('base64url');

const ISSUED_CURSOR = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)\|([A-Za-z0-9_]{1,64})$/;

/**
 * Only what encodeCursor issues is a cursor: its exact base64url text, a
 * toISOString instant the service can store, and an id. Anything else would reach
 * the query as a date or text the database refuses, a 500 instead of this 400.
 */
export function decodeCursor(cursor: string): ListPosition {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const match = ISSUED_CURSOR.exec(text);
  const createdAt = new Date(match?.[1] ?? Number.NaN);
  const instant = createdAt.getTime();
  const issued =
    match !== null &&
    Buffer.from(text).toString('base64url') === cursor &&
    instant >= EARLIEST_INPUT_INSTANT &&
    instant <= LATEST_INPUT_INSTANT &&
    createdAt.toISOString() === match[1];
  if (!issued) throw invalidRequest('cursor is not a cursor this service issued', { field: 'cursor' });
  return { createdAt, id: match[2] };
}

/** The order of every list. */
export const NEWEST_FIRST = [{ createdAt: 'desc' as const }, { id: 'desc' as const }];

/** The rows after the cursor's, in NEWEST_FIRST order (a Prisma where clause); nothing to add without a cursor. */
export function afterCursor(cursor: string | undefined) {
  if (!cursor) return {};
  const after = decodeCursor(cursor);
  return { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }] };
}

/** A page of `limit` rows out of `limit + 1` fetched, and the cursor of the next page when there is one. */
export function pageOf<Row extends ListPosition>(rows: readonly Row[], limit: number): { page: Row[]; cursor: string | null } {
  const page = rows.slice(0, limit);
  return { page, cursor: rows.length > limit ? encodeCursor(page[page.length - 1]) : null };
}
