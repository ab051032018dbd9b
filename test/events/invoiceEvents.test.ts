// invoice.state_changed: one event per state change of an invoice, creation included, written in
// the change's transaction (the worker's changes too), the invoice as GET /v1/invoices/{id}
// shows it; a submission that rolls back writes none.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, json, type TestApp } from '../support/testApp.js';
import { getInvoice, invoiceAction, invoicingFixture, itInvoice, mustCreateInvoice, waitForInvoice, type InvoicingFixture } from '../support/invoices.js';

let t: TestApp;
let fx: InvoicingFixture;

beforeAll(async () => {
  t = await createTestApp({ EXPORT_POLL_MS: '50', SDI_SIMULATOR_DELAY_MS: '50' });
  fx = await invoicingFixture(t);
});
afterAll(() => t.close());

/** The invoice.state_changed events about `id`, oldest first. */
async function stateEvents(id: string): Promise<any[]> {
  const page = json(await t.app.inject({ method: 'GET', url: '/v1/events?type=invoice.state_changed&limit=100', headers: fx.it }));
  return page.data.filter((event: any) => event.data.object.id === id).reverse();
}

describe('invoice.state_changed', () => {
  it('reports an Italian invoice created, submitted, transmitted and delivered, each time as the API showed it', async () => {
    const invoice = await mustCreateInvoice(t.app, fx.it, itInvoice());
    await invoiceAction(t.app, fx.it, invoice.id, 'submit');
    const delivered = await waitForInvoice(t.app, fx.it, invoice.id, (read) => read.state === 'delivered');

    const events = await stateEvents(invoice.id);
    expect(events.map((event) => [event.data.previous_state, event.data.object.state])).toEqual([
      [null, 'draft'],
      ['draft', 'submitted'],
      ['submitted', 'transmitted'],
      ['transmitted', 'delivered'],
    ]);
    for (const event of events) expect(event).toMatchObject({ type: 'invoice.state_changed', organization_id: fx.itOrganizationId });
    expect(events[0].data.object).toMatchObject({ invoice_number: null, submit: false, links: { document: null } });
    expect(events[1].data.object.fiscal).toMatchObject({ transmission_status: 'pending', chain_hash: delivered.fiscal.chain_hash });
    expect(events[3].data.object).toEqual(delivered);
  });

  it('a submission refused at validation (422, rolled back) writes none', async () => {
    const original = await mustCreateInvoice(t.app, fx.it, itInvoice({ submit: true }));
    const note = await mustCreateInvoice(t.app, fx.it, itInvoice({ document_type: 'credit_note', series: 'NC', references: { original_invoice_id: original.id } }));
    await t.database.prisma.invoice.update({ where: { id: original.id }, data: { state: 'rejected_by_authority' } });
    expectError(await invoiceAction(t.app, fx.it, note.id, 'submit'), 422, 'validation_error');

    expect((await stateEvents(note.id)).map((event) => event.data.object.state)).toEqual(['draft']);
    expect((await getInvoice(t.app, fx.it, note.id)).state).toBe('draft');
  });
});
