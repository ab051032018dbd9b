import type { SqlClient } from '../../db/sql.js';
import { REGISTER_COLUMNS, registerFromRow, type RegisterRow } from '../../db/rows/registerRows.js';
import type { FiscalRecord } from '../../fiscal/fiscalDevice.js';
import { recordEvent } from '../../outbox/recordEvent.js';
import { presentRegister } from './presenter.js';

const MARK_FAILED = `
  UPDATE registers r SET device_failed_since = $2
   WHERE r.id = $1 AND r.device_failed_since IS NULL
  RETURNING ${REGISTER_COLUMNS}`;

/** Locked first, so of two signings that both see the outage only one ends it. */
const MARK_RECOVERED = `
  WITH outage AS (SELECT id, device_failed_since FROM registers WHERE id = $1 AND device_failed_since IS NOT NULL FOR UPDATE)
  UPDATE registers r SET device_failed_since = NULL
    FROM outage
   WHERE r.id = outage.id
  RETURNING ${REGISTER_COLUMNS}, outage.device_failed_since AS failed_since`;

/**
 * A record issued while the register's signature device was out: it carries
 * the failure marker in place of a signature (RKSV, reference §6.1). A regime
 * whose devices cannot sign issues nothing, so its records never say so.
 */
export const deviceFailedIn = (record: FiscalRecord | null): boolean =>
  record !== null && 'signature_device_failed' in record && record.signature_device_failed === true;

function deviceEventData(row: RegisterRow, failedSince: Date, recoveredAt: Date | null) {
  return {
    object: presentRegister(registerFromRow(row)),
    signature_device: {
      regime: row.regime,
      serial: row.device_serial,
      failed_since: failedSince.toISOString(),
      recovered_at: recoveredAt?.toISOString() ?? null,
    },
  };
}

/**
 * Keeps the register's device health after a signing attempt whose outcome
 * commits with the caller's transaction (a record with the failure marker, a
 * refund left fiscal_state failed, a signed record): the first failure after
 * health is `signature_device.failed`, the first success after failures
 * `signature_device.recovered`. `register` is the state the caller read; while
 * it matches the outcome nothing is written.
 */
export async function recordSignatureDeviceHealth(
  sql: SqlClient,
  register: { id: string; deviceFailedSince: Date | null },
  failed: boolean,
  at: Date = new Date(),
): Promise<void> {
  if (failed === (register.deviceFailedSince !== null)) return;
  if (failed) {
    const [row] = await sql.query<RegisterRow>(MARK_FAILED, [register.id, at]);
    if (row) await recordEvent(sql, { type: 'signature_device.failed', merchantId: row.merchant_id, data: deviceEventData(row, at, null) });
    return;
  }
  const [row] = await sql.query<RegisterRow & { failed_since: Date }>(MARK_RECOVERED, [register.id]);
  if (row) await recordEvent(sql, { type: 'signature_device.recovered', merchantId: row.merchant_id, data: deviceEventData(row, row.failed_since, at) });
}
