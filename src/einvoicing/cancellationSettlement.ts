import type { Tx } from '../db/transaction.js';
import type { Invoice } from '../db/generated/client.js';
import { STATE_OF_ANSWER, type InvoiceEvent, type InvoiceState } from '../domain/invoices/invoiceStates.js';
import { changeInvoiceState, lockInvoice, type InvoiceStateObserver } from './invoiceStateChange.js';

/**
 * What a cancellation's credit note settles (DESIGN "Cancel"): once it exists fiscally
 * (delivered or undeliverable through the SdI, transmitted where there is no clearance), the
 * invoice it cancels is cancelled; when the authority rejects it, the invoice returns to the
 * state it had before (or that the authority's answer to it gave it meanwhile), and can be
 * cancelled again. An invoice whose cancellation is not pending on this credit note (the
 * authority rejected the invoice itself meanwhile) is left alone.
 */
export async function settleCancellation(
  tx: Tx,
  creditNote: Invoice,
  outcome: 'confirmed' | 'failed',
  at: Date,
  observer: InvoiceStateObserver,
): Promise<Invoice | null> {
  const pending = await tx.invoice.findFirst({ where: { cancellationCreditNoteId: creditNote.id, state: 'cancellation_requested' }, select: { id: true } });
  const original = pending ? await lockInvoice(tx, pending.id) : null;
  if (!original || original.state !== 'cancellation_requested') return null;
  if (outcome === 'confirmed') {
    return changeInvoiceState(tx, original, {
      event: 'cancellation_confirmed',
      at,
      update: { cancelledAt: at },
      details: { credit_note_id: creditNote.id, credit_note_state: creditNote.state },
    }, observer);
  }
  const request = await tx.invoiceStateChange.findFirst({
    where: { invoiceId: original.id, event: 'cancellation_requested' },
    orderBy: { id: 'desc' },
  });
  // The authority's answer to the invoice itself, when it came while the cancellation was pending, is where it stands now.
  const answer = request && (await tx.invoiceStateChange.findFirst({
    where: { invoiceId: original.id, id: { gt: request.id }, event: { in: Object.keys(STATE_OF_ANSWER) } },
    orderBy: { id: 'desc' },
  }));
  return changeInvoiceState(tx, original, {
    event: 'cancellation_failed',
    at,
    previous: (answer ? STATE_OF_ANSWER[answer.event as InvoiceEvent] : (request?.fromState ?? undefined)) as InvoiceState | undefined,
    update: { cancellationCreditNoteId: null },
    details: { credit_note_id: creditNote.id, credit_note_state: creditNote.state },
  }, observer);
}
