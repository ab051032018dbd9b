import type { Operation } from '../../db/generated/client.js';
import type { SqlClient } from '../../db/sql.js';
import { recordEvent } from '../../outbox/recordEvent.js';
import { presentOperation } from '../operations/presenter.js';

/** `operation.fiscal_state_changed` of a Style M goods movement its device just signed: the operation in Style M. */
export const recordOperationSigned = (sql: SqlClient, operation: Operation): Promise<string> =>
  recordEvent(sql, { type: 'operation.fiscal_state_changed', merchantId: operation.merchantId, data: { object: presentOperation(operation) } });
