// The invoice resource (contract 2.10, DESIGN "E-invoicing"): drafts and their changes,
// submission, the stored document (valid against the official schemas), the PDF, idempotency
// and tenancy.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/modules/admin/service.js';
import { createTenantWithKey, createTestApp, deuMerchantBody, auth, expectError, json, type TestApp } from '../support/testApp.js';
import { orgAuth, platformKey, uuid } from '../support/styleO.js';
import { expectDerivedTotals } from '../support/styleO.js';
import { requireTools } from '../support/tools.js';
import {
  deInvoice,
  expectValidXRechnung,
  expectValidFatturaPa,
  getInvoice,
  invoiceAction,
  invoicingFixture,
  itBuyer,
  itInvoice,
  itLine,
  mustCreateInvoice,
  postInvoice,
  SELLER_PIVA,
  type InvoicingFixture,
} from '../support/invoices.js';

let t: TestApp;
let fx: InvoicingFixture;

beforeAll(async () => {
  t = await createTestApp({ EXPORT_WORKER: 'off' });
  fx = await invoicingFixture(t);
});
afterAll(() => t.close());

const documentOf = async (headers: Record<string, string>, id: string) => t.app.inject({ method: 'GET', url: `/v1/invoices/${id}/document`, headers });

describe('a draft', () => {
  it('takes the seller from the organization and derives every amount', async () => {
    const invoice = await mustCreateInvoice(t.app, fx.it, itInvoice({ metadata: { order: 'A-17' } }));
    expect(invoice).toMatchObject({
      object: 'invoice',
      organization_id: fx.itOrganizationId,
      jurisdiction: 'IT',
      document_type: 'invoice',
      state: 'draft',
      series: 'INV',
      invoice_number: null,
      issue_date: null,
      currency: 'EUR',
      submit: false,
      metadata: { order: 'A-17' },
      seller: {
        legal_name: 'Rossi Forniture Srl',
        tax_id: `IT${SELLER_PIVA}`,
        tax_id_type: 'vat_id',
        address: { line1: 'Via Dante 12', city: 'Milano', postal_code: '20121', country: 'IT', line2: null, state: null },
      },
      buyer: { tax_id: 'IT01234567897', tax_id_type: 'vat_id' },
      fiscal: { jurisdiction: 'IT', transmission_status: 'not_submitted', chain_hash: null, authority_identifier: null, fiscal_errors: [], jurisdiction_data: null },
      links: { document: null, pdf: null },
    });
    expect(invoice.line_items[0]).toEqual({
      description: 'Consulenza tecnica',
      quantity: '2',
      unit_price_net: 15000,
      tax: { rate: '0.22', category: 'S', included_in_price: false },
      unit: null,
      discount: null,
      product_ref: null,
      nature_code: null,
      line_total_net: 30000,
      line_total_tax: 6600,
      line_total_gross: 36600,
    });
    expect(invoice.totals).toMatchObject({ total_net: 32500, total_tax: 6700, total_gross: 39200, net_payable: 39200 });
    expectDerivedTotals(invoice.totals);
  });

  it('computes discounts by amount and rate, and the VAT category from rate and natura', async () => {
    const invoice = await mustCreateInvoice(
      t.app,
      fx.it,
      itInvoice({
        line_items: [
          itLine({ quantity: '3', unit_price_net: 1001, discount: { type: 'rate', rate: '0.15', label: 'Promo' } }),
          itLine({ quantity: 1.5, unit_price_net: 2000, discount: { type: 'amount', amount: 250 } }),
          itLine({ description: 'Servizio esente', quantity: '1', unit_price_net: 5000, tax: { rate: '0' }, nature_code: 'N4' }),
          itLine({ description: 'Reverse charge', quantity: '1', unit_price_net: 7000, tax: { rate: '0' }, nature_code: 'N6.3' }),
        ],
      }),
    );
    const lines = invoice.line_items;
    expect(lines[0]).toMatchObject({ discount: { type: 'rate', rate: '0.15', amount: 450, label: 'Promo', source: null }, line_total_net: 2553 });
    expect(lines[1]).toMatchObject({ quantity: '1.5', discount: { type: 'amount', amount: 250, rate: null }, line_total_net: 2750 });
    expect(lines[2].tax).toEqual({ rate: '0', category: 'E', included_in_price: false });
    expect(lines[3].tax.category).toBe('AE');
    // One VAT row per (rate, category, natura), taxed once: 53.03 × 22 % = 11.6666 -> 11.67.
    expect(invoice.totals.tax_breakdown).toEqual([
      { rate: '0.22', category: 'S', nature_code: null, taxable_amount: 5303, tax_amount: 1167, total_gross: 6470 },
      { rate: '0', category: 'E', nature_code: 'N4', taxable_amount: 5000, tax_amount: 0, total_gross: 5000 },
      { rate: '0', category: 'AE', nature_code: 'N6.3', taxable_amount: 7000, tax_amount: 0, total_gross: 7000 },
    ]);
    expect(lines[0].line_total_tax + lines[1].line_total_tax).toBe(1167);
    expectDerivedTotals(invoice.totals);
  });

  it('merges the seller fields sent over the organization defaults', async () => {
    const invoice = await mustCreateInvoice(t.app, fx.de, deInvoice({ seller: { legal_name: 'Müller Werkzeuge GmbH & Co. KG', contact: { name: 'Petra Müller', phone: '+49 30 1', email: 'p@m.de' }, email: 'r@m.de' } }));
    expect(invoice.seller).toEqual({
      legal_name: 'Müller Werkzeuge GmbH & Co. KG',
      tax_id: 'DE123456789',
      tax_id_type: 'vat_id',
      address: { line1: 'Friedrichstraße 1', line2: null, city: 'Berlin', state: null, postal_code: '10117', country: 'DE' },
      sdi_code: null,
      pec_address: null,
      contact: { name: 'Petra Müller', phone: '+49 30 1', email: 'p@m.de' },
      email: 'r@m.de',
    });
  });

  it('changes with PATCH: each field sent replaces the stored one, metadata key by key', async () => {
    const draft = await mustCreateInvoice(t.app, fx.it, itInvoice({ metadata: { a: '1', b: '2' } }));
    const patched = await t.app.inject({
      method: 'PATCH',
      url: `/v1/invoices/${draft.id}`,
      headers: fx.it,
      payload: { line_items: [itLine({ quantity: '1', unit_price_net: 10000 })], notes: ['Consegna a cantiere'], series: 'FT', metadata: { b: null, c: 'x' } },
    });
    expect(patched.statusCode).toBe(200);
    expect(json(patched)).toMatchObject({ series: 'FT', notes: ['Consegna a cantiere'], metadata: { a: '1', c: 'x' }, totals: { total_net: 10000, total_tax: 2200 } });
    expect(json(patched).metadata).not.toHaveProperty('b');
    expect(json(patched).buyer.legal_name).toBe('Bianchi Costruzioni SpA');

    const asCreditNote = await t.app.inject({ method: 'PATCH', url: `/v1/invoices/${draft.id}`, headers: fx.it, payload: { document_type: 'credit_note' } });
    expectError(asCreditNote, 422, 'validation_error');
    expect(asCreditNote.json().details.field).toBe('references.original_invoice_id');
  });

  it('cannot be changed once submitted (409 invoice_invalid_state)', async () => {
    const submitted = await mustCreateInvoice(t.app, fx.it, itInvoice({ submit: true }));
    expect(submitted.state).toBe('submitted');
    const patch = await t.app.inject({ method: 'PATCH', url: `/v1/invoices/${submitted.id}`, headers: fx.it, payload: { notes: ['x'] } });
    expect(expectError(patch, 409, 'invoice_invalid_state').details).toMatchObject({ state: 'submitted' });
    expectError(await invoiceAction(t.app, fx.it, submitted.id, 'submit'), 409, 'invoice_invalid_state');
  });
});

describe('submitting', () => {
  it('numbers the invoice, stores its FatturaPA document unchanged and chains it (IT, FPR12)', async () => {
    const draft = await mustCreateInvoice(t.app, fx.it, itInvoice({ series: 'B2B', issue_date: '2026-01-15', references: { purchase_order_ref: 'PO-4711' } }));
    const response = await invoiceAction(t.app, fx.it, draft.id, 'submit');
    expect(response.statusCode).toBe(200);
    const invoice = json(response);
    expect(invoice).toMatchObject({
      state: 'submitted',
      submit: true,
      invoice_number: 'B2B/2026/1',
      issue_date: '2026-01-15',
      fiscal: { transmission_status: 'pending', jurisdiction_data: { format: 'FPR12', file_name: expect.stringMatching(new RegExp(`^IT${SELLER_PIVA}_[0-9A-Z]{5}\\.xml$`)) } },
      links: { document: `http://localhost:3000/v1/invoices/${draft.id}/document`, pdf: `http://localhost:3000/v1/invoices/${draft.id}/pdf` },
    });
    expect(invoice.fiscal.chain_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(invoice.submitted_at).toBeTruthy();

    const document = await documentOf(fx.it, draft.id);
    expect(document.statusCode).toBe(200);
    expect(document.headers['content-type']).toBe('application/xml');
    expect(document.headers['content-disposition']).toBe(`attachment; filename="${invoice.fiscal.jurisdiction_data.file_name}"`);
    const stored = await t.database.prisma.invoice.findUniqueOrThrow({ where: { id: draft.id } });
    expect(document.rawPayload.equals(Buffer.from(stored.document!))).toBe(true);
    expect(document.body).toContain('<Numero>B2B/2026/1</Numero>');
    expect(document.body).toContain('<IdDocumento>PO-4711</IdDocumento>');
    await expectValidFatturaPa(document.body);
  });

  it('builds a consumer invoice with 0000000 and a PEC address (FPA12, signed, in signing.test.ts)', async () => {
    const consumer = await mustCreateInvoice(
      t.app,
      fx.it,
      itInvoice({
        buyer: itBuyer({ legal_name: 'Mario Rossi', tax_id: 'RSSMRA85T10A562S' }),
        routing: { codice_destinatario: '0000000', pec_address: 'mario.rossi@pec.it' },
        line_items: [itLine({ tax: { rate: '0' }, nature_code: 'N2.2' })],
        submit: true,
      }),
    );
    expect(consumer.buyer).toMatchObject({ tax_id: 'RSSMRA85T10A562S', tax_id_type: 'tax_code' });
    const consumerXml = (await documentOf(fx.it, consumer.id)).body;
    expect(consumerXml).toContain('<CodiceFiscale>RSSMRA85T10A562S</CodiceFiscale>');
    expect(consumerXml).toContain('<PECDestinatario>mario.rossi@pec.it</PECDestinatario>');
    expect(consumerXml).toContain('<Natura>N2.2</Natura>');
    await expectValidFatturaPa(consumerXml);
  });

  it('takes the routing code from the buyer\'s sdi_code when routing leaves it out', async () => {
    const invoice = await mustCreateInvoice(t.app, fx.it, itInvoice({ routing: undefined, buyer: itBuyer({ sdi_code: 'XYZ7654' }), submit: true }));
    expect((await documentOf(fx.it, invoice.id)).body).toContain('<CodiceDestinatario>XYZ7654</CodiceDestinatario>');
  });

  it('makes an XRechnung of a German invoice and transmits it at once (DE)', async () => {
    const invoice = await mustCreateInvoice(t.app, fx.de, deInvoice({ submit: true, references: { purchase_order_ref: 'B-2026-9' } }));
    expect(invoice).toMatchObject({ state: 'transmitted', fiscal: { transmission_status: 'transmitted', delivery_status: null, authority_identifier: null } });
    expect(invoice.fiscal.transmitted_at).toBe(invoice.submitted_at);
    expect(invoice.fiscal.jurisdiction_data).toMatchObject({ file_name: expect.stringMatching(/\.xml$/), customization_id: expect.stringContaining('xrechnung_3.0') });
    const xml = (await documentOf(fx.de, invoice.id)).body;
    expect(xml).toContain('rsm:CrossIndustryInvoice');
    expect(xml).toContain('04011000-12345-67');
    await expectValidXRechnung(xml);
  });

  it('refuses an issue date after today, before numbering anything', async () => {
    const draft = await mustCreateInvoice(t.app, fx.it, itInvoice({ series: 'FUT', issue_date: '2999-01-01', payment_terms: undefined }));
    const response = await invoiceAction(t.app, fx.it, draft.id, 'submit');
    expect(expectError(response, 422, 'validation_error').details!.field).toBe('issue_date');
    expect(await t.database.prisma.invoiceCounter.findMany({ where: { merchantId: fx.itOrganizationId, series: 'FUT' } })).toEqual([]);
    expect((await getInvoice(t.app, fx.it, draft.id)).state).toBe('draft');
  });
});

describe('a credit note', () => {
  it('refers to its original in the document (TD04, DatiFattureCollegate; XRechnung 381 with BT-25)', async () => {
    const original = await mustCreateInvoice(t.app, fx.it, itInvoice({ submit: true }));
    const note = await mustCreateInvoice(
      t.app,
      fx.it,
      itInvoice({ document_type: 'credit_note', references: { original_invoice_id: original.id }, line_items: [itLine({ quantity: '1' })], submit: true }),
    );
    expect(note.totals.net_payable).toBe(-note.totals.total_gross);
    const xml = (await documentOf(fx.it, note.id)).body;
    expect(xml).toContain('<TipoDocumento>TD04</TipoDocumento>');
    expect(xml).toMatch(new RegExp(`<DatiFattureCollegate>\\s*<IdDocumento>${original.invoice_number}</IdDocumento>\\s*<Data>${original.issue_date}</Data>`));
    await expectValidFatturaPa(xml);

    const deOriginal = await mustCreateInvoice(t.app, fx.de, deInvoice({ submit: true }));
    const deNote = await mustCreateInvoice(t.app, fx.de, deInvoice({ document_type: 'credit_note', references: { original_invoice_id: deOriginal.id }, submit: true }));
    const deXml = (await documentOf(fx.de, deNote.id)).body;
    expect(deXml).toContain('<ram:TypeCode>381</ram:TypeCode>');
    expect(deXml).toContain(deOriginal.invoice_number);
    await expectValidXRechnung(deXml);
  });
});

describe('the PDF', () => {
  it('is a readable A4 document of the invoice, in the jurisdiction\'s language', async (context) => {
    const invoice = await mustCreateInvoice(t.app, fx.it, itInvoice({ submit: true, notes: ['Grazie per la fiducia'] }));
    const response = await t.app.inject({ method: 'GET', url: `/v1/invoices/${invoice.id}/pdf`, headers: fx.it });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/pdf');
    expect(response.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    requireTools(context, 'pdftotext');
    const dir = mkdtempSync(join(tmpdir(), 'invoice-pdf-'));
    try {
      writeFileSync(join(dir, 'i.pdf'), response.rawPayload);
      const text = execFileSync('pdftotext', ['-layout', join(dir, 'i.pdf'), '-'], { encoding: 'utf8' });
      for (const expected of ['Fattura', invoice.invoice_number, 'Rossi Forniture Srl', 'Bianchi Costruzioni SpA', 'Consulenza tecnica', '392,00 EUR', '66,00 EUR', 'IT60X0542811101000000123456', 'Grazie per la fiducia', invoice.fiscal.jurisdiction_data.file_name]) {
        expect(text).toContain(expected);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('marks a draft as no fiscal document, in German for DE', async (context) => {
    const draft = await mustCreateInvoice(t.app, fx.de, deInvoice());
    const response = await t.app.inject({ method: 'GET', url: `/v1/invoices/${draft.id}/pdf`, headers: fx.de });
    expect(response.statusCode).toBe(200);
    requireTools(context, 'pdftotext');
    const dir = mkdtempSync(join(tmpdir(), 'invoice-pdf-'));
    try {
      writeFileSync(join(dir, 'd.pdf'), response.rawPayload);
      const text = execFileSync('pdftotext', ['-layout', join(dir, 'd.pdf'), '-'], { encoding: 'utf8' });
      expect(text).toContain('Rechnung');
      expect(text).toContain('ENTWURF');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the document of a draft', () => {
  it('does not exist yet (409)', async () => {
    const draft = await mustCreateInvoice(t.app, fx.it, itInvoice());
    expectError(await documentOf(fx.it, draft.id), 409, 'invoice_invalid_state');
  });
});

describe('idempotency', () => {
  it('replays a create with the same key and payload, and refuses another payload (409)', async () => {
    const key = uuid();
    const first = await postInvoice(t.app, fx.it, itInvoice({ submit: true }), key);
    const again = await postInvoice(t.app, fx.it, itInvoice({ submit: true }), key);
    expect(first.statusCode).toBe(201);
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(json(again)).toEqual(json(first));
    expect(await t.database.prisma.invoice.count({ where: { id: json(first).id } })).toBe(1);
    expectError(await postInvoice(t.app, fx.it, itInvoice({ notes: ['other'] }), key), 409, 'idempotency_key_conflict');
    expectError(await postInvoice(t.app, fx.it, itInvoice(), 'not-a-uuid'), 400, 'invalid_request');
  });

  it('replays a submit', async () => {
    const draft = await mustCreateInvoice(t.app, fx.it, itInvoice());
    const key = uuid();
    const headers = { ...fx.it, 'idempotency-key': key };
    const first = await invoiceAction(t.app, headers, draft.id, 'submit');
    const again = await invoiceAction(t.app, headers, draft.id, 'submit');
    expect(first.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(json(again).invoice_number).toBe(json(first).invoice_number);
  });
});

describe('tenancy', () => {
  it('hides another organization\'s invoices (404), also from another tenant', async () => {
    const invoice = await mustCreateInvoice(t.app, fx.it, itInvoice());
    for (const action of ['submit', 'cancel'] as const) expectError(await invoiceAction(t.app, fx.de, invoice.id, action), 404, 'not_found');
    expectError(await t.app.inject({ method: 'GET', url: `/v1/invoices/${invoice.id}`, headers: fx.de }), 404, 'not_found');
    expectError(await t.app.inject({ method: 'PATCH', url: `/v1/invoices/${invoice.id}`, headers: fx.de, payload: { notes: [] } }), 404, 'not_found');
    expectError(await documentOf(fx.de, invoice.id), 404, 'not_found');
    expectError(await t.app.inject({ method: 'GET', url: `/v1/invoices/${invoice.id}/pdf`, headers: fx.de }), 404, 'not_found');

    const other = await createTenantWithKey(t.database, 'DEU');
    const otherMerchant = json(await t.app.inject({ method: 'POST', url: '/v1/merchants', headers: auth(other.apiKey), payload: deuMerchantBody() }));
    const otherKey = await platformKey(t.database, other.tenantId);
    expectError(await t.app.inject({ method: 'GET', url: `/v1/invoices/${invoice.id}`, headers: orgAuth(otherKey, otherMerchant.id) }), 404, 'not_found');
    // The organization itself is invisible to another tenant's platform key.
    expectError(await t.app.inject({ method: 'GET', url: `/v1/invoices/${invoice.id}`, headers: orgAuth(otherKey, fx.itOrganizationId) }), 404, 'not_found');
  });

  it('lets an organization key act without Service-Organization, and needs it with a platform key', async () => {
    const { apiKey } = await createApiKey(t.database.prisma, fx.tenantId, 'test', { kind: 'organization', organization_id: fx.itOrganizationId });
    const invoice = await mustCreateInvoice(t.app, orgAuth(apiKey), itInvoice());
    expect(invoice.organization_id).toBe(fx.itOrganizationId);
    expectError(await postInvoice(t.app, orgAuth(fx.platformKey), itInvoice()), 400, 'invalid_request');
  });

  it('takes the seller tax id from the fiscal identity of the jurisdiction\'s country only', async () => {
    const response = await postInvoice(t.app, fx.de, itInvoice());
    expect(expectError(response, 422, 'validation_error').details!.field).toBe('seller.tax_id');
  });
});
