import type { SendMailOptions } from 'nodemailer';
import { documentMediaTypeOf } from '../documentMediaType.js';
import type { TransmissionEnvelope, TransmittedFile } from '../invoiceChannel.js';

/**
 * The invoice's Message-ID: the invoice's id at the sender's domain, the same on every attempt,
 * so that a message sent again after an answer was lost is recognisably the same message (mail
 * servers and invoice inboxes that keep Message-IDs drop the second; SMTP itself cannot).
 */
export const invoiceMessageIdOf = (invoiceId: string, from: string): string => `<${invoiceId}@${from.slice(from.lastIndexOf('@') + 1)}>`;

/**
 * The e-mail that delivers an invoice to its buyer (BT-49): a short German text naming the
 * invoice, and the document, byte for byte as stored, attached under its stored file name. The
 * attachment is base64-encoded whatever its content, so no transfer encoding (line endings,
 * long lines) can alter a byte of the XML.
 */
export function invoiceEmailOf(file: TransmittedFile, envelope: TransmissionEnvelope & { buyerEmail: string }, from: string): SendMailOptions {
  return {
    from,
    to: envelope.buyerEmail,
    messageId: invoiceMessageIdOf(envelope.invoiceId, from),
    subject: `Rechnung ${envelope.invoiceNumber}`,
    text: [
      'Sehr geehrte Damen und Herren,',
      '',
      `anbei erhalten Sie unsere Rechnung ${envelope.invoiceNumber} als elektronische Rechnung (XRechnung, Datei ${file.fileName}).`,
      '',
      'Mit freundlichen Grüßen',
    ].join('\n'),
    attachments: [
      {
        filename: file.fileName,
        content: Buffer.from(file.document),
        contentType: documentMediaTypeOf(file.fileName),
        contentTransferEncoding: 'base64',
      },
    ],
  };
}
