import type { Tx } from '../db/transaction.js';
import type { Invoice, Prisma } from '../db/generated/client.js';
import { settleCancellation } from './cancellationSettlement.js';
import type { ChannelNotification } from './invoiceChannel.js';
import { changeInvoiceState, type InvoiceStateChange, type InvoiceStateObserver } from './invoiceStateChange.js';
import { DAY_MS } from '../domain/dayLength.js';

const errorsJson = (errors: { code: string; message: string }[]) => errors as unknown as Prisma.InputJsonValue;

/** The invoice's change for a notification: its event, and the fiscal fields it sets. */
function changeFor(notification: ChannelNotification, at: Date): InvoiceStateChange {
  switch (notification.kind) {
    case 'rejected':
      return { event: 'rejected', at, update: { transmissionStatus: 'rejected', fiscalErrors: errorsJson(notification.errors) }, details: { errors: notification.errors } };
    case 'delivered':
      return {
        event: 'delivered',
        at,
        update: {
          deliveryStatus: 'delivered',
          deliveredAt: at,
          acceptanceDueAt: notification.acceptedAfterDays === null ? null : new Date(at.getTime() + notification.acceptedAfterDays * DAY_MS),
        },
      };
    case 'undeliverable':
      return { event: 'undeliverable', at, update: { deliveryStatus: 'undeliverable' }, details: { notices: notification.errors } };
    case 'recipient_accepted':
      return { event: 'recipient_accepted', at, update: { deliveryStatus: 'accepted', acceptanceDueAt: null } };
    case 'recipient_refused':
      return {
        event: 'recipient_refused',
        at,
        update: { deliveryStatus: 'refused', acceptanceDueAt: null, fiscalErrors: errorsJson(notification.errors) },
        details: { errors: notification.errors },
      };
    case 'deadline_passed':
      return { event: 'deadline_passed', at, update: { deliveryStatus: 'accepted', acceptanceDueAt: null } };
  }
}

/**
 * Applies what the channel said about an invoice (row locked by the caller) and settles a
 * cancellation its outcome decides: a credit note that was delivered (or put in the
 * recipient's reserved area) confirms it, one that was rejected fails it.
 */
export async function applyChannelNotification(
  tx: Tx,
  invoice: Invoice,
  notification: ChannelNotification,
  at: Date,
  observer: InvoiceStateObserver,
): Promise<Invoice> {
  const updated = await changeInvoiceState(tx, invoice, changeFor(notification, at), observer);
  if (notification.kind === 'delivered' || notification.kind === 'undeliverable') await settleCancellation(tx, updated, 'confirmed', at, observer);
  if (notification.kind === 'rejected') await settleCancellation(tx, updated, 'failed', at, observer);
  return updated;
}
