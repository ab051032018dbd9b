import type { AppContext } from '../../context.js';
import type { Invoice, Merchant } from '../../db/generated/client.js';
import { sqlOf } from '../../db/sql.js';
import { applyChannelNotification } from '../../einvoicing/channelNotifications.js';
import type { RecipientSimulation } from '../../einvoicing/invoiceChannel.js';
import { invalidState } from '../../einvoicing/invoiceStateChange.js';
import { jurisdictionOf } from '../../einvoicing/jurisdictions/index.js';
import type { Finalize } from '../common/transactions.js';
import { lockOwnInvoice } from './service.js';
import { recordInvoiceStateChanged } from '../events/invoiceEvents.js';

/**
 * Sandbox only (the route answers 404 in production): the recipient's answer to a delivered invoice, as its
 * channel would notify it (SdI, FPA12: NE EC01 -> accepted, NE EC02 -> stays delivered with
 * delivery_status refused, DT -> accepted). 409 invoice_invalid_state for an invoice that is
 * not delivered, was already answered, or whose channel gives no such answer.
 */
export async function simulateRecipient(ctx: AppContext, organization: Merchant, id: string, event: RecipientSimulation, finalize?: Finalize<Invoice>): Promise<Invoice> {
  return ctx.db.$transaction(async (tx) => {
    const invoice = await lockOwnInvoice(tx, organization, id);
    // The channel that received the file (an intermediary's, A-Cube, simulates nothing); before that, the jurisdiction's default.
    const channel = invoice.authorityIdentifier
      ? (await ctx.invoiceChannels.forReceived(invoice, tx))?.channel
      : jurisdictionOf(invoice.jurisdiction).channel(ctx.invoiceChannels.settings);
    if (!channel) throw invalidState(invoice, `Invoices of ${invoice.jurisdiction} get no answer from their recipient through a channel`);
    if (!channel.simulateRecipient) throw invalidState(invoice, `This invoice went through ${channel.name}, which simulates no recipient's answer: its answers come from the SdI`);
    if (invoice.state !== 'delivered' || invoice.deliveryStatus !== 'delivered' || !invoice.document || !invoice.documentFileName) {
      throw invalidState(invoice, `Only a delivered invoice the recipient has not answered yet can be answered; this one is ${invoice.state}${invoice.deliveryStatus === 'refused' ? ' and was refused' : ''}`);
    }
    const answer = channel.simulateRecipient({ fileName: invoice.documentFileName, document: invoice.document }, event);
    if ('refused' in answer) throw invalidState(invoice, answer.refused);
    const updated = await applyChannelNotification(tx, invoice, answer, ctx.clock(), recordInvoiceStateChanged(ctx.publicBaseUrl));
    await finalize?.(sqlOf(tx), updated);
    return updated;
  });
}
