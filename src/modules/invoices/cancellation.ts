import type { AppContext } from '../../context.js';
import type { Invoice, Merchant } from '../../db/generated/client.js';
import { sqlOf } from '../../db/sql.js';
import type { Tx } from '../../db/transaction.js';
import { CANCELLABLE_BY_CREDIT_NOTE, type InvoiceState } from '../../domain/invoices/invoiceStates.js';
import { changeInvoiceState, invalidState } from '../../einvoicing/invoiceStateChange.js';
import type { Finalize } from '../common/transactions.js';
import { totalsFor, type InvoiceContentData } from './invoiceContent.js';
import { contentDataOf } from './preparation.js';
import { insertDraft, lockOwnInvoice, wakeTransmissions } from './service.js';
import { submitDraft } from './submission.js';
import { recordInvoiceStateChanged } from '../events/invoiceEvents.js';

/**
 * The credit note that cancels an invoice in full: the same parties, lines, amounts, routing
 * and payment terms, in the same series, dated the day it is submitted, referring to the
 * invoice (FatturaPA DatiFattureCollegate, XRechnung BT-25).
 */
function creditNoteOf(invoice: Invoice): InvoiceContentData {
  const original = contentDataOf(invoice);
  return {
    ...original,
    documentType: 'credit_note',
    issueDate: null,
    totals: totalsFor(original.totals, 'credit_note'),
    notes: [`Cancels invoice ${invoice.invoiceNumber} of ${invoice.issueDate}`],
    references: {
      operation_id: original.references.operation_id,
      original_invoice_id: invoice.id,
      delivery_date: original.references.delivery_date,
      purchase_order_ref: original.references.purchase_order_ref,
      contract_ref: original.references.contract_ref,
    },
  };
}

async function cancelByCreditNote(ctx: AppContext, tx: Tx, organization: Merchant, invoice: Invoice): Promise<{ invoice: Invoice; creditNote: Invoice }> {
  const draft = await insertDraft(ctx, tx, organization, creditNoteOf(invoice), {});
  const requested = await changeInvoiceState(tx, invoice, {
    event: 'cancellation_requested',
    at: ctx.clock(),
    update: { cancellationCreditNoteId: draft.id },
    details: { credit_note_id: draft.id },
  }, recordInvoiceStateChanged(ctx.publicBaseUrl));
  const creditNote = await submitDraft(ctx, tx, organization, draft);
  // Where the credit note was transmitted at once, submitDraft has already cancelled the invoice.
  return { invoice: (await tx.invoice.findUnique({ where: { id: requested.id } }))!, creditNote };
}

/**
 * Cancels an invoice (DESIGN "Cancel"): a draft is cancelled; an invoice that exists fiscally
 * (transmitted, delivered, accepted, undeliverable) gets a credit note, created and submitted
 * in this transaction, and is cancellation_requested until the credit note is delivered
 * (transmitted, where there is no clearance). Anything else is 409 invoice_invalid_state:
 * rejected_by_authority never existed fiscally, and a credit note is not cancelled by another.
 */
export async function cancelInvoice(ctx: AppContext, organization: Merchant, id: string, finalize?: Finalize<Invoice>): Promise<Invoice> {
  let creditNote: Invoice | null = null;
  const cancelled = await ctx.db.$transaction(async (tx) => {
    const invoice = await lockOwnInvoice(tx, organization, id);
    const state = invoice.state as InvoiceState;
    let result: Invoice;
    if (state === 'draft') {
      const at = ctx.clock();
      result = await changeInvoiceState(tx, invoice, { event: 'cancelled_as_draft', at, update: { cancelledAt: at } }, recordInvoiceStateChanged(ctx.publicBaseUrl));
    } else if (state === 'rejected_by_authority') {
      throw invalidState(invoice, 'The authority rejected this invoice, so it never existed fiscally: there is nothing to cancel. Correct it and submit a new invoice.');
    } else if (!CANCELLABLE_BY_CREDIT_NOTE.includes(state)) {
      throw invalidState(invoice, `An invoice in state ${state} cannot be cancelled${state === 'submitted' ? ' until its authority has received it' : ''}`);
    } else if (invoice.documentType === 'credit_note') {
      throw invalidState(invoice, 'A credit note is not cancelled by another credit note; issue a new invoice instead');
    } else {
      ({ invoice: result, creditNote } = await cancelByCreditNote(ctx, tx, organization, invoice));
    }
    await finalize?.(sqlOf(tx), result);
    return result;
  });
  if (creditNote) wakeTransmissions(ctx, creditNote);
  return cancelled;
}
