import type { ChannelError, ChannelNotification } from '../../invoiceChannel.js';
import { B2B_ACCEPTANCE_DAYS } from '../sandboxSdi.js';
import type { SdiNotification } from './notificationFile.js';

/** NS 00404: the SdI already holds this invoice (same seller, number, date and type) from an earlier file. */
export const DUPLICATE_INVOICE = '00404';

const describedErrors = (errors: readonly { code: string; description: string }[]): ChannelError[] =>
  errors.map(({ code, description }) =>
    code === DUPLICATE_INVOICE
      ? { code, message: `${description || 'Fattura duplicata'}: the SdI already holds this invoice from an earlier file; a person must check whether that one was delivered before the invoice is issued again` }
      : { code, message: description || `Scartata con codice ${code}` },
  );

/**
 * What a notification means for the invoice, whose format (FPA12 to a public administration,
 * FPR12 otherwise) the file says. RC: delivered; a B2B invoice counts as accepted 15 days later
 * (the sandbox's rule). NS: rejected with its ListaErrori. MC: undeliverable (B2B: in the
 * buyer's reserved area, issued). NE: the administration's EC01 or EC02. DT: its 15 days passed.
 * AT: undeliverable, because AT attests that the SdI transmitted the invoice (it exists
 * fiscally, unlike after NS) but could not deliver it (so not delivered) and no acceptance or
 * term follows; the issuer must deliver it to the administration by other means.
 */
export function channelNotificationOf(notification: SdiNotification, format: string): ChannelNotification {
  switch (notification.type) {
    case 'RC':
      return { kind: 'delivered', acceptedAfterDays: format === 'FPR12' ? B2B_ACCEPTANCE_DAYS : null };
    case 'NS':
      return { kind: 'rejected', errors: describedErrors(notification.errors) };
    case 'MC':
      return {
        kind: 'undeliverable',
        errors: [{ code: 'MC', message: notification.description ?? "Mancata consegna: the invoice is in the recipient's reserved area of the Agenzia delle Entrate and counts as issued" }],
      };
    case 'NE':
      return notification.outcome === 'EC01'
        ? { kind: 'recipient_accepted' }
        : { kind: 'recipient_refused', errors: [{ code: 'EC02', message: notification.description ?? 'Rifiutata dal committente' }] };
    case 'DT':
      return { kind: 'deadline_passed' };
    case 'AT':
      return {
        kind: 'undeliverable',
        errors: [{ code: 'AT', message: 'Attestazione di avvenuta trasmissione con impossibilità di recapito: the invoice counts as transmitted; deliver it to the public administration by other means' }],
      };
  }
}
