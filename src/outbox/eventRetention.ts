import type { SqlClient } from '../db/sql.js';
import { DAY_MS } from '../domain/dayLength.js';

/**
 * Up to $2 events created before $1 whose deliveries have all ended, oldest first,
 * deleted with their deliveries and attempts (the foreign keys cascade). Each
 * merchant's events are read through its (merchant_id, created_at) index and
 * deleted by id, so the sweep scans no large table and the write path pays for no
 * extra index. A delivery still pending (a worker stopped for longer than the
 * retention) keeps its event.
 */
const PRUNE_EVENTS = `
  WITH expired AS (
    SELECT old.id
      FROM merchants m
     CROSS JOIN LATERAL (
       SELECT e.id, e.created_at FROM events e
        WHERE e.merchant_id = m.id AND e.created_at < $1
          AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.status IN ('pending', 'running'))
        ORDER BY e.created_at
        LIMIT $2) old
     ORDER BY old.created_at
     LIMIT $2),
  pruned AS (DELETE FROM events WHERE id = ANY (ARRAY(SELECT id FROM expired)) RETURNING 1)
  SELECT count(*)::int AS count FROM pruned`;

/**
 * Deletes the events older than `retentionDays` (GET /v1/events shows what is kept),
 * a batch per statement, so no statement holds many locks for long. Returns how many went.
 */
export async function pruneExpiredEvents(sql: SqlClient, retentionDays: number, now: Date, batchSize = 1000): Promise<number> {
  const before = new Date(now.getTime() - retentionDays * DAY_MS);
  let pruned = 0;
  for (;;) {
    const [{ count }] = await sql.query<{ count: number }>(PRUNE_EVENTS, [before, batchSize]);
    pruned += count;
    if (count < batchSize) return pruned;
  }
}
