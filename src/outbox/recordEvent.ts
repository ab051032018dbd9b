import type { SqlClient } from '../db/sql.js';
import { newId } from '../lib/ids.js';
import { EVERY_EVENT_TYPE, type EventType } from './eventTypes.js';

/** What an event reports: the resource as its style presents it, and what the type adds beside it. */
export interface EventData {
  object: unknown;
  [field: string]: unknown;
}

export interface NewEvent {
  type: EventType;
  /** The merchant (= organization) whose resource changed: only its callers see the event. */
  merchantId: string;
  data: EventData;
}

/**
 * The event, and a pending delivery to every endpoint of the merchant that
 * subscribes to its type, in one statement. created_at is the statement's time,
 * not the transaction's, so events of one transaction keep their order.
 */
const INSERT_EVENT_AND_DELIVERIES = `
  WITH event AS (
    INSERT INTO events (id, merchant_id, type, data, created_at)
    VALUES ($1, $2, $3, $4::json, clock_timestamp())
    RETURNING id, merchant_id, type, created_at)
  INSERT INTO webhook_deliveries (id, event_id, endpoint_id, status, run_after, created_at)
  SELECT 'whd_' || replace(gen_random_uuid()::text, '-', ''), e.id, w.id, 'pending', e.created_at, e.created_at
    FROM event e
    JOIN webhook_endpoints w ON w.merchant_id = e.merchant_id AND (e.type = ANY (w.events) OR $5 = ANY (w.events))`;

/**
 * Writes an event in the caller's transaction (the outbox): it exists, and is
 * delivered, exactly when the change it reports commits. Returns its id.
 */
export async function recordEvent(sql: SqlClient, event: NewEvent): Promise<string> {
  const id = newId('evt');
  await sql.write(INSERT_EVENT_AND_DELIVERIES, [id, event.merchantId, event.type, JSON.stringify(event.data), EVERY_EVENT_TYPE]);
  return id;
}
