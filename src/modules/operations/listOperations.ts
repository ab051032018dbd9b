import type { Merchant, Operation } from '../../db/generated/client.js';
import type { AppContext } from '../../context.js';
import { invalidRequest } from '../../domain/errors.js';
import { EARLIEST_INPUT_INSTANT, LATEST_INPUT_INSTANT } from '../common/schemas.js';
import { STYLE_M_TYPES } from './completeOperation.js';
import type { z } from 'zod';
import type { ListOperationsQuery } from './schemas.js';

interface Cursor {
  createdAt: Date;
  id: string;
}

export const encodeCursor = (operation: Operation): string =>
  Buffer.from(`${operation.createdAt.toISOString()}|${operation.id}`).toString('base64url');

const ISSUED_CURSOR = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)\|([A-Za-z0-9_]{1,64})$/;

/**
 * Only what encodeCursor issues is a cursor: its exact base64url text, a
 * toISOString instant the service can store, and an id. Anything else would reach
 * the query as a date or text the database refuses, a 500 instead of this 400.
 */
function decodeCursor(cursor: string): Cursor {
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

/** Newest first, keyset-paginated on (created_at, id) so pages never skip or repeat. */
export async function listOperations(
  ctx: AppContext,
  merchant: Merchant,
  query: z.infer<typeof ListOperationsQuery>,
): Promise<{ operations: Operation[]; cursor: string | null }> {
  const after = query.cursor ? decodeCursor(query.cursor) : null;
  const rows = await ctx.db.operation.findMany({
    where: {
      merchantId: merchant.id,
      ...(query.register_id ? { registerId: query.register_id } : {}),
      ...(query.session_id ? { sessionId: query.session_id } : {}),
      type: query.type ? query.type : STYLE_M_TYPES,
      ...(query.status ? { status: query.status } : {}),
      createdAt: {
        ...(query.created_from ? { gte: new Date(query.created_from) } : {}),
        ...(query.created_to ? { lte: new Date(query.created_to) } : {}),
      },
      ...(after
        ? { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }] }
        : {}),
    },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: query.limit + 1,
  });
  const page = rows.slice(0, query.limit);
  return { operations: page, cursor: rows.length > query.limit ? encodeCursor(page[page.length - 1]) : null };
}
