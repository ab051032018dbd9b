import type { ChannelAnswer, ChannelError, ChannelReceipt, InvoiceChannel, ReceivedFile, TransmittedFile } from '../../invoiceChannel.js';
import { readSdiFile } from '../sdiFile.js';
import { AcubeApiError } from './acubeApiError.js';
import type { AcubeClient } from './acubeClient.js';
import { acubeInvoiceKeyOf } from './invoiceKey.js';
import { mayFollow, notificationOf, type AcubeNotification } from './acubeNotifications.js';

/**
 * An invoice as A-Cube lists it; only what finding a file again needs. The invoice's number and
 * date are inside `payload`, the FatturaPA document as JSON (a string, or already an object).
 */
interface AcubeInvoice {
  uuid: string;
  sender?: { business_vat_number_code?: string };
  payload?: unknown;
}

/** The Numero and Data of the first (the only) body of a listed invoice's payload. */
function numberAndDateOf(invoice: AcubeInvoice): { numero?: unknown; data?: unknown } {
  let payload = invoice.payload;
  if (typeof payload === 'string') {
    try {
      payload = JSON.parse(payload);
    } catch {
      return {};
    }
  }
  const body = (payload as { fattura_elettronica_body?: unknown } | null)?.fattura_elettronica_body;
  const first = (Array.isArray(body) ? body[0] : body) as { dati_generali?: { dati_generali_documento?: { numero?: unknown; data?: unknown } } } | undefined;
  return first?.dati_generali?.dati_generali_documento ?? {};
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
 * The answers to POST /invoices that refuse the file itself: A-Cube's validation ("HTTP 400 if
 * validation will fail", its docs; 422 from API Platform's own checks). It refuses the file for
 * the SdI, so, as after an NS, the invoice is not issued and the same file would be refused
 * again. Every other failure says nothing about the file and is retried: 401 (after the one
 * renewed token) and 403 (a disabled account) until the account is fixed, 404 until its
 * base_url is, 409 because the next attempt looks the file up before it sends, and 429, 5xx,
 * no answer or a timeout because they pass.
 */
const FILE_REFUSALS: ReadonlySet<number> = new Set([400, 422]);

/** A-Cube's reasons for refusing a file: each violation (where in the file, and what), else its answer. */
const refusalErrorsOf = (error: AcubeApiError): ChannelError[] =>
  error.violations.length > 0
    ? error.violations.map(({ propertyPath, message }) => ({ code: error.code, message: propertyPath ? `${propertyPath}: ${message}` : message }))
    : [{ code: error.code, message: error.message }];

/**
 * The SdI through A-Cube: the file is sent as it is stored (POST /invoices, 202 {uuid}); the
 * uuid is the identifier the invoice keeps, under which its notifications are asked for (GET
 * /invoices/{uuid}/notifications), one not yet applied at a time, oldest first. Nothing is sent
 * twice: before every send the file is looked up in A-Cube's invoices by the seller's partita
 * IVA, its number and its date (a number is never reused, FatturaPA's progressivo neither), so
 * a send whose answer was lost is found rather than repeated. A file A-Cube's validation
 * refuses is `rejected` (FILE_REFUSALS); every other failure leaves it to be sent again.
 */
export function acubeChannel(client: AcubeClient, pollDelayMs: number): InvoiceChannel {
  async function alreadySent(file: TransmittedFile): Promise<string | null> {
    const key = acubeInvoiceKeyOf(file);
    // API Platform's filters; the number's is a partial match, so the listed invoices are checked exactly.
    const query = new URLSearchParams({ 'sender.business_vat_number_code': key.senderVatNumber, invoice_number: key.invoiceNumber });
    const invoices = membersOf<AcubeInvoice>(await client.call({ method: 'GET', path: `/invoices?${query}` }));
    const same = invoices.find((invoice) => {
      const { numero, data } = numberAndDateOf(invoice);
      const sender = invoice.sender?.business_vat_number_code;
      return (sender === undefined || sender === key.senderVatNumber) && numero === key.invoiceNumber && typeof data === 'string' && data.startsWith(key.invoiceDate);
    });
    return same?.uuid ?? null;
  }

  /** POST /invoices: A-Cube's uuid for the file, or its refusal of it; any other failure is thrown. */
  async function handOver(file: TransmittedFile): Promise<ChannelReceipt> {
    try {
      const answer = await client.call<{ uuid?: unknown }>({ method: 'POST', path: '/invoices', body: { content: file.document, contentType: mediaTypeOf(file) } });
      if (typeof answer?.uuid !== 'string') return { outcome: 'unreachable', errors: [{ code: 'ACUBE_UNEXPECTED_ANSWER', message: 'A-Cube POST /invoices answered without the invoice uuid' }] };
      return { outcome: 'received', identifier: answer.uuid };
    } catch (error) {
      if (error instanceof AcubeApiError && error.status !== null && FILE_REFUSALS.has(error.status)) return { outcome: 'rejected', errors: refusalErrorsOf(error) };
      throw error;
    }
  }

  return {
    name: 'acube',
    pollDelayMs,
    async send(file) {
      try {
        const existing = await alreadySent(file);
        return existing ? { outcome: 'received', identifier: existing } : await handOver(file);
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
