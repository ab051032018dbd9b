// The stored invoice as its document sees it (the port of src/einvoicing/einvoiceFormat.ts), and
// what the sandbox's SdI makes of the FatturaPA built from it.
import { describe, expect, it } from 'vitest';
import type { InvoiceLineData, InvoicePartyData } from '../../src/domain/invoices/invoiceData.js';
import { invoiceAmounts } from '../../src/domain/invoices/invoiceTotals.js';
import { fatturaPaFormat } from '../../src/einvoicing/fatturapa/index.js';
import { invoiceContentOf, invoiceDocumentOf, type StoredInvoiceContent } from '../../src/einvoicing/invoiceContentOf.js';
import { signCades } from '../../src/einvoicing/cades/signCades.js';
import { sandboxOutcome, sandboxSdi, signatureRejection } from '../../src/einvoicing/sdi/sandboxSdi.js';
import { readSdiFile } from '../../src/einvoicing/sdi/sdiFile.js';
import { unconfiguredSdi } from '../../src/einvoicing/sdi/unconfiguredSdi.js';
import type { TransmissionEnvelope } from '../../src/einvoicing/invoiceChannel.js';
import { makeCertificate } from '../support/certificates.js';

/** The SdI addresses the file by its content: the envelope is the worker's, unused here. */
const ENVELOPE: TransmissionEnvelope = { invoiceId: 'inv_1', invoiceNumber: 'A-2025-1', buyerEmail: null };

const party = (overrides: Partial<InvoicePartyData> = {}): InvoicePartyData => ({
  legal_name: 'Rossi Forniture Srl',
  tax_id: 'IT12345678903',
  tax_id_type: 'vat_id',
  address: { line1: 'Via Dante 12', line2: null, city: 'Milano', state: 'MI', postal_code: '20121', country: 'IT' },
  sdi_code: null,
  pec_address: null,
  contact: null,
  email: null,
  ...overrides,
});

function stored(overrides: Partial<StoredInvoiceContent> = {}): StoredInvoiceContent {
  const { lines, totals } = invoiceAmounts(
    [
      { quantity: '2', unitPriceNet: 1000, discount: { type: 'rate', rate: '0.1' }, rate: '0.22', category: 'S', natureCode: null },
      { quantity: '1', unitPriceNet: 500, discount: null, rate: '0', category: 'E', natureCode: 'N4' },
    ],
    { creditNote: false },
  );
  const line = (i: number, description: string, extra: Partial<InvoiceLineData>): InvoiceLineData => ({
    description,
    quantity: i === 0 ? '2' : '1',
    unit_price_net: i === 0 ? 1000 : 500,
    tax: { rate: i === 0 ? '0.22' : '0', category: i === 0 ? 'S' : 'E', included_in_price: false },
    unit: null,
    discount: null,
    product_ref: null,
    nature_code: null,
    line_total_net: lines[i].net,
    line_total_tax: lines[i].tax,
    line_total_gross: lines[i].gross,
    ...extra,
  });
  return {
    jurisdiction: 'IT',
    documentType: 'invoice',
    issueDate: '2026-03-10',
    currency: 'EUR',
    seller: party(),
    buyer: party({ legal_name: 'Bianchi SpA', tax_id: 'IT01234567897', sdi_code: 'XYZ7654', contact: { name: null, phone: null, email: null } }),
    lines: [
      line(0, 'Consulenza', { unit: 'HUR', product_ref: 'C-1', discount: { source: null, type: 'rate', label: 'Promo', rate: '0.1', amount: 200 } }),
      line(1, 'Formazione', { nature_code: 'N4' }),
    ],
    totals,
    paymentTerms: { method: null, due_date: '2026-04-10', iban: 'IT60X0542811101000000123456', installments: [] },
    routing: { codice_destinatario: null, pec_address: null, buyer_reference: null },
    notes: ['Grazie'],
    references: { operation_id: null, original_invoice_id: null, delivery_date: '2026-03-09', purchase_order_ref: 'PO-1', contract_ref: null },
    originalInvoice: null,
    ...overrides,
  };
}

describe('the content of a stored invoice', () => {
  it('resolves the parties, the lines, the VAT rows and the routing', () => {
    const content = invoiceContentOf(stored());
    expect(content.seller).toEqual({
      legalName: 'Rossi Forniture Srl',
      vatId: 'IT12345678903',
      taxCode: null,
      address: { line1: 'Via Dante 12', line2: null, city: 'Milano', state: 'MI', postalCode: '20121', country: 'IT' },
      contact: null,
      email: null,
    });
    expect(content.buyer.contact).toBeNull();
    expect(content.lines).toEqual([
      {
        position: 1,
        description: 'Consulenza',
        quantity: '2',
        unit: 'HUR',
        productRef: 'C-1',
        unitPriceNet: 1000,
        discount: { amount: 200, label: 'Promo', rate: '0.1' },
        netAmount: 1800,
        taxAmount: 396,
        grossAmount: 2196,
        vatRate: '0.22',
        vatCategory: 'S',
        natureCode: null,
      },
      expect.objectContaining({ position: 2, natureCode: 'N4', vatCategory: 'E', netAmount: 500, taxAmount: 0 }),
    ]);
    expect(content.vatBreakdown).toEqual([
      { vatRate: '0.22', vatCategory: 'S', natureCode: null, taxableAmount: 1800, taxAmount: 396 },
      { vatRate: '0', vatCategory: 'E', natureCode: 'N4', taxableAmount: 500, taxAmount: 0 },
    ]);
    expect(content.totals).toEqual({ net: 2300, tax: 396, gross: 2696 });
    // The buyer's sdi_code stands in for a routing code left out.
    expect(content.routing).toEqual({ codiceDestinatario: 'XYZ7654', pecAddress: null, buyerReference: null });
    expect(content.references).toEqual({ originalInvoice: null, purchaseOrderRef: 'PO-1', contractRef: null, deliveryDate: '2026-03-09' });
    expect(content.paymentTerms).toEqual({ method: null, dueDate: '2026-04-10', iban: 'IT60X0542811101000000123456', installments: [] });
  });

  it('splits a tax code from a VAT id, and prefers the routing to the buyer\'s own codes', () => {
    const content = invoiceContentOf(
      stored({
        buyer: party({ tax_id: 'RSSMRA85T10A562S', tax_id_type: 'tax_code', sdi_code: 'XYZ7654', pec_address: 'a@pec.it' }),
        routing: { codice_destinatario: '0000000', pec_address: 'b@pec.it', buyer_reference: 'R-1' },
      }),
    );
    expect(content.buyer).toMatchObject({ vatId: null, taxCode: 'RSSMRA85T10A562S' });
    expect(content.routing).toEqual({ codiceDestinatario: '0000000', pecAddress: 'b@pec.it', buyerReference: 'R-1' });
  });

  it('numbers a submitted document', () => {
    const document = invoiceDocumentOf(invoiceContentOf(stored()), 'INV/2026/7', 7);
    expect(document).toMatchObject({ invoiceNumber: 'INV/2026/7', transmissionSequence: 7, issueDate: '2026-03-10' });
  });
});

describe('the sandbox SdI', () => {
  const file = (overrides: Partial<StoredInvoiceContent> = {}) => {
    const built = fatturaPaFormat.build(invoiceDocumentOf(invoiceContentOf(stored(overrides)), 'INV/2026/1', 1));
    return { fileName: built.fileName, document: Buffer.from(built.xml, 'utf8') };
  };

  it('reads the routing and the buyer from the file', () => {
    expect(readSdiFile(file())).toEqual({ format: 'FPR12', codiceDestinatario: 'XYZ7654', pecDestinatario: null, buyerVatId: { country: 'IT', code: '01234567897' } });
    expect(() => readSdiFile({ fileName: 'x.xml', document: Buffer.from('<x/>') })).toThrow();
  });

  it('delivers, rejects a wrong check digit (00305), and cannot deliver 0000000 without PEC', () => {
    expect(sandboxOutcome(readSdiFile(file()))).toEqual({ kind: 'delivered', acceptedAfterDays: 15 });
    const pa = file({ routing: { codice_destinatario: 'UFABCD', pec_address: null, buyer_reference: null } });
    expect(sandboxOutcome(readSdiFile(pa))).toEqual({ kind: 'delivered', acceptedAfterDays: null });
    expect(sandboxOutcome(readSdiFile(file({ buyer: party({ tax_id: 'IT01234567890', sdi_code: 'XYZ7654' }) })))).toMatchObject({ kind: 'rejected', errors: [{ code: '00305' }] });
    const consumer = party({ tax_id: 'RSSMRA85T10A562S', tax_id_type: 'tax_code' });
    expect(sandboxOutcome(readSdiFile(file({ buyer: consumer, routing: { codice_destinatario: '0000000', pec_address: null, buyer_reference: null } }))).kind).toBe('undeliverable');
    expect(sandboxOutcome(readSdiFile(file({ buyer: consumer, routing: { codice_destinatario: '0000000', pec_address: 'x@pec.it', buyer_reference: null } }))).kind).toBe('delivered');
  });

  it('checks the signature before the invoice: an expired certificate is NS 00100, an unsigned FPA12 NS 00102', async () => {
    const signed = async (certificate: Awaited<ReturnType<typeof makeCertificate>>, unsigned = file()) => ({
      fileName: `${unsigned.fileName}.p7m`,
      document: await signCades({ certificateDer: certificate.der, privateKeyPem: certificate.keyPem, content: unsigned.document, signedAt: new Date() }),
    });
    const valid = await signed(await makeCertificate());
    expect(await signatureRejection(valid, readSdiFile(valid), new Date())).toBeNull();
    expect(await sandboxSdi(10).nextNotification(valid, { identifier: '1', receivedAt: new Date(), appliedNotificationIds: [] })).toEqual({ notification: { kind: 'delivered', acceptedAfterDays: 15 }, more: false });

    // The certificate is judged when the SdI received the file, however late the answer is asked for.
    const expiring = await makeCertificate({ notBefore: new Date(Date.now() - 10 * 86_400_000), notAfter: new Date(Date.now() + 60_000) });
    const late = await signed(expiring);
    expect(await sandboxSdi(10).nextNotification(late, { identifier: '1', receivedAt: new Date(), appliedNotificationIds: [] })).toEqual({ notification: { kind: 'delivered', acceptedAfterDays: 15 }, more: false });
    expect(await sandboxSdi(10).nextNotification(late, { identifier: '1', receivedAt: new Date(Date.now() + 120_000), appliedNotificationIds: [] })).toEqual({
      notification: { kind: 'rejected', errors: [{ code: '00100', message: expect.stringMatching(/^Certificato di firma scaduto: the signer certificate expired on /) }] },
      more: false,
    });

    const pa = file({ routing: { codice_destinatario: 'UFABCD', pec_address: null, buyer_reference: null } });
    expect(await signatureRejection(pa, readSdiFile(pa), new Date())).toMatchObject({ kind: 'rejected', errors: [{ code: '00102', message: expect.stringContaining('FPA12') }] });
    expect(await signatureRejection(file(), readSdiFile(file()), new Date())).toBeNull();
  });

  it('receives every file with a numeric identifier, and answers for public administrations only', async () => {
    const sdi = sandboxSdi(10);
    const receipt = await sdi.send(file(), ENVELOPE);
    expect(receipt).toEqual({ outcome: 'received', identifier: expect.stringMatching(/^\d{12}$/) });
    expect(await sdi.nextNotification(file(), { identifier: '1', receivedAt: new Date(), appliedNotificationIds: [] })).toEqual({ notification: { kind: 'delivered', acceptedAfterDays: 15 }, more: false });
    expect(sdi.simulateRecipient!(file(), 'recipient_accepted')).toMatchObject({ refused: expect.stringContaining('FPA12') });
    const pa = file({ routing: { codice_destinatario: 'UFABCD', pec_address: null, buyer_reference: null } });
    expect(sdi.simulateRecipient!(pa, 'recipient_refused')).toMatchObject({ kind: 'recipient_refused', errors: [{ code: 'EC02' }] });
    expect(sdi.simulateRecipient!(pa, 'deadline_passed')).toEqual({ kind: 'deadline_passed' });
  });

  it('in production is not there: nothing is ever received', async () => {
    expect(await unconfiguredSdi.send(file(), ENVELOPE)).toMatchObject({ outcome: 'unreachable', errors: [{ code: 'SDI_NOT_CONFIGURED' }] });
    expect(await unconfiguredSdi.nextNotification(file(), { identifier: '1', receivedAt: new Date(), appliedNotificationIds: [] })).toBeNull();
    expect(unconfiguredSdi.simulateRecipient).toBeUndefined();
  });
});
