import { describe, expect, it } from 'vitest';
import type { InvoiceDocument, InvoiceParty } from '../../src/einvoicing/invoiceDocument.js';
import { xrechnungFormat } from '../../src/einvoicing/xrechnung/index.js';
import { germanBuyer, germanInvoice, germanSeller, type LineSpec } from '../support/xrechnungInvoices.js';

const check = (invoice: InvoiceDocument) => xrechnungFormat.violations(invoice);
/** field -> rule of every violation. */
const fieldsOf = (invoice: InvoiceDocument) => check(invoice).map((violation) => [violation.field, violation.details?.rule]);

const withSeller = (seller: Partial<InvoiceParty>) => germanInvoice({ seller: { ...germanSeller(), ...seller } });
const withBuyer = (buyer: Partial<InvoiceParty>) => germanInvoice({ buyer: { ...germanBuyer(), ...buyer } });
const withLines = (lineSpecs: LineSpec[], overrides: Partial<InvoiceDocument> = {}) => germanInvoice({ lineSpecs, ...overrides });
const withTerms = (terms: Partial<NonNullable<InvoiceDocument['paymentTerms']>>) => {
  const invoice = germanInvoice();
  return { ...invoice, paymentTerms: { ...invoice.paymentTerms!, ...terms } };
};

describe('XRechnung violations', () => {
  it('a complete invoice has none', () => {
    expect(check(germanInvoice())).toEqual([]);
  });

  it('each is a validation_error naming the request field and the rule', () => {
    const [violation] = check(germanInvoice({ routing: { codiceDestinatario: null, pecAddress: null, buyerReference: null } }));
    expect(violation).toEqual({
      code: 'validation_error',
      field: 'routing.buyer_reference',
      message: 'A buyer reference (Leitweg-ID for public buyers) is required (XRechnung, BR-DE-15)',
      details: { rule: 'BR-DE-15' },
    });
  });

  it('buyer reference BT-10 (BR-DE-15): missing or blank', () => {
    for (const buyerReference of [null, '  ']) {
      expect(fieldsOf(germanInvoice({ routing: { codiceDestinatario: null, pecAddress: null, buyerReference } }))).toEqual([['routing.buyer_reference', 'BR-DE-15']]);
    }
  });

  it('seller contact BG-6: name, phone and e-mail (BR-DE-5, -6, -7), a phone with three digits (BR-DE-27), an e-mail address (BR-DE-28)', () => {
    expect(fieldsOf(withSeller({ contact: null }))).toEqual([
      ['seller.contact.name', 'BR-DE-5'],
      ['seller.contact.phone', 'BR-DE-6'],
      ['seller.contact.email', 'BR-DE-7'],
    ]);
    const contact = germanSeller().contact!;
    expect(fieldsOf(withSeller({ contact: { ...contact, name: ' ' } }))).toEqual([['seller.contact.name', 'BR-DE-5']]);
    expect(fieldsOf(withSeller({ contact: { ...contact, phone: null } }))).toEqual([['seller.contact.phone', 'BR-DE-6']]);
    expect(fieldsOf(withSeller({ contact: { ...contact, phone: '+4' } }))).toEqual([['seller.contact.phone', 'BR-DE-27']]);
    expect(fieldsOf(withSeller({ contact: { ...contact, email: null } }))).toEqual([['seller.contact.email', 'BR-DE-7']]);
    for (const email of ['erika', 'erika@', '@muster.de', 'erika.@muster.de', 'erika@.muster.de', '.erika@muster.de', 'erika@muster.de.', 'er ika@muster.de', 'a@b@c.de']) {
      expect(fieldsOf(withSeller({ contact: { ...contact, email } })), email).toEqual([['seller.contact.email', 'BR-DE-28']]);
    }
  });

  it('electronic addresses BT-34 and BT-49: required e-mail addresses', () => {
    expect(fieldsOf(withSeller({ email: null }))).toEqual([['seller.email', 'PEPPOL-EN16931-R020']]);
    expect(fieldsOf(withSeller({ email: 'not an address' }))).toEqual([['seller.email', 'PEPPOL-EN16931-R020']]);
    expect(fieldsOf(withBuyer({ email: '' }))).toEqual([['buyer.email', 'PEPPOL-EN16931-R010']]);
    expect(fieldsOf(withBuyer({ email: 'ap@' }))).toEqual([['buyer.email', 'PEPPOL-EN16931-R010']]);
  });

  it('addresses: city and post code of seller (BR-DE-3, -4) and buyer (BR-DE-8, -9), an ISO country (BR-09, BR-11)', () => {
    const seller = germanSeller();
    const buyer = germanBuyer();
    expect(fieldsOf(withSeller({ address: { ...seller.address, city: '' } }))).toEqual([['seller.address.city', 'BR-DE-3']]);
    expect(fieldsOf(withSeller({ address: { ...seller.address, postalCode: ' ' } }))).toEqual([['seller.address.postal_code', 'BR-DE-4']]);
    expect(fieldsOf(withSeller({ address: { ...seller.address, country: 'Germany' } }))).toEqual([['seller.address.country', 'BR-09']]);
    expect(fieldsOf(withBuyer({ address: { ...buyer.address, city: '' } }))).toEqual([['buyer.address.city', 'BR-DE-8']]);
    expect(fieldsOf(withBuyer({ address: { ...buyer.address, postalCode: '' } }))).toEqual([['buyer.address.postal_code', 'BR-DE-9']]);
    expect(fieldsOf(withBuyer({ address: { ...buyer.address, country: 'de' } }))).toEqual([['buyer.address.country', 'BR-11']]);
  });

  it('names (BR-06, BR-07)', () => {
    expect(fieldsOf(withSeller({ legalName: ' ' }))).toEqual([['seller.legal_name', 'BR-06']]);
    expect(fieldsOf(withBuyer({ legalName: '' }))).toEqual([['buyer.legal_name', 'BR-07']]);
  });

  it('seller tax identity: a VAT id or a tax number (BR-DE-16), with its country prefix (BR-CO-09)', () => {
    expect(fieldsOf(withSeller({ vatId: null, taxCode: null }))).toEqual([['seller.tax_id', 'BR-DE-16']]);
    expect(fieldsOf(withSeller({ vatId: null }))).toEqual([]);
    expect(fieldsOf(withSeller({ taxCode: null }))).toEqual([]);
    expect(fieldsOf(withSeller({ vatId: '123456789' }))).toEqual([['seller.tax_id', 'BR-CO-09']]);
    expect(fieldsOf(withBuyer({ vatId: '987654321' }))).toEqual([['buyer.tax_id', 'BR-CO-09']]);
  });

  it('reverse charge and intra-community supplies need both VAT ids, exports the seller\'s (BR-AE-02, BR-IC-02, BR-G-02)', () => {
    const noSellerVat = { seller: { ...germanSeller(), vatId: null } };
    const noBuyerVat = { buyer: { ...germanBuyer(), vatId: null } };
    expect(fieldsOf(withLines([{ unitPriceNet: 100_00, rate: '0', category: 'AE' }], noSellerVat))).toEqual([['seller.tax_id', 'BR-AE-02']]);
    expect(fieldsOf(withLines([{ unitPriceNet: 100_00, rate: '0', category: 'AE' }], noBuyerVat))).toEqual([['buyer.tax_id', 'BR-AE-02']]);
    expect(fieldsOf(withLines([{ unitPriceNet: 100_00, rate: '0', category: 'K' }], noSellerVat))).toEqual([['seller.tax_id', 'BR-IC-02']]);
    expect(fieldsOf(withLines([{ unitPriceNet: 100_00, rate: '0', category: 'K' }], noBuyerVat))).toEqual([['buyer.tax_id', 'BR-IC-02']]);
    expect(fieldsOf(withLines([{ unitPriceNet: 100_00, rate: '0', category: 'G' }], noSellerVat))).toEqual([['seller.tax_id', 'BR-G-02']]);
    expect(fieldsOf(withLines([{ unitPriceNet: 100_00, rate: '0', category: 'G' }], noBuyerVat))).toEqual([]);
    expect(fieldsOf(withLines([{ unitPriceNet: 100_00, rate: '0', category: 'E' }], noSellerVat))).toEqual([]);
  });

  it('not subject to VAT (O) hides VAT ids, so the seller needs its tax number (BR-O-02, BR-CO-26), and allows no other category (BR-O-12)', () => {
    const notSubject = { unitPriceNet: 100_00, rate: '0', category: 'O' };
    expect(fieldsOf(withLines([notSubject]))).toEqual([]);
    expect(fieldsOf(withLines([notSubject], { seller: { ...germanSeller(), taxCode: null } }))).toEqual([['seller.tax_id', 'BR-CO-26']]);
    expect(fieldsOf(withLines([notSubject, { unitPriceNet: 10_00 }]))).toEqual([['line_items[1].tax.category', 'BR-O-12']]);
  });

  it('lines: at least one (BR-16), a description (BR-25), a price not below 0 (BR-27)', () => {
    expect(fieldsOf(withLines([]))).toEqual([['line_items', 'BR-16']]);
    expect(fieldsOf(withLines([{ unitPriceNet: 10_00 }, { unitPriceNet: 10_00, description: ' ' }]))).toEqual([['line_items[1].description', 'BR-25']]);
    expect(fieldsOf(withLines([{ unitPriceNet: -10_00 }]))).toEqual([['line_items[0].unit_price_net', 'BR-27']]);
    expect(fieldsOf(withLines([{ unitPriceNet: 10_00, quantity: '-2' }]))).toEqual([]);
  });

  it('VAT category and rate: a UNCL 5305 category EN 16931 knows, S above 0 (BR-S-05), the others at 0', () => {
    expect(fieldsOf(withLines([{ unitPriceNet: 10_00, category: 'L', rate: '0.07' }]))).toEqual([['line_items[0].tax.category', 'BR-CL-18']]);
    expect(fieldsOf(withLines([{ unitPriceNet: 10_00, rate: '0' }]))).toEqual([['line_items[0].tax.rate', 'BR-S-05']]);
    expect(fieldsOf(withLines([{ unitPriceNet: 10_00, rate: '0.19', category: 'Z' }]))).toEqual([['line_items[0].tax.rate', 'BR-Z-05']]);
    expect(fieldsOf(withLines([{ unitPriceNet: 10_00, rate: '0.07', category: 'E' }]))).toEqual([['line_items[0].tax.rate', 'BR-E-05']]);
    expect(fieldsOf(withLines([{ unitPriceNet: 10_00, rate: '0.19', category: 'K' }]))).toEqual([['line_items[0].tax.rate', 'BR-IC-05']]);
  });

  it('payment instructions (BR-DE-1): present, by a means XRechnung can state', () => {
    expect(fieldsOf(germanInvoice({ paymentTerms: null }))).toEqual([['payment_terms', 'BR-DE-1']]);
    for (const method of ['card', 'direct_debit', 'bitcoin']) {
      expect(fieldsOf(withTerms({ method })), method).toEqual([['payment_terms.method', 'BR-DE-1']]);
    }
    for (const method of ['cash', 'Bank-Transfer', 'SEPA credit transfer', 'cheque', 'online', 'paypal']) {
      expect(fieldsOf(withTerms({ method })), method).toEqual([]);
    }
  });

  it("a credit transfer needs the seller's IBAN (BR-DE-23-a), a valid one (BR-DE-19); cash needs none", () => {
    expect(fieldsOf(withTerms({ iban: null }))).toEqual([['payment_terms.iban', 'BR-DE-23-a']]);
    expect(fieldsOf(withTerms({ method: null, iban: null }))).toEqual([['payment_terms.iban', 'BR-DE-23-a']]);
    expect(fieldsOf(withTerms({ iban: 'DE89 3704 0044 0532 0130 01' }))).toEqual([['payment_terms.iban', 'BR-DE-19']]);
    expect(fieldsOf(withTerms({ iban: 'DE89' }))).toEqual([['payment_terms.iban', 'BR-DE-19']]);
    expect(fieldsOf(withTerms({ method: 'cash', iban: null }))).toEqual([]);
  });

  it('an amount due needs a due date or installments (BR-CO-25)', () => {
    expect(fieldsOf(withTerms({ dueDate: null }))).toEqual([['payment_terms.due_date', 'BR-CO-25']]);
    expect(fieldsOf(withTerms({ dueDate: null, installments: [{ dueDate: '2025-04-01', amount: 100 }] }))).toEqual([]);
    const free = withLines([{ unitPriceNet: 0 }]);
    expect(fieldsOf({ ...free, paymentTerms: { ...free.paymentTerms!, dueDate: null } })).toEqual([]);
  });

  it('amounts with at most two decimals: no three-decimal currency (BR-DEC)', () => {
    expect(fieldsOf(germanInvoice({ currency: 'KWD' }))).toEqual([['currency', 'BR-DEC-09']]);
    expect(fieldsOf(germanInvoice({ currency: 'JPY' }))).toEqual([]);
  });

  it('reports every broken rule at once', () => {
    const invoice = germanInvoice({
      routing: { codiceDestinatario: null, pecAddress: null, buyerReference: null },
      seller: { ...germanSeller(), contact: null, email: null },
      buyer: { ...germanBuyer(), email: null },
      paymentTerms: null,
    });
    expect(fieldsOf(invoice).map(([field]) => field)).toEqual([
      'routing.buyer_reference',
      'seller.contact.name',
      'seller.contact.phone',
      'seller.contact.email',
      'seller.email',
      'buyer.email',
      'payment_terms',
    ]);
  });
});
