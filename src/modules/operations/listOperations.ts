import type { Merchant, Operation } from '../../db/generated/client.js';
import type { AppContext } from '../../context.js';
import { afterCursor, NEWEST_FIRST, pageOf } from '../common/cursor.js';
import { STYLE_M_TYPES } from './completeOperation.js';
import type { z } from 'zod';
import type { ListOperationsQuery } from './schemas.js';

/** Newest first, keyset-paginated (common/cursor.ts). */
export async function listOperations(
  ctx: AppContext,
  merchant: Merchant,
  query: z.infer<typeof ListOperationsQuery>,
): Promise<{ operations: Operation[]; cursor: string | null }> {
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
      ...afterCursor(query.cursor),
    },
    orderBy: NEWEST_FIRST,
    take: query.limit + 1,
  });
  const { page, cursor } = pageOf(rows, query.limit);
  return { operations: page, cursor };
}
