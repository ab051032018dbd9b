import type { Operation } from '../../db/generated/client.js';
import type { SqlClient } from '../../db/sql.js';
import { recordEvent } from '../../outbox/recordEvent.js';
import { presentRefund } from '../refunds/presenter.js';

/** `operation.fiscal_state_changed` of a Style O refund whose fiscal_state is no longer `previous`: the refund in Style O. */
export async function recordRefundFiscalState(sql: SqlClient, refund: Operation, previous: string | null): Promise<void> {
  if (refund.fiscalState === previous) return;
  await recordEvent(sql, { type: 'operation.fiscal_state_changed', merchantId: refund.merchantId, data: { object: presentRefund(refund) } });
}
