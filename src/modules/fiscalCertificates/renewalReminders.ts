import type { AppContext } from '../../context.js';
import type { FiscalCertificate } from '../../db/generated/client.js';
import { sqlOf } from '../../db/sql.js';
import { dueReminder, REMINDER_THRESHOLDS_DAYS } from '../../domain/certificates/renewalReminders.js';
import { recordEvent } from '../../outbox/recordEvent.js';
import { presentFiscalCertificate } from './presenter.js';

/**
 * Certificates with a reminder due that no instance has sent: not revoked, not expired, and
 * without a reminder row for the nearest threshold their remaining time has reached (the rule
 * of dueReminder, which decides again under the claim).
 */
const CANDIDATES = `
  SELECT c.id
    FROM fiscal_certificates c
    CROSS JOIN LATERAL (
      SELECT min(days) AS days FROM unnest($2::int[]) AS days WHERE c.valid_until <= $1::timestamptz + make_interval(days => days)
    ) due
   WHERE c.revoked_at IS NULL AND c.valid_until > $1::timestamptz AND due.days IS NOT NULL
     AND NOT EXISTS (SELECT 1 FROM fiscal_certificate_reminders r WHERE r.certificate_id = c.id AND r.threshold_days = due.days)`;

/** The claim: only the transaction whose insert wins records the event. */
const CLAIM = `
  INSERT INTO fiscal_certificate_reminders (certificate_id, threshold_days) VALUES ($1, $2)
  ON CONFLICT DO NOTHING RETURNING certificate_id`;

/**
 * Records a `fiscal_certificate.expiring` event for every certificate whose reminder is due
 * (60, 30 and 7 days before valid_until), each once: the reminder row is claimed in the
 * event's transaction, so two instances, or a retry after a crash, never send it twice.
 * Returns how many were sent.
 */
export async function sendDueCertificateReminders(ctx: AppContext, now: Date): Promise<number> {
  const candidates = await ctx.sql.query<{ id: string }>(CANDIDATES, [now, REMINDER_THRESHOLDS_DAYS]);
  let sent = 0;
  for (const { id } of candidates) {
    const claimed = await ctx.db.$transaction(async (tx) => {
      const certificate: FiscalCertificate | null = await tx.fiscalCertificate.findUnique({ where: { id } });
      const due = certificate && !certificate.revokedAt ? dueReminder(certificate.validUntil, now) : null;
      if (!certificate || !due) return false;
      const sql = sqlOf(tx);
      const [won] = await sql.query(CLAIM, [id, due.thresholdDays]);
      if (!won) return false;
      await recordEvent(sql, {
        type: 'fiscal_certificate.expiring',
        merchantId: certificate.merchantId,
        data: { object: presentFiscalCertificate(certificate, now), days_left: due.daysLeft },
      });
      return true;
    });
    if (claimed) sent += 1;
  }
  return sent;
}
