// Cancelling (DESIGN "Cancel"): a draft at once; an invoice that exists fiscally by a credit
// note created and submitted in the same transaction, cancelled once the credit note is
// delivered (IT) or transmitted (DE); 409 where there is nothing to cancel.
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

describe('what cannot be cancelled (409 invoice_invalid_state)', () => {
  it('an invoice the authority has not received yet, and a credit note', async () => {
    const waiting = await mustCreateInvoice(quiet.app, qx.it, itInvoice({ submit: true }));
    expect(expectError(await invoiceAction(quiet.app, qx.it, waiting.id, 'cancel'), 409, 'invoice_invalid_state').details).toMatchObject({ state: 'submitted' });

    const original = await mustCreateInvoice(quiet.app, qx.de, deInvoice({ submit: true }));
    const note = await mustCreateInvoice(quiet.app, qx.de, deInvoice({ document_type: 'credit_note', references: { original_invoice_id: original.id }, submit: true }));
    expect(expectError(await invoiceAction(quiet.app, qx.de, note.id, 'cancel'), 409, 'invoice_invalid_state').message).toMatch(/credit note/);
  });
});
