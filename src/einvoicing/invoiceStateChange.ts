import type { Tx } from '../db/transaction.js';
import type { Invoice, Prisma } from '../db/generated/client.js';
import { conflict } from '../domain/errors.js';
import { nextInvoiceState, type InvoiceEvent, type InvoiceState } from '../domain/invoices/invoiceStates.js';

/**
 * What else follows every state change of an invoice in its transaction (the
 * `invoice.state_changed` event): given the invoice as it is now and the state it left (null
 * when it was just created). app.ts and the worker fill it from modules/events, where the
 * invoice's presenter lives.
 */
export type InvoiceStateObserver = (tx: Tx, invoice: Invoice, previousState: InvoiceState | null) => Promise<void>;

/**
 * Records that an invoice (as it is after the change) entered its state (from `from`, null
 * when it was just created), when and why, in the caller's transaction: the one place every
 * state change of an invoice passes, so whatever must follow each change (its history, the
 * observer's event) follows every one.
 */
export async function recordInvoiceStateChange(
  tx: Tx,
  invoice: Invoice,
  change: { from: InvoiceState | null; event: InvoiceEvent; at: Date; details?: Record<string, unknown> },
  observer: InvoiceStateObserver,
): Promise<void> {
  await tx.invoiceStateChange.create({
    data: {
      invoiceId: invoice.id,
      fromState: change.from,
      toState: invoice.state,
      event: change.event,
      details: (change.details ?? {}) as Prisma.InputJsonValue,
      changedAt: change.at,
    },
  });
  await observer(tx, invoice, change.from);
}

export interface InvoiceStateChange {
  event: InvoiceEvent;
  at: Date;
  /** Columns that change with the state (timestamps, fiscal fields). */
  update?: Prisma.InvoiceUpdateInput;
  details?: Record<string, unknown>;
  /** For `cancellation_failed`: the state the invoice had before its cancellation was requested. */
  previous?: InvoiceState;
}

export const invalidState = (invoice: Pick<Invoice, 'id' | 'state'>, message: string) =>
  conflict('invoice_invalid_state', message, { invoice_id: invoice.id, state: invoice.state });

/**
 * Moves an invoice (read in this transaction, its row locked by the caller) along the state
 * table of domain/invoices/invoiceStates.ts and records the change; 409 invoice_invalid_state
 * when the event cannot happen in its state.
 */
export async function changeInvoiceState(tx: Tx, invoice: Invoice, change: InvoiceStateChange, observer: InvoiceStateObserver): Promise<Invoice> {
  const from = invoice.state as InvoiceState;
  const to = nextInvoiceState(from, change.event, change.previous);
  if (!to) throw invalidState(invoice, `An invoice in state ${from} cannot be ${change.event.replace(/_/g, ' ')}`);
  const updated = await tx.invoice.update({
    where: { id: invoice.id },
    data: { ...change.update, state: to, updatedAt: change.at },
  });
  await recordInvoiceStateChange(tx, updated, { from, event: change.event, at: change.at, details: change.details }, observer);
  return updated;
}

/** Locks an invoice's row for the rest of the transaction and reads it; null when there is none. */
export async function lockInvoice(tx: Tx, id: string): Promise<Invoice | null> {
  await tx.$queryRaw`SELECT id FROM invoices WHERE id = ${id} FOR UPDATE`;
  return tx.invoice.findUnique({ where: { id } });
}
