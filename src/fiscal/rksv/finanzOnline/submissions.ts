import type { SqlClient } from '../../../db/sql.js';
import { newId } from '../../../lib/ids.js';

/** What a submission sends, in order; a retry goes on after the steps already answered. */
export const SUBMISSION_STEPS = {
  registration: ['register_unit', 'register_cash_register', 'check_receipt'],
  outage: ['report_unit_outage'],
  recovery: ['report_unit_recovery'],
  decommission: ['decommission_cash_register', 'decommission_unit'],
} as const;
export type SubmissionKind = keyof typeof SUBMISSION_STEPS;
export type SubmissionStep = (typeof SUBMISSION_STEPS)[SubmissionKind][number];

const INSERT_SUBMISSION = `
  INSERT INTO finanz_online_submissions (id, merchant_id, register_id, rksv_cash_register_id, kind, payload, status)
  SELECT $1, c.merchant_id, c.register_id, c.id, $3, $4::jsonb, 'pending' FROM rksv_cash_registers c WHERE c.id = $2`;

/** Queues a FinanzOnline submission of the RKSV register `cashRegisterId`, in the caller's transaction. */
export async function queueSubmission(sql: SqlClient, cashRegisterId: string, kind: SubmissionKind, payload: Record<string, string> = {}): Promise<void> {
  await sql.write(INSERT_SUBMISSION, [newId('fos'), cashRegisterId, kind, JSON.stringify(payload)]);
}

/** Active registers whose unit has been out since before the threshold, with an outage not reported yet. */
const DUE_OUTAGES = `
  SELECT id, signature_failed_since FROM rksv_cash_registers
   WHERE status = 'active' AND signature_failed_since <= $1
     AND outage_reported_for IS DISTINCT FROM signature_failed_since
   FOR UPDATE SKIP LOCKED`;

/**
 * Queues the reports of outages that have lasted past the threshold (§ 17
 * RKSV: an outage longer than 48 hours is reported to FinanzOnline), each
 * marked reported with its report, in the caller's transaction; their number.
 */
export async function queueDueOutageReports(sql: SqlClient, outageStartedBefore: Date): Promise<number> {
  const due = await sql.query<{ id: string; signature_failed_since: Date }>(DUE_OUTAGES, [outageStartedBefore]);
  for (const outage of due) {
    await sql.write('UPDATE rksv_cash_registers SET outage_reported_for = signature_failed_since WHERE id = $1', [outage.id]);
    await queueSubmission(sql, outage.id, 'outage', { occurred_at: outage.signature_failed_since.toISOString() });
  }
  return due.length;
}

/**
 * An outage ended (a collective receipt was signed at `endedAt`): its end is
 * reported when its start was, and the register has no reported outage any more.
 */
const QUEUE_RECOVERY_REPORT = `
  WITH ended AS (
    UPDATE rksv_cash_registers SET outage_reported_for = NULL
     WHERE id = $1 AND outage_reported_for IS NOT NULL
    RETURNING id, merchant_id, register_id)
  INSERT INTO finanz_online_submissions (id, merchant_id, register_id, rksv_cash_register_id, kind, payload, status)
  SELECT $2, ended.merchant_id, ended.register_id, ended.id, 'recovery', jsonb_build_object('occurred_at', $3::text), 'pending' FROM ended`;

export async function queueRecoveryReport(sql: SqlClient, cashRegisterId: string, endedAt: Date): Promise<void> {
  await sql.write(QUEUE_RECOVERY_REPORT, [cashRegisterId, newId('fos'), endedAt.toISOString()]);
}

/** A changed credential may be the one a refused login waits for: the merchant's blocked submissions are due again. */
export async function resumeSubmissionsAwaitingLogin(sql: SqlClient, merchantId: string): Promise<void> {
  await sql.write(`UPDATE finanz_online_submissions SET status = 'pending', run_after = now() WHERE merchant_id = $1 AND status = 'blocked'`, [merchantId]);
}

/** The sandbox's simulation of a register changed: its blocked submissions are due again. */
export async function resumeRegisterSubmissions(sql: SqlClient, registerId: string): Promise<void> {
  await sql.write(`UPDATE finanz_online_submissions SET status = 'pending', run_after = now() WHERE register_id = $1 AND status = 'blocked'`, [registerId]);
}
