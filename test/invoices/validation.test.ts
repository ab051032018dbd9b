// Bad invoices are 422 validation_error naming the field (details.field, every violation in
// details.violations) or 400 for a malformed body, before anything is written or numbered.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type TestApp } from '../support/testApp.js';
import { deInvoice, invoiceAction, invoicingFixture, itBuyer, itInvoice, itLine, mustCreateInvoice, postInvoice, type InvoicingFixture } from '../support/invoices.js';

let t: TestApp;
let fx: InvoicingFixture;

beforeAll(async () => {
  t = await createTestApp({ EXPORT_WORKER: 'off' });
  fx = await invoicingFixture(t);
});
afterAll(() => t.close());

async function expectField(headers: Record<string, string>, payload: object, field: string): Promise<void> {
  const before = await t.database.prisma.invoice.count();
  const body = expectError(await postInvoice(t.app, headers, payload), 422, 'validation_error');
  expect(body.details!.field, body.message).toBe(field);
  expect(body.details!.violations.map((violation: { field: string }) => violation.field)).toContain(field);
  expect(await t.database.prisma.invoice.count()).toBe(before);
}

describe('generic rules', () => {
  it('a credit note names a submitted invoice of the organization, of its jurisdiction', async () => {
    await expectField(fx.it, itInvoice({ document_type: 'credit_note' }), 'references.original_invoice_id');
    await expectField(fx.it, itInvoice({ document_type: 'credit_note', references: { original_invoice_id: 'inv_doesnotexist' } }), 'references.original_invoice_id');
    const draft = await mustCreateInvoice(t.app, fx.it, itInvoice());
    await expectField(fx.it, itInvoice({ document_type: 'credit_note', references: { original_invoice_id: draft.id } }), 'references.original_invoice_id');
    const german = await mustCreateInvoice(t.app, fx.de, deInvoice({ submit: true }));
    // Another organization's invoice is as unknown as a missing one.
    await expectField(fx.it, itInvoice({ document_type: 'credit_note', references: { original_invoice_id: german.id } }), 'references.original_invoice_id');
    const italian = await mustCreateInvoice(t.app, fx.it, itInvoice({ submit: true }));
    await expectField(fx.it, itInvoice({ references: { original_invoice_id: italian.id } }), 'references.original_invoice_id');
    await expectField(fx.it, itInvoice({ document_type: 'credit_note', currency: 'USD', references: { original_invoice_id: italian.id } }), 'references.original_invoice_id');
  });

  it('a discount never exceeds its line, and a category fits its rate', async () => {
    await expectField(fx.it, itInvoice({ line_items: [itLine(), itLine({ quantity: '1', unit_price_net: 100, discount: { type: 'amount', amount: 101 } })] }), 'line_items[1].discount.amount');
    await expectField(fx.it, itInvoice({ line_items: [itLine({ tax: { rate: '0.22', category: 'E' } })] }), 'line_items[0].tax.category');
  });

  it('installments add up to the total, and the due date follows the issue date', async () => {
    await expectField(fx.it, itInvoice({ payment_terms: { iban: 'IT60X0542811101000000123456', installments: [{ due_date: '2099-01-01', amount: 100 }] } }), 'payment_terms.installments');
    await expectField(fx.it, itInvoice({ issue_date: '2026-03-10', payment_terms: { due_date: '2026-03-01' } }), 'payment_terms.due_date');
  });

  it('an operation reference names an operation of the organization', async () => {
    await expectField(fx.it, itInvoice({ references: { operation_id: 'op_unknown' } }), 'references.operation_id');
  });
});

describe('FatturaPA rules (IT)', () => {
  it('rate 0 needs a natura code; a natura code needs rate 0', async () => {
    await expectField(fx.it, itInvoice({ line_items: [itLine({ tax: { rate: '0' } })] }), 'line_items[0].nature_code');
    await expectField(fx.it, itInvoice({ line_items: [itLine({ nature_code: 'N4' })] }), 'line_items[0].nature_code');
  });

  it('an Italian buyer needs a VAT id or a codice fiscale; the routing code is required', async () => {
    await expectField(fx.it, itInvoice({ buyer: itBuyer({ tax_id: undefined }) }), 'buyer.tax_id');
    await expectField(fx.it, itInvoice({ routing: undefined }), 'routing.codice_destinatario');
  });

  it('an Italian postal code has five digits, and the payment method is one FatturaPA knows', async () => {
    await expectField(fx.it, itInvoice({ buyer: itBuyer({ address: { line1: 'Via Roma 1', city: 'Torino', postal_code: '1013', country: 'IT' } }) }), 'buyer.address.postal_code');
    await expectField(fx.it, itInvoice({ payment_terms: { method: 'barter' } }), 'payment_terms.method');
  });
});

describe('XRechnung rules (DE)', () => {
  it('needs the buyer reference, the seller contact and both electronic addresses', async () => {
    await expectField(fx.de, deInvoice({ routing: undefined }), 'routing.buyer_reference');
    await expectField(fx.de, deInvoice({ seller: { email: 'r@m.de' } }), 'seller.contact.name');
    await expectField(fx.de, deInvoice({ seller: { contact: { name: 'P', phone: '+49 30 1234567', email: 'p@m.de' } } }), 'seller.email');
    const { email: _email, ...buyerWithoutEmail } = deInvoice().buyer;
    await expectField(fx.de, deInvoice({ buyer: buyerWithoutEmail }), 'buyer.email');
  });
});

describe('malformed requests (400 invalid_request)', () => {
  it('name the field', async () => {
    const cases: [object, string][] = [
      [{ ...itInvoice(), jurisdiction: 'FR' }, 'jurisdiction'],
      [{ ...itInvoice(), line_items: [] }, 'line_items'],
      [itInvoice({ line_items: [itLine({ unit_price_net: 10.5 })] }), 'line_items[0].unit_price_net'],
      [itInvoice({ line_items: [itLine({ quantity: '1.123456789' })] }), 'line_items[0].quantity'],
      [itInvoice({ line_items: [itLine({ tax: { rate: '22' } })] }), 'line_items[0].tax.rate'],
      [itInvoice({ line_items: [itLine({ nature_code: 'N9' })] }), 'line_items[0].nature_code'],
      [itInvoice({ routing: { codice_destinatario: 'abc' } }), 'routing.codice_destinatario'],
      [itInvoice({ series: 'inv 1' }), 'series'],
      [itInvoice({ surprise: true }), 'surprise'],
      [itInvoice({ line_items: [itLine({ tax: { rate: '0.22', included_in_price: true } })] }), 'line_items[0].tax.included_in_price'],
    ];
    for (const [payload, field] of cases) {
      const body = expectError(await postInvoice(t.app, fx.it, payload), 400, 'invalid_request');
      expect(body.details!.field, JSON.stringify(payload)).toBe(field);
    }
  });
});

describe('at submission', () => {
  it('a credit note whose original the authority rejected meanwhile is refused, and nothing is numbered', async () => {
    const original = await mustCreateInvoice(t.app, fx.it, itInvoice({ submit: true }));
    const note = await mustCreateInvoice(t.app, fx.it, itInvoice({ document_type: 'credit_note', series: 'NC', references: { original_invoice_id: original.id } }));
    await t.database.prisma.invoice.update({ where: { id: original.id }, data: { state: 'rejected_by_authority' } });
    const chainBefore = await t.database.prisma.invoiceChain.findUniqueOrThrow({ where: { merchantId_jurisdiction: { merchantId: fx.itOrganizationId, jurisdiction: 'IT' } } });
    const body = expectError(await invoiceAction(t.app, fx.it, note.id, 'submit'), 422, 'validation_error');
    expect(body.details!.field).toBe('references.original_invoice_id');
    expect(await t.database.prisma.invoiceCounter.findMany({ where: { merchantId: fx.itOrganizationId, series: 'NC' } })).toEqual([]);
    expect(await t.database.prisma.invoiceChain.findUniqueOrThrow({ where: { merchantId_jurisdiction: { merchantId: fx.itOrganizationId, jurisdiction: 'IT' } } })).toEqual(chainBefore);
    expect(await t.database.prisma.invoiceTransmissionJob.count({ where: { invoiceId: note.id } })).toBe(0);
  });
});
