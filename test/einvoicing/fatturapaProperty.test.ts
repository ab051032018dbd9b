// The promise of the validation rules: an invoice they accept always builds a document the
// official XSD accepts and whose sums hold. Random invoices, mostly valid, some with text
// outside Latin-1, control characters, long fields, odd quantities and codes.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fatturaPaFormat } from '../../src/einvoicing/fatturapa/index.js';
import type { InvoiceParty } from '../../src/einvoicing/invoiceDocument.js';
import { invoice, line } from './fatturapaFixtures.js';
import { brokenSums } from './fatturapaRead.js';
import { fatturaPaSchemaErrors } from './fatturapaXsd.js';

/** Rarely the odd value: about one field in forty, so that a good share of invoices has none. */
const mostly = <T, U>(usual: fc.Arbitrary<T>, odd: fc.Arbitrary<U>) => fc.oneof({ weight: 40, arbitrary: usual }, { weight: 1, arbitrary: odd });

const charsUpTo = (last: number) => fc.integer({ min: 0x20, max: last }).map((code) => String.fromCharCode(code));
/** Latin-1 (or ASCII) text, rarely anything: astral characters, control characters, empty, too long. */
const text = (maxLength: number, last = 0xff) =>
  mostly(fc.string({ unit: charsUpTo(last), minLength: 1, maxLength }), fc.string({ unit: 'binary', maxLength: maxLength + 5 }));
const ascii = (maxLength: number) => text(maxLength, 0x7e);

const quantity = fc
  .tuple(fc.boolean(), fc.integer({ min: 0, max: 5000 }), mostly(fc.integer({ min: 0, max: 6 }), fc.constant(7)), fc.integer({ min: 0, max: 9_999_999 }))
  .map(([negative, whole, places, fraction]) => `${negative ? '-' : ''}${whole}${places ? `.${String(fraction).padStart(7, '0').slice(0, places)}` : ''}`);

const tax = fc.oneof(
  { weight: 24, arbitrary: fc.constantFrom('0.22', '0.1', '0.05', '0.04').map((vatRate) => ({ vatRate, natureCode: null })) },
  { weight: 16, arbitrary: fc.constantFrom('N1', 'N2.1', 'N2.2', 'N3.1', 'N3.2', 'N3.4', 'N3.6', 'N4', 'N5', 'N6.2', 'N6.9', 'N7').map((natureCode) => ({ vatRate: '0', natureCode })) },
  { weight: 1, arbitrary: fc.constantFrom({ vatRate: '0', natureCode: null }, { vatRate: '0.19', natureCode: null }, { vatRate: '0', natureCode: 'N3' }) },
);

const lineSpec = fc.record({
  description: text(1000),
  quantity,
  unitPriceNet: fc.integer({ min: 0, max: 10_000_000 }),
  discount: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: -50_000, max: 50_000 }) }),
  tax,
  unit: fc.option(ascii(10)),
  productRef: fc.option(text(35)),
});

const party = (country: fc.Arbitrary<string>) =>
  fc.record({
    legalName: text(80),
    line1: text(40),
    line2: fc.option(text(20)),
    city: text(60),
    state: fc.option(mostly(fc.constantFrom('MI', 'RM', 'mi'), fc.constant('Lazio'))),
    postalCode: mostly(fc.stringMatching(/^[0-9]{5}$/), fc.constantFrom('1012 LG', 'SW1A 1AA', '123')),
    country,
  });

const toParty = (p: { legalName: string; line1: string; line2: string | null; city: string; state: string | null; postalCode: string; country: string }, ids: Pick<InvoiceParty, 'vatId' | 'taxCode'>): InvoiceParty => ({
  legalName: p.legalName,
  ...ids,
  address: { line1: p.line1, line2: p.line2, city: p.city, state: p.state, postalCode: p.postalCode, country: p.country },
  contact: null,
  email: null,
});

const buyerIds = fc.constantFrom<Pick<InvoiceParty, 'vatId' | 'taxCode'>>(
  { vatId: 'IT09876543210', taxCode: null },
  { vatId: null, taxCode: 'VRDMRA80A01H501U' },
  { vatId: 'DE123456789', taxCode: null },
  { vatId: null, taxCode: null },
  { vatId: 'FR12345678901', taxCode: 'ABC-123' },
  { vatId: 'IT1234', taxCode: null },
);

const invoiceArbitrary = fc
  .record({
    lines: fc.array(lineSpec, { minLength: 1, maxLength: 6 }),
    seller: party(fc.constant('IT')),
    buyer: party(fc.constantFrom('IT', 'DE', 'NL', 'US')),
    buyerIds,
    routing: fc.record({
      codiceDestinatario: mostly(fc.constantFrom('ABC1234', '0000000', 'UF7XQZ', 'XXXXXXX'), fc.constant('abc1234')),
      pecAddress: fc.option(mostly(fc.emailAddress(), fc.constant('no address'))),
      buyerReference: fc.constant(null),
    }),
    notes: fc.array(text(450), { maxLength: 3 }),
    documentType: fc.constantFrom('invoice', 'simplified_invoice', 'credit_note', 'debit_note', 'deferred_invoice', 'self_invoice' as const),
    purchaseOrderRef: fc.option(ascii(20)),
    paymentMethod: fc.option(mostly(fc.constantFrom('cash', 'Bank Transfer', 'card', 'riba'), fc.constant('bitcoin'))),
    installments: fc.boolean(),
    transmissionSequence: fc.integer({ min: 1, max: 60_466_175 }),
  })
  .map((r) => {
    const lines = r.lines.map((spec, i) => line(i + 1, { ...spec, vatRate: spec.tax.vatRate, natureCode: spec.tax.natureCode }));
    const draft = invoice({ lines });
    const gross = draft.totals.gross;
    return invoice({
      lines,
      documentType: r.documentType,
      seller: toParty(r.seller, { vatId: 'IT01234567890', taxCode: '01234567890' }),
      buyer: toParty(r.buyer, r.buyerIds),
      routing: r.routing,
      notes: r.notes,
      references: {
        originalInvoice: r.documentType === 'credit_note' || r.documentType === 'debit_note' ? { invoiceNumber: 'FT/2025/1', issueDate: '2025-01-15' } : null,
        purchaseOrderRef: r.purchaseOrderRef,
        contractRef: null,
        deliveryDate: null,
      },
      paymentTerms: {
        method: r.paymentMethod,
        dueDate: '2025-07-31',
        iban: 'IT60X0542811101000000123456',
        installments: r.installments ? [{ dueDate: '2025-07-31', amount: gross - Math.trunc(gross / 2) }, { dueDate: '2025-08-31', amount: Math.trunc(gross / 2) }] : [],
      },
      transmissionSequence: r.transmissionSequence,
    });
  });

describe('FatturaPA validation rules against the XSD', () => {
  it('an invoice without violations builds a document the XSD accepts, with exact sums', { timeout: 120_000 }, async () => {
    const built: string[] = [];
    fc.assert(
      fc.property(invoiceArbitrary, (document) => {
        if (fatturaPaFormat.violations(document).length > 0) return;
        const { xml } = fatturaPaFormat.build(document);
        expect(brokenSums(xml)).toEqual([]);
        built.push(xml);
      }),
      { numRuns: 500 },
    );
    // The property is only as strong as the share of invoices that reach the schema.
    expect(built.length).toBeGreaterThan(50);
    // One schema run for all documents; an error names the file, fattura-<index in built>.xml.
    expect(await fatturaPaSchemaErrors(...built)).toEqual([]);
  });
});
