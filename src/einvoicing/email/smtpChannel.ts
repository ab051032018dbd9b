import type { ChannelReceipt, InvoiceChannel } from '../invoiceChannel.js';
import { invoiceEmailOf, invoiceMessageIdOf } from './invoiceEmail.js';
import { smtpTransportOf, type SmtpConnection } from './smtpConnection.js';
import { smtpFailureOf } from './smtpFailure.js';

// XRechnung requires BT-49 of every German invoice (PEPPOL-EN16931-R010, refused at submit): a stored invoice without it predates that rule.
const NO_BUYER_EMAIL = 'The buyer has no e-mail address (BT-49) to deliver the invoice to';

/**
 * Invoices e-mailed to their buyer (BT-49) through the organization's mail server. The
 * server's 250 to the message is the receipt and its last word (transmitted, identified by
 * the message's Message-ID): a bounce it may send later goes to the sender's mailbox, which
 * the service does not read. A permanent refusal of the recipient or the message (5xx) makes
 * the invoice undeliverable with the server's reply; anything transient (4xx, no connection,
 * no answer in time, a refused login) leaves it to the worker's retries. SMTP cannot be asked
 * whether a message arrived: a send whose 250 was lost is sent again, under the same
 * Message-ID (invoiceEmail.ts), the one mark a receiving system can drop a duplicate by.
 */
export function smtpChannel(connection: SmtpConnection, timeoutMs: number, pollDelayMs: number): InvoiceChannel {
  const transport = smtpTransportOf(connection, timeoutMs);
  return {
    name: 'smtp',
    pollDelayMs,
    async send(file, envelope): Promise<ChannelReceipt> {
      const { buyerEmail } = envelope;
      if (!buyerEmail) return { outcome: 'undeliverable', errors: [{ code: 'SMTP_NO_RECIPIENT', message: NO_BUYER_EMAIL }] };
      try {
        await transport.sendMail(invoiceEmailOf(file, { ...envelope, buyerEmail }, connection.from));
        return { outcome: 'received', identifier: invoiceMessageIdOf(envelope.invoiceId, connection.from), notifies: false };
      } catch (error) {
        const failure = smtpFailureOf(error, connection);
        const errors = [{ code: failure.code, message: failure.message }];
        return failure.kind === 'refused' ? { outcome: 'undeliverable', errors } : { outcome: 'unreachable', errors };
      }
    },
    // The receipt said nothing follows (notifies: false): the worker never asks.
    nextNotification: async () => null,
  };
}
