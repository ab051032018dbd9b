import type { AppContext } from '../../context.js';
import { readTrasmissioneFattureRequest, type TrasmissioneFattureRequest, type UnreadableRequest } from '../../einvoicing/sdi/sdiCoop/trasmissioneFatture.js';
import { storedSdiNotificationOf } from '../../einvoicing/sdi/sdiCoop/storedSdiNotification.js';

/** What became of one push of the SdI to a configuration's TrasmissioneFatture endpoint. */
export type SdiPushOutcome =
  | { outcome: 'unknown_configuration' }
  | { outcome: 'unreadable'; error: UnreadableRequest }
  /** `repeated`: the SdI had pushed this notification before (its answer was lost); nothing new was stored. */
  | { outcome: 'stored' | 'repeated' };

/**
 * Takes one notification the SdI pushed to the sdicoop configuration `configId`: read, stored
 * once per notification file name, and, in the same transaction, the transmission job of the
 * invoice it is about made due at once, so the worker applies it without waiting for its next
 * look. Storage failures are thrown: the SdI is answered with a Server fault and pushes again.
 */
export async function receiveSdiPush(ctx: AppContext, configId: string, request: TrasmissioneFattureRequest): Promise<SdiPushOutcome> {
  const config = await ctx.db.invoiceChannelConfig.findUnique({ where: { id: configId }, select: { driver: true } });
  if (config?.driver !== 'sdicoop') return { outcome: 'unknown_configuration' };
  const reading = readTrasmissioneFattureRequest(request);
  if (reading.outcome === 'unreadable') return reading;
  const { identifier, fileName, notification } = reading;
  const stored = await ctx.db.$transaction(async (tx) => {
    const { count } = await tx.sdiNotification.createMany({
      data: [{ configId, identifier, fileName, invoiceFileName: notification.invoiceFileName, type: notification.type, notification: storedSdiNotificationOf(notification), receivedAt: ctx.clock() }],
      skipDuplicates: true,
    });
    if (count === 0) return false;
    await tx.$executeRaw`
      UPDATE invoice_transmission_jobs SET run_after = now()
       WHERE status = 'pending'
         AND invoice_id IN (SELECT id FROM invoices WHERE channel_config_id = ${configId} AND document_file_name = ${notification.invoiceFileName})`;
    return true;
  });
  if (stored) ctx.invoiceTransmissionWorker?.wake();
  return { outcome: stored ? 'stored' : 'repeated' };
}
