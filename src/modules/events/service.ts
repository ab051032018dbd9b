import type { z } from 'zod';
import type { Event, Merchant } from '../../db/generated/client.js';
import type { AppContext } from '../../context.js';
import { notFound, validationError } from '../../domain/errors.js';
import { isEventType } from '../../outbox/eventTypes.js';
import { afterCursor, NEWEST_FIRST, pageOf } from '../common/cursor.js';
import { EVENT_TYPE_LIST, type ListEventsQuery } from './schemas.js';

/** The merchant's events, newest first, optionally of one type. */
export async function listEvents(ctx: AppContext, merchant: Merchant, query: z.infer<typeof ListEventsQuery>): Promise<{ events: Event[]; cursor: string | null }> {
  if (query.type !== undefined && !isEventType(query.type)) {
    throw validationError(`Unknown event type ${query.type}; the types are ${EVENT_TYPE_LIST}`, { field: 'type' });
  }
  const rows = await ctx.db.event.findMany({
    where: { merchantId: merchant.id, ...(query.type ? { type: query.type } : {}), ...afterCursor(query.cursor) },
    orderBy: NEWEST_FIRST,
    take: query.limit + 1,
  });
  const { page, cursor } = pageOf(rows, query.limit);
  return { events: page, cursor };
}

export async function getEvent(ctx: AppContext, merchant: Merchant, id: string): Promise<Event> {
  const event = await ctx.db.event.findFirst({ where: { id, merchantId: merchant.id } });
  if (!event) throw notFound('event', id);
  return event;
}
