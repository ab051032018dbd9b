import type { Merchant, Operation } from '../../db/generated/client.js';
import type { AppContext } from '../../context.js';
import { invalidRequest } from '../../http/errors.js';
import { STYLE_M_TYPES } from './completeOperation.js';
import type { z } from 'zod';
import type { ListOperationsQuery } from './schemas.js';

interface Cursor {
  createdAt: Date;
  id: string;
}

export const encodeCursor = (operation: Operation): string =>
  Buffer.from(`${operation.createdAt.toISOString()}|${operation.id}`).toString('base64url');

function decodeCursor(cursor: string): Cursor {
  const [createdAt, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const date = new Date(createdAt);
  if (!id || Number.isNaN(date.getTime())) throw invalidRequest('cursor is not a cursor this service issued', { field: 'cursor' });
  return { createdAt: date, id };
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
