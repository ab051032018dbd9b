// Cancelling (DESIGN "Cancel"): a draft at once; an invoice that exists fiscally by a credit
// note created and submitted in the same transaction, cancelled once the credit note is
// delivered (IT) or transmitted (DE); the SdI's answer to an invoice cancelled before it came
// is kept; 409 where there is nothing to cancel.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyChannelNotification } from '../../src/einvoicing/channelNotifications.js';
import { recordInvoiceStateChanged } from '../../src/modules/events/invoiceEvents.js';
import { createTestApp, expectError, json, type TestApp } from '../support/testApp.js';
import {
  deInvoice,
  expectValidXRechnung,
  expectValidFatturaPa,
  getInvoice,
  invoiceAction,
  invoicingFixture,
  itBuyer,
  itInvoice,
  mustCreateInvoice,
  waitForInvoice,
  type InvoicingFixture,
} from '../support/invoices.js';

let t: TestApp;
let fx: InvoicingFixture;
/** The same service without a transmission worker: submitted invoices stay submitted. */
let quiet: TestApp;
let qx: InvoicingFixture;

beforeAll(async () => {
  t = await createTestApp({ EXPORT_POLL_MS: '50', SDI_SIMULATOR_DELAY_MS: '50' });
  fx = await invoicingFixture(t);
  quiet = await createTestApp({ EXPORT_WORKER: 'off' });
  qx = await invoicingFixture(quiet);
});
afterAll(async () => {
  await t.close();
  await quiet.close();
});

const events = async (database: TestApp['database'], id: string) =>
  (await database.prisma.invoiceStateChange.findMany({ where: { invoiceId: id }, orderBy: { id: 'asc' } })).map((change) => `${change.fromState}->${change.toState}`);
const documentOf = async (app: TestApp['app'], headers: Record<string, string>, id: string) =>
  (await app.inject({ method: 'GET', url: `/v1/invoices/${id}/document`, headers })).body;

describe('cancelling a draft', () => {
  it('cancels it; a cancelled invoice cannot be cancelled again', async () => {
    const draft = await mustCreateInvoice(t.app, fx.it, itInvoice());
    const response = await invoiceAction(t.app, fx.it, draft.id, 'cancel');
    expect(response.statusCode).toBe(200);
    expect(json(response)).toMatchObject({ state: 'cancelled', cancellation_credit_note_id: null, invoice_number: null });
    expect(json(response).cancelled_at).toBeTruthy();
    expect(await events(t.database, draft.id)).toEqual(['null->draft', 'draft->cancelled']);
    expectError(await invoiceAction(t.app, fx.it, draft.id, 'cancel'), 409, 'invoice_invalid_state');
    expectError(await invoiceAction(t.app, fx.it, draft.id, 'submit'), 409, 'invoice_invalid_state');
  });
});

describe('cancelling a German invoice', () => {
  it('issues a credit note that is transmitted at once, so the invoice is cancelled at once', async () => {
    const invoice = await mustCreateInvoice(t.app, fx.de, deInvoice({ submit: true }));
    const response = await invoiceAction(t.app, fx.de, invoice.id, 'cancel');
    expect(response.statusCode).toBe(200);
    const cancelled = json(response);
    expect(cancelled).toMatchObject({ state: 'cancelled', cancellation_credit_note_id: expect.stringMatching(/^inv_/) });
    expect(await events(t.database, invoice.id)).toEqual(['null->draft', 'draft->submitted', 'submitted->transmitted', 'transmitted->cancellation_requested', 'cancellation_requested->cancelled']);

    const note = await getInvoice(t.app, fx.de, cancelled.cancellation_credit_note_id);
    expect(note).toMatchObject({
      document_type: 'credit_note',
      state: 'transmitted',
      series: invoice.series,
      references: { original_invoice_id: invoice.id },
      buyer: invoice.buyer,
      line_items: invoice.line_items,
      totals: { ...invoice.totals, net_payable: -invoice.totals.total_gross },
    });
    expect(note.invoice_number).not.toBe(invoice.invoice_number);
    const xml = await documentOf(t.app, fx.de, note.id);
    expect(xml).toContain('<ram:TypeCode>381</ram:TypeCode>');
    expect(xml).toContain(invoice.invoice_number);
    await expectValidXRechnung(xml);
  });
});

describe('cancelling an Italian invoice', () => {
  it('is cancellation_requested until its TD04 credit note is delivered, then cancelled', async () => {
    const invoice = await mustCreateInvoice(t.app, fx.it, itInvoice({ submit: true }));
    await waitForInvoice(t.app, fx.it, invoice.id, (read) => read.state === 'delivered');
    const requested = json(await invoiceAction(t.app, fx.it, invoice.id, 'cancel'));
    expect(requested.state).toBe('cancellation_requested');
    const noteId = requested.cancellation_credit_note_id;
    expect((await getInvoice(t.app, fx.it, noteId)).state).toBe('submitted');

    const cancelled = await waitForInvoice(t.app, fx.it, invoice.id, (read) => read.state === 'cancelled');
    expect(cancelled.cancelled_at).toBeTruthy();
    expect((await getInvoice(t.app, fx.it, noteId)).state).toBe('delivered');
    const xml = await documentOf(t.app, fx.it, noteId);
    expect(xml).toContain('<TipoDocumento>TD04</TipoDocumento>');
    expect(xml).toContain(`<IdDocumento>${invoice.invoice_number}</IdDocumento>`);
    await expectValidFatturaPa(xml);
  });

  it('counts an undeliverable credit note (MC) as issued, and cancels an undeliverable invoice', async () => {
    const invoice = await mustCreateInvoice(
      t.app,
      fx.it,
      itInvoice({ buyer: itBuyer({ legal_name: 'Mario Rossi', tax_id: 'RSSMRA85T10A562S' }), routing: { codice_destinatario: '0000000' }, submit: true }),
    );
    await waitForInvoice(t.app, fx.it, invoice.id, (read) => read.state === 'undeliverable');
    expect(json(await invoiceAction(t.app, fx.it, invoice.id, 'cancel')).state).toBe('cancellation_requested');
    await waitForInvoice(t.app, fx.it, invoice.id, (read) => read.state === 'cancelled');
  });

  it('returns the invoice to its state when the authority rejects the credit note; it can then be cancelled again', async () => {
    const invoice = await mustCreateInvoice(quiet.app, qx.it, itInvoice({ submit: true }));
    // As the SdI would have: received and delivered.
    await quiet.database.prisma.invoice.update({ where: { id: invoice.id }, data: { state: 'delivered', transmissionStatus: 'transmitted', deliveryStatus: 'delivered' } });
    const requested = json(await invoiceAction(quiet.app, qx.it, invoice.id, 'cancel'));
    expect(requested.state).toBe('cancellation_requested');
    expectError(await invoiceAction(quiet.app, qx.it, invoice.id, 'cancel'), 409, 'invoice_invalid_state');

    await quiet.database.prisma.$transaction(async (tx) => {
      const note = await tx.invoice.findUniqueOrThrow({ where: { id: requested.cancellation_credit_note_id } });
      await applyChannelNotification(
        tx,
        note,
        { kind: 'rejected', errors: [{ code: '00404', message: 'duplicate' }] },
        new Date(),
        recordInvoiceStateChanged(quiet.app.ctx.publicBaseUrl),
      );
    });
    const restored = await getInvoice(quiet.app, qx.it, invoice.id);
    expect(restored).toMatchObject({ state: 'delivered', cancellation_credit_note_id: null });
    expect((await events(quiet.database, invoice.id)).slice(-2)).toEqual(['delivered->cancellation_requested', 'cancellation_requested->delivered']);

    const again = json(await invoiceAction(quiet.app, qx.it, invoice.id, 'cancel'));
    expect(again.state).toBe('cancellation_requested');
    expect(again.cancellation_credit_note_id).not.toBe(requested.cancellation_credit_note_id);
  });
});

describe("the authority's answer to an invoice cancelled before it came", () => {
  /** As the SdI would have: the file received, not answered yet. */
  const received = (id: string) =>
    quiet.database.prisma.invoice.update({ where: { id }, data: { state: 'transmitted', transmissionStatus: 'transmitted', authorityIdentifier: '100000000001' } });
  /** An Italian invoice the SdI received but has not answered yet, cancelled: the invoice and its credit note, received too. */
  async function cancelledWhileTransmitted() {
    const invoice = await mustCreateInvoice(quiet.app, qx.it, itInvoice({ submit: true }));
    await received(invoice.id);
    const requested = json(await invoiceAction(quiet.app, qx.it, invoice.id, 'cancel'));
    expect(requested.state).toBe('cancellation_requested');
    await received(requested.cancellation_credit_note_id);
    return { id: invoice.id as string, noteId: requested.cancellation_credit_note_id as string };
  }
  const answer = (id: string, notification: Parameters<typeof applyChannelNotification>[2]) =>
    quiet.database.prisma.$transaction(async (tx) => {
      const invoice = await tx.invoice.findUniqueOrThrow({ where: { id } });
      await applyChannelNotification(tx, invoice, notification, new Date(), recordInvoiceStateChanged(quiet.app.ctx.publicBaseUrl));
    });

  it('delivered: recorded while the cancellation is pending; the invoice is cancelled with the credit note, or back to delivered should it fail', async () => {
    const confirmed = await cancelledWhileTransmitted();
    await answer(confirmed.id, { kind: 'delivered', acceptedAfterDays: 15 });
    expect(await getInvoice(quiet.app, qx.it, confirmed.id)).toMatchObject({ state: 'cancellation_requested', fiscal: { delivery_status: 'delivered' } });
    await answer(confirmed.noteId, { kind: 'delivered', acceptedAfterDays: 15 });
    expect((await getInvoice(quiet.app, qx.it, confirmed.id)).state).toBe('cancelled');
    expect(await events(quiet.database, confirmed.id)).toEqual([
      'null->draft',
      'draft->submitted',
      'transmitted->cancellation_requested',
      'cancellation_requested->cancellation_requested',
      'cancellation_requested->cancelled',
    ]);

    const failed = await cancelledWhileTransmitted();
    await answer(failed.id, { kind: 'undeliverable', errors: [{ code: 'MC', message: 'reserved area' }] });
    await answer(failed.noteId, { kind: 'rejected', errors: [{ code: '00404', message: 'duplicate' }] });
    expect(await getInvoice(quiet.app, qx.it, failed.id)).toMatchObject({ state: 'undeliverable', cancellation_credit_note_id: null, fiscal: { delivery_status: 'undeliverable' } });
  });

  it('rejected: the invoice never existed fiscally and is rejected_by_authority, whatever becomes of the credit note', async () => {
    const { id, noteId } = await cancelledWhileTransmitted();
    await answer(id, { kind: 'rejected', errors: [{ code: '00305', message: 'IdCodice non valido' }] });
    expect(await getInvoice(quiet.app, qx.it, id)).toMatchObject({ state: 'rejected_by_authority', fiscal: { fiscal_errors: [{ code: '00305', message: 'IdCodice non valido' }] } });
    await answer(noteId, { kind: 'delivered', acceptedAfterDays: 15 });
    expect((await getInvoice(quiet.app, qx.it, id)).state).toBe('rejected_by_authority');
    expect((await getInvoice(quiet.app, qx.it, noteId)).state).toBe('delivered');
  });

  it('the transmission worker applies it: an invoice cancelled before the SdI answered gets its delivery, then is cancelled', async () => {
    const slow = await createTestApp({ EXPORT_POLL_MS: '50', SDI_SIMULATOR_DELAY_MS: '1500' });
    try {
      const sx = await invoicingFixture(slow);
      const invoice = await mustCreateInvoice(slow.app, sx.it, itInvoice({ submit: true }));
      await waitForInvoice(slow.app, sx.it, invoice.id, (read) => read.state === 'transmitted');
      expect(json(await invoiceAction(slow.app, sx.it, invoice.id, 'cancel')).state).toBe('cancellation_requested');
      const cancelled = await waitForInvoice(slow.app, sx.it, invoice.id, (read) => read.state === 'cancelled');
      expect(cancelled.fiscal.delivery_status).toBe('delivered');
      expect(await events(slow.database, invoice.id)).toContain('cancellation_requested->cancellation_requested');
    } finally {
      await slow.close();
    }
  });
});

describe('what cannot be cancelled (409 invoice_invalid_state)', () => {
  it('an invoice the authority has not received yet, and a credit note', async () => {
    const waiting = await mustCreateInvoice(quiet.app, qx.it, itInvoice({ submit: true }));
    expect(expectError(await invoiceAction(quiet.app, qx.it, waiting.id, 'cancel'), 409, 'invoice_invalid_state').details).toMatchObject({ state: 'submitted' });

    const original = await mustCreateInvoice(quiet.app, qx.de, deInvoice({ submit: true }));
    const note = await mustCreateInvoice(quiet.app, qx.de, deInvoice({ document_type: 'credit_note', references: { original_invoice_id: original.id }, submit: true }));
    expect(expectError(await invoiceAction(quiet.app, qx.de, note.id, 'cancel'), 409, 'invoice_invalid_state').message).toMatch(/credit note/);
  });
});
