import { sqlOf } from '../../db/sql.js';
import type { Tx } from '../../db/transaction.js';
import type { EventType } from '../../outbox/eventTypes.js';
import { recordEvent } from '../../outbox/recordEvent.js';
import { presentDailyClosure } from '../dailyClosures/presenter.js';

const EVENT_OF_TRANSMISSION: Partial<Record<string, EventType>> = {
  transmitted: 'daily_closure.transmitted',
  rejected: 'daily_closure.rejected',
};

/**
 * `daily_closure.transmitted` or `daily_closure.rejected` once a closure's
 * transmission has its outcome (a printer's closure is transmitted as it is
 * made); nothing while it is pending or failed and retried.
 */
export async function recordClosureOutcome(tx: Tx, closureId: string, publicBaseUrl: string): Promise<void> {
  const closure = await tx.rtDailyClosure.findUniqueOrThrow({ where: { id: closureId } });
  const type = EVENT_OF_TRANSMISSION[closure.transmissionStatus];
  if (!type) return;
  await recordEvent(sqlOf(tx), { type, merchantId: closure.merchantId, data: { object: presentDailyClosure(closure, publicBaseUrl) } });
}
