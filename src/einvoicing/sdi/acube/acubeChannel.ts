import type { ChannelAnswer, ChannelReceipt, InvoiceChannel, ReceivedFile, TransmittedFile } from '../../invoiceChannel.js';
import { readSdiFile } from '../sdiFile.js';
import { AcubeApiError } from './acubeApiError.js';
import type { AcubeClient } from './acubeClient.js';
import { acubeInvoiceKeyOf } from './invoiceKey.js';
import { mayFollow, notificationOf, type AcubeNotification } from './acubeNotifications.js';

/** An invoice as A-Cube lists it; only what finding a file again needs. */
interface AcubeInvoice {
  uuid: string;
  invoice_number?: string;
  invoice_date?: string;
}

/** A collection as A-Cube answers it: a JSON array, or API Platform's envelope. */
function membersOf<T>(body: unknown): T[] {
  if (Array.isArray(body)) return body as T[];
  const envelope = (body ?? {}) as Record<string, unknown>;
  const members = envelope['hydra:member'] ?? envelope.member ?? envelope.data;
  return Array.isArray(members) ? (members as T[]) : [];
}

/** A signed file goes as CMS (application/pkcs7-mime), a plain one as FatturaPA XML. */
const mediaTypeOf = (file: TransmittedFile) => (file.fileName.endsWith('.p7m') ? 'application/pkcs7-mime' : 'application/xml');

const unreachable = (error: AcubeApiError): ChannelReceipt => ({
  outcome: 'unreachable',
  errors: [{ code: error.code, message: error.message }],
  ...(error.retryAfterMs !== null ? { retryAfterMs: error.retryAfterMs } : {}),
});

/**
 * The SdI through A-Cube: the file is sent as it is stored (POST /invoices, 202 {uuid}); the
 * uuid is the identifier the invoice keeps, under which its notifications are asked for (GET
 * /invoices/{uuid}/notifications), one not yet applied at a time, oldest first. Nothing is sent
 * twice: before every send the file is looked up in A-Cube's invoices by the seller's partita
 * IVA, its number and its date (a number is never reused, FatturaPA's progressivo neither), so
 * a send whose answer was lost is found rather than repeated.
 */
export function acubeChannel(client: AcubeClient, pollDelayMs: number): InvoiceChannel {
  async function alreadySent(file: TransmittedFile): Promise<string | null> {
    const key = acubeInvoiceKeyOf(file);
    const query = new URLSearchParams({ sender_vat_number: key.senderVatNumber, invoice_number: key.invoiceNumber });
    const invoices = membersOf<AcubeInvoice>(await client.call({ method: 'GET', path: `/invoices?${query}` }));
    const same = invoices.find((invoice) => invoice.invoice_number === key.invoiceNumber && (invoice.invoice_date ?? key.invoiceDate).startsWith(key.invoiceDate));
    return same?.uuid ?? null;
  }

  return {
    name: 'acube',
    pollDelayMs,
    async send(file) {
      try {
        const existing = await alreadySent(file);
        if (existing) return { outcome: 'received', identifier: existing };
        const answer = await client.call<{ uuid?: unknown }>({ method: 'POST', path: '/invoices', body: { content: file.document, contentType: mediaTypeOf(file) } });
        if (typeof answer?.uuid !== 'string') return { outcome: 'unreachable', errors: [{ code: 'ACUBE_UNEXPECTED_ANSWER', message: 'A-Cube POST /invoices answered without the invoice uuid' }] };
        return { outcome: 'received', identifier: answer.uuid };
      } catch (error) {
        if (error instanceof AcubeApiError) return unreachable(error);
        throw error;
      }
    },
    async nextNotification(file: TransmittedFile, received: ReceivedFile): Promise<ChannelAnswer | null> {
      const { format } = readSdiFile(file);
      const listed = membersOf<AcubeNotification>(await client.call({ method: 'GET', path: `/invoices/${encodeURIComponent(received.identifier)}/notifications` }));
      const pending = listed
        .map((entry) => ({ entry, notification: notificationOf(entry, format) }))
        .filter(({ entry, notification }) => notification !== null && !received.appliedNotificationIds.includes(entry.uuid))
        .sort((a, b) => (a.entry.created_at ?? '').localeCompare(b.entry.created_at ?? ''));
      const [next] = pending;
      if (!next) return null;
      return { notification: next.notification!, id: next.entry.uuid, more: pending.length > 1 || mayFollow(next.entry.type, format) };
    },
  };
}
