import type { Event } from '../db/generated/client.js';

/** An event as GET /v1/events shows it and a webhook delivers it (the same JSON). */
export interface EventPayload {
  id: string;
  object: 'event';
  type: string;
  created_at: string;
  /** The merchant (= organization) the event belongs to. */
  organization_id: string;
  data: Record<string, unknown>;
}

export const eventPayload = (event: Event): EventPayload => ({
  id: event.id,
  object: 'event',
  type: event.type,
  created_at: event.createdAt.toISOString(),
  organization_id: event.merchantId,
  data: event.data as Record<string, unknown>,
});
