import type { AppContext } from '../../context.js';
import { sqlOf } from '../../db/sql.js';
import { daysUntil, expiryReminderFrom } from '../../domain/portalCredentials/credentialRules.js';
import { PORTAL_TYPES, type PortalTypeName } from '../../domain/portalCredentials/portalTypes.js';
import { recordEvent } from '../../outbox/recordEvent.js';
import { presentPortalCredential } from './presenter.js';

/** How long before expiry the earliest reminder of any portal is due: the window the scan looks in. */
const REMINDER_WINDOW_DAYS = Math.max(
  ...Object.values(PORTAL_TYPES).map((portal) => (portal.passwordExpiry ? portal.passwordExpiry.lifetimeDays - portal.passwordExpiry.reminderAfterDays : 0)),
);

const CANDIDATES = `
  SELECT id FROM fiscal_portal_credentials
   WHERE expires_at > $1::timestamptz AND expires_at <= $1::timestamptz + make_interval(days => $2::int)
     AND expiry_reminded_for IS DISTINCT FROM expires_at`;

/**
 * The claim: marks this password's expiry as reminded. A concurrent claim waits for the row
 * and then no longer matches, so one transaction records the event.
 */
const CLAIM = `
  UPDATE fiscal_portal_credentials SET expiry_reminded_for = expires_at
   WHERE id = $1 AND expires_at = $2::timestamptz AND expiry_reminded_for IS DISTINCT FROM expires_at
  RETURNING id`;

/**
 * Records a `fiscal_portal_credential.expiring` event for every credential whose password
 * reaches the reminder age (Fisconline: 60 of its 90 days), once per password: a new password
 * has a new expires_at and gets its own reminder. Returns how many were sent.
 */
export async function sendDueCredentialReminders(ctx: AppContext, now: Date): Promise<number> {
  const candidates = await ctx.sql.query<{ id: string }>(CANDIDATES, [now, REMINDER_WINDOW_DAYS]);
  let sent = 0;
  for (const { id } of candidates) {
    const claimed = await ctx.db.$transaction(async (tx) => {
      const credential = await tx.fiscalPortalCredential.findUnique({ where: { id } });
      const expiresAt = credential?.expiresAt;
      if (!credential || !expiresAt) return false;
      const remindFrom = expiryReminderFrom(credential.portalType as PortalTypeName, expiresAt);
      if (!remindFrom || now < remindFrom || now >= expiresAt) return false;
      const sql = sqlOf(tx);
      const [won] = await sql.query(CLAIM, [id, expiresAt]);
      if (!won) return false;
      await recordEvent(sql, {
        type: 'fiscal_portal_credential.expiring',
        merchantId: credential.merchantId,
        data: { object: presentPortalCredential(credential, ctx.secrets, now), days_left: daysUntil(expiresAt, now) },
      });
      return true;
    });
    if (claimed) sent += 1;
  }
  return sent;
}
