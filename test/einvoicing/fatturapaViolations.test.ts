// Issue 17, point 9: what would break a FatturaPA document is a validation_error naming the
// request field, found before anything is numbered.
import { describe, expect, it } from 'vitest';
import { fatturaPaFormat } from '../../src/einvoicing/fatturapa/index.js';
import type { InvoiceAddress, InvoiceContent, InvoiceParty } from '../../src/einvoicing/invoiceDocument.js';
import { consumer, dutchCompany, germanCompany, invoice, italianCompany, line, seller } from './fatturapaFixtures.js';

const fieldsOf = (content: InvoiceContent) => {
  const violations = fatturaPaFormat.violations(content);
  for (const v of violations) expect(v.code).toBe('validation_error');
  return violations.map((v) => v.field);
};

const routing = (codiceDestinatario: string | null, pecAddress: string | null = null) => ({ codiceDestinatario, pecAddress, buyerReference: null });
const withAddress = (party: InvoiceParty, address: Partial<InvoiceAddress>): InvoiceParty => ({ ...party, address: { ...party.address, ...address } });

describe('FatturaPA validation rules', () => {
  it('a complete invoice has none', () => {
    expect(fieldsOf(invoice())).toEqual([]);
  });

  describe('rates and natura', () => {
    it('rate 0 needs a nature_code', () => {
      expect(fieldsOf(invoice({ lines: [line(1), line(2, { vatRate: '0' })] }))).toEqual(['line_items[1].nature_code']);
    });

    it('a positive rate has no nature_code', () => {
      expect(fieldsOf(invoice({ lines: [line(1, { natureCode: 'N4' })] }))).toEqual(['line_items[0].nature_code']);
    });

    it('N2, N3 and N6 without a sub-code are refused since 2021; unknown codes too', () => {
      for (const code of ['N2', 'N3', 'N6', 'N8', 'N3.7', 'n4']) {
        expect(fieldsOf(invoice({ lines: [line(1, { vatRate: '0', natureCode: code })] }))).toEqual(['line_items[0].nature_code']);
      }
    });

    it('every natura in force is accepted', () => {
      for (const code of ['N1', 'N2.1', 'N2.2', 'N3.1', 'N3.2', 'N3.3', 'N3.4', 'N3.5', 'N3.6', 'N4', 'N5', 'N6.1', 'N6.5', 'N6.9', 'N7']) {
        expect(fieldsOf(invoice({ lines: [line(1, { vatRate: '0', natureCode: code })] }))).toEqual([]);
      }
    });

    it('only Italian rates: 22, 10, 5, 4 and 0 %', () => {
      for (const rate of ['0.22', '0.10', '0.1', '0.05', '0.04']) expect(fieldsOf(invoice({ lines: [line(1, { vatRate: rate })] }))).toEqual([]);
      for (const rate of ['0.19', '0.2', '0.07', '0.225']) {
        expect(fieldsOf(invoice({ lines: [line(1, { vatRate: rate })] }))).toEqual(['line_items[0].tax.rate']);
      }
    });
  });

  describe('routing', () => {
    it('codice_destinatario is required', () => {
      expect(fieldsOf(invoice({ routing: routing(null) }))).toEqual(['routing.codice_destinatario']);
    });

    it('codice_destinatario is 6 or 7 upper-case letters and digits', () => {
      for (const code of ['abc1234', '12345', '12345678', 'ABC-123', 'ABC 123']) {
        expect(fieldsOf(invoice({ routing: routing(code) }))).toEqual(['routing.codice_destinatario']);
      }
      for (const code of ['UF7XQZ', 'ABC1234', '0000000', 'XXXXXXX']) expect(fieldsOf(invoice({ routing: routing(code) }))).toEqual([]);
    });

    it('a PEC address beside 0000000 must be an e-mail address', () => {
      expect(fieldsOf(invoice({ routing: routing('0000000', 'not an address') }))).toEqual(['routing.pec_address']);
      expect(fieldsOf(invoice({ routing: routing('0000000', `${'a'.repeat(250)}@pec.it`) }))).toEqual(['routing.pec_address']);
      expect(fieldsOf(invoice({ routing: routing('0000000', 'fatture@pec.bianchi.it') }))).toEqual([]);
    });
  });

  describe('parties', () => {
    it('the seller needs an Italian VAT id', () => {
      expect(fieldsOf(invoice({ seller: { ...seller(), vatId: null } }))).toEqual(['seller.tax_id']);
      expect(fieldsOf(invoice({ seller: { ...seller(), vatId: 'DE123456789' } }))).toEqual(['seller.tax_id']);
      expect(fieldsOf(invoice({ seller: { ...seller(), vatId: 'IT0123456789' } }))).toEqual(['seller.tax_id']);
    });

    it('the seller’s codice fiscale, if any, is 16 characters or 11 digits', () => {
      expect(fieldsOf(invoice({ seller: { ...seller(), taxCode: '12345' } }))).toEqual(['seller.tax_id']);
      expect(fieldsOf(invoice({ seller: { ...seller(), taxCode: 'rssmra80a01f205x' } }))).toEqual([]);
    });

    it('an Italian buyer needs a VAT id or a codice fiscale', () => {
      expect(fieldsOf(invoice({ buyer: { ...italianCompany(), vatId: null } }))).toEqual(['buyer.tax_id']);
      expect(fieldsOf(invoice({ buyer: consumer() }))).toEqual([]);
    });

    it('an Italian buyer’s identifiers have their shape; the VAT check digit is left to the SdI', () => {
      expect(fieldsOf(invoice({ buyer: { ...italianCompany(), vatId: 'IT1234' } }))).toEqual(['buyer.tax_id']);
      expect(fieldsOf(invoice({ buyer: { ...consumer(), taxCode: 'VRDMRA80A01' } }))).toEqual(['buyer.tax_id']);
      expect(fieldsOf(invoice({ buyer: { ...italianCompany(), vatId: 'IT12345678901' } }))).toEqual([]);
    });

    it('a foreign buyer needs no identifier, but a VAT id must have the shape of one', () => {
      expect(fieldsOf(invoice({ buyer: { ...germanCompany(), vatId: null } }))).toEqual([]);
      expect(fieldsOf(invoice({ buyer: { ...germanCompany(), vatId: 'DE' } }))).toEqual(['buyer.tax_id']);
      expect(fieldsOf(invoice({ buyer: { ...germanCompany(), vatId: null, taxCode: '1'.repeat(29) } }))).toEqual(['buyer.tax_id']);
    });

    it('an invoice to oneself is refused (00471); a self_invoice to anyone else too (00472)', () => {
      expect(fieldsOf(invoice({ buyer: { ...italianCompany(), vatId: 'it01234567890' } }))).toEqual(['buyer.tax_id']);
      expect(fieldsOf(invoice({ documentType: 'deferred_invoice', buyer: seller() }))).toEqual(['buyer.tax_id']);
      expect(fieldsOf(invoice({ documentType: 'self_invoice' }))).toEqual(['buyer.tax_id']);
      expect(fieldsOf(invoice({ documentType: 'self_invoice', buyer: seller() }))).toEqual([]);
    });

    it('names and addresses fit the XSD’s lengths and Latin-1', () => {
      expect(fieldsOf(invoice({ buyer: { ...italianCompany(), legalName: 'x'.repeat(81) } }))).toEqual(['buyer.legal_name']);
      expect(fieldsOf(invoice({ buyer: { ...italianCompany(), legalName: 'Ζήτα Α.Ε.' } }))).toEqual(['buyer.legal_name']);
      expect(fieldsOf(invoice({ buyer: withAddress(italianCompany(), { line1: 'x'.repeat(61), line2: null }) }))).toEqual(['buyer.address.line1']);
      expect(fieldsOf(invoice({ buyer: withAddress(italianCompany(), { line1: 'x'.repeat(50), line2: 'y'.repeat(10) }) }))).toEqual(['buyer.address.line2']);
      expect(fieldsOf(invoice({ seller: withAddress(seller(), { city: 'x'.repeat(61) }) }))).toEqual(['seller.address.city']);
      expect(fieldsOf(invoice({ seller: withAddress(seller(), { country: 'ITA' }) }))).toEqual(['seller.address.country']);
    });

    it('an Italian address has a five-digit CAP and a two-letter provincia; a foreign one neither', () => {
      expect(fieldsOf(invoice({ buyer: withAddress(italianCompany(), { postalCode: '1012' }) }))).toEqual(['buyer.address.postal_code']);
      expect(fieldsOf(invoice({ seller: withAddress(seller(), { state: 'Milano' }) }))).toEqual(['seller.address.state']);
      expect(fieldsOf(invoice({ seller: withAddress(seller(), { state: 'mi' }) }))).toEqual([]);
      expect(fieldsOf(invoice({ buyer: withAddress(italianCompany(), { state: null }) }))).toEqual([]);
      expect(fieldsOf(invoice({ buyer: dutchCompany(), routing: routing('XXXXXXX') }))).toEqual([]);
    });
  });

  describe('lines', () => {
    it('description: at most 1000 Latin-1 characters, no control characters', () => {
      expect(fieldsOf(invoice({ lines: [line(1, { description: 'x'.repeat(1001) })] }))).toEqual(['line_items[0].description']);
      expect(fieldsOf(invoice({ lines: [line(1, { description: 'Prezzo in €' })] }))).toEqual(['line_items[0].description']);
      expect(fieldsOf(invoice({ lines: [line(1, { description: 'Caffè\u0007' })] }))).toEqual(['line_items[0].description']);
      expect(fieldsOf(invoice({ lines: [line(1, { description: 'x'.repeat(1000) })] }))).toEqual([]);
    });

    it('unit: at most 10 ASCII characters; product_ref: at most 35', () => {
      expect(fieldsOf(invoice({ lines: [line(1, { unit: 'confezioni12' })] }))).toEqual(['line_items[0].unit']);
      expect(fieldsOf(invoice({ lines: [line(1, { unit: 'm²' })] }))).toEqual(['line_items[0].unit']);
      expect(fieldsOf(invoice({ lines: [line(1, { productRef: 'x'.repeat(36) })] }))).toEqual(['line_items[0].product_ref']);
    });

    it('quantity: at most 6 decimals and 12 integer digits', () => {
      expect(fieldsOf(invoice({ lines: [line(1, { quantity: '1.1234567', unitPriceNet: 100 })] }))).toEqual(['line_items[0].quantity']);
      expect(fieldsOf(invoice({ lines: [line(1, { quantity: '1000000000000', unitPriceNet: 0 })] }))).toEqual(['line_items[0].quantity']);
      expect(fieldsOf(invoice({ lines: [line(1, { quantity: '1.123456', unitPriceNet: 100 })] }))).toEqual([]);
    });

    it('a discount is written per unit: not on quantity 0, and within the amount type', () => {
      expect(fieldsOf(invoice({ lines: [line(1), line(2, { quantity: '0', discount: 100 })] }))).toEqual(['line_items[1].discount']);
      expect(fieldsOf(invoice({ lines: [line(1, { quantity: '-0.000001', unitPriceNet: 0, discount: -100_000_000_000 })] }))).toEqual(['line_items[0].discount']);
    });

    it('amounts fit 11 integer digits', () => {
      expect(fieldsOf(invoice({ lines: [line(1, { unitPriceNet: 10_000_000_000_000 })] }))).toEqual(['line_items[0].unit_price_net', 'line_items']);
    });

    it('at least one line, at most 9999', () => {
      expect(fieldsOf(invoice({ lines: [], vatBreakdown: [] }))).toEqual(['line_items']);
      const lines = Array.from({ length: 10_000 }, (_, i) => line(i + 1, { unitPriceNet: 1 }));
      expect(fieldsOf(invoice({ lines }))).toEqual(['line_items']);
    });
  });

  describe('document', () => {
    it('the currency is an upper-case code with at most two decimals', () => {
      expect(fieldsOf(invoice({ currency: 'BHD' }))).toEqual(['currency']);
      expect(fieldsOf(invoice({ currency: 'eur' }))).toEqual(['currency']);
    });

    it('the issue date is 1970-01-01 or later', () => {
      expect(fieldsOf(invoice({ issueDate: '1969-12-31' }))).toEqual(['issue_date']);
    });

    it('notes: Latin-1, any length', () => {
      expect(fieldsOf(invoice({ notes: ['ok', 'Grazie 🙏'] }))).toEqual(['notes[1]']);
      expect(fieldsOf(invoice({ notes: ['x'.repeat(5000)] }))).toEqual([]);
    });

    it('purchase order and contract references: at most 20 ASCII characters', () => {
      const references = { originalInvoice: null, purchaseOrderRef: 'x'.repeat(21), contractRef: 'Contratto n°7', deliveryDate: null };
      expect(fieldsOf(invoice({ references }))).toEqual(['references.purchase_order_ref', 'references.contract_ref']);
    });

    it('payment method: one FatturaPA knows, matched as people write it', () => {
      const terms = (method: string | null) => ({ method, dueDate: null, iban: null, installments: [] });
      expect(fieldsOf(invoice({ paymentTerms: terms('bitcoin') }))).toEqual(['payment_terms.method']);
      for (const method of [null, 'Bank Transfer', 'credit-transfer', 'cash', 'SEPA direct debit', 'PagoPA', 'riba']) {
        expect(fieldsOf(invoice({ paymentTerms: terms(method) }))).toEqual([]);
      }
    });

    it('installment amounts fit 11 integer digits', () => {
      const installments = [{ dueDate: '2025-07-31', amount: 12200 }, { dueDate: '2025-08-31', amount: 10_000_000_000_000 }];
      expect(fieldsOf(invoice({ paymentTerms: { method: null, dueDate: null, iban: null, installments } }))).toEqual(['payment_terms.installments[1].amount']);
    });

    it('IBAN: a country, two check digits and 11 to 30 letters or digits (spaces allowed)', () => {
      const terms = (iban: string) => ({ method: null, dueDate: null, iban, installments: [] });
      expect(fieldsOf(invoice({ paymentTerms: terms('IT60X054') }))).toEqual(['payment_terms.iban']);
      expect(fieldsOf(invoice({ paymentTerms: terms('IT60 X054 2811 1010 0000 0123 456') }))).toEqual([]);
    });
  });
});
