import { B2B_ACCEPTANCE_DAYS } from '../sandboxSdi.js';
import type { ChannelError, ChannelNotification } from '../../invoiceChannel.js';

/**
 * A notification as A-Cube lists it (GET /invoices/{uuid}/notifications): the SdI's message
 * (MessaggiTypes 1.1) in JSON with snake_case names, and A-Cube's uuid for it.
 */
export interface AcubeNotification {
  uuid: string;
  created_at?: string;
  type: string;
  message?: Record<string, unknown> | null;
}

const textOf = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value : null);

/** NS's lista_errori: one Errore or a list of them, each {Codice, Descrizione} (A-Cube keeps the SdI's element names there). */
function scartoErrors(message: Record<string, unknown>): ChannelError[] {
  const list = (message.lista_errori ?? {}) as Record<string, unknown>;
  const entries = list.Errore ?? list.errore ?? [];
  return (Array.isArray(entries) ? entries : [entries]).flatMap((entry) => {
    const error = (entry ?? {}) as Record<string, unknown>;
    const code = textOf(error.Codice ?? error.codice);
    return code ? [{ code, message: textOf(error.Descrizione ?? error.descrizione) ?? 'Scarto' }] : [];
  });
}

/**
 * The SdI's notifications as the invoice's events (reference italy.md §10): RC delivered, NS
 * rejected with its error codes, MC undeliverable, NE EC01 recipient_accepted, NE EC02
 * recipient_refused, DT deadline_passed. AT (a public administration's invoice the SdI could
 * not deliver for 10 days after its MC) is the SdI's word that the file counts as transmitted
 * though never delivered: the invoice's state machine has that state, undeliverable, which the
 * MC already gave it; AT maps to undeliverable too, so an AT after MC changes nothing (the
 * transition does not apply) and an AT whose MC was never seen still ends in the right state.
 * Types outside these (A-Cube's own, or ones to the recipient) give null.
 */
export function notificationOf(notification: AcubeNotification, format: string): ChannelNotification | null {
  const message = notification.message ?? {};
  const description = textOf(message.descrizione) ?? textOf(message.note);
  switch (notification.type) {
    case 'RC':
      return { kind: 'delivered', acceptedAfterDays: format === 'FPR12' ? B2B_ACCEPTANCE_DAYS : null };
    case 'NS': {
      const errors = scartoErrors(message);
      return { kind: 'rejected', errors: errors.length > 0 ? errors : [{ code: 'NS', message: description ?? 'Notifica di scarto' }] };
    }
    case 'MC':
      return { kind: 'undeliverable', errors: [{ code: 'MC', message: description ?? "Mancata consegna: the invoice is in the recipient's reserved area of the Agenzia delle Entrate and counts as issued" }] };
    case 'AT':
      return { kind: 'undeliverable', errors: [{ code: 'AT', message: description ?? 'Attestazione di avvenuta trasmissione con impossibilità di recapito' }] };
    case 'NE': {
      const outcome = (message.esito_committente ?? {}) as Record<string, unknown>;
      if (outcome.esito === 'EC01') return { kind: 'recipient_accepted' };
      if (outcome.esito === 'EC02') return { kind: 'recipient_refused', errors: [{ code: 'EC02', message: textOf(outcome.descrizione) ?? 'Rifiutata dal committente' }] };
      return null;
    }
    case 'DT':
      return { kind: 'deadline_passed' };
    default:
      return null;
  }
}

/**
 * Whether the SdI may still notify after this notification: a public administration's
 * invoice (FPA12) gets NE or DT after its RC, and AT after its MC; nothing follows otherwise.
 */
export const mayFollow = (type: string, format: string): boolean => format === 'FPA12' && (type === 'RC' || type === 'MC');
