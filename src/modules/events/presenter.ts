import type { Event } from '../../db/generated/client.js';
import { eventPayload } from '../../outbox/eventPayload.js';
import type { EventListView, EventView } from './schemas.js';

/** The event exactly as a webhook delivers it. */
export const presentEvent = (event: Event): EventView => eventPayload(event) as EventView;

export const presentEventList = (list: { events: Event[]; cursor: string | null }): EventListView => ({
  object: 'list',
  data: list.events.map(presentEvent),
  cursor: list.cursor,
});
