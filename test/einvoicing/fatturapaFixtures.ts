import type { InvoiceDocument, InvoiceDocumentLine, InvoiceParty } from '../../src/einvoicing/invoiceDocument.js';

/** An Italian company: the seller of every fixture. */
export const seller = (): InvoiceParty => ({
  legalName: 'Bottega Rossi S.r.l.',
  vatId: 'IT01234567890',
  taxCode: '01234567890',
  address: { line1: 'Via Roma 1', line2: null, city: 'Milano', state: 'MI', postalCode: '20121', country: 'IT' },
  contact: null,
  email: null,
});

export const italianCompany = (): InvoiceParty => ({
  legalName: 'Cliente Bianchi S.p.A.',
  vatId: 'IT09876543210',
  taxCode: null,
  address: { line1: 'Corso Venezia 10', line2: 'Scala B', city: 'Torino', state: 'TO', postalCode: '10121', country: 'IT' },
  contact: null,
  email: null,
});

export const consumer = (): InvoiceParty => ({
  legalName: 'Mario Verdi',
  vatId: null,
  taxCode: 'VRDMRA80A01H501U',
  address: { line1: 'Via Garibaldi 5', line2: null, city: 'Roma', state: 'RM', postalCode: '00184', country: 'IT' },
  contact: null,
  email: null,
});

export const publicAdministration = (): InvoiceParty => ({
  legalName: 'Comune di Bergamo',
  vatId: null,
  taxCode: '80034840167',
  address: { line1: 'Piazza Matteotti 27', line2: null, city: 'Bergamo', state: 'BG', postalCode: '24122', country: 'IT' },
  contact: null,
  email: null,
});

export const germanCompany = (): InvoiceParty => ({
  legalName: 'Müller Handels GmbH',
  vatId: 'DE123456789',
  taxCode: null,
  address: { line1: 'Friedrichstraße 100', line2: null, city: 'Berlin', state: null, postalCode: '10117', country: 'DE' },
  contact: null,
  email: null,
});

/** A line at 22 % of `quantity` x `unitPrice` minor units, its amounts derived like the invoice resource does. */
export function line(position: number, overrides: Partial<InvoiceDocumentLine> = {}): InvoiceDocumentLine {
  const base: InvoiceDocumentLine = {
    position,
    description: `Articolo ${position}`,
    quantity: '1',
    unit: null,
    productRef: null,
    unitPriceNet: 10000,
    discount: null,
    netAmount: 10000,
    taxAmount: 2200,
    grossAmount: 12200,
    vatRate: '0.22',
    vatCategory: 'S',
    natureCode: null,
  };
  return { ...base, ...overrides };
}

export function invoice(overrides: Partial<InvoiceDocument> = {}): InvoiceDocument {
  return {
    jurisdiction: 'IT',
    documentType: 'invoice',
    issueDate: '2025-06-30',
    currency: 'EUR',
    seller: seller(),
    buyer: italianCompany(),
    lines: [line(1)],
    vatBreakdown: [{ vatRate: '0.22', vatCategory: 'S', natureCode: null, taxableAmount: 10000, taxAmount: 2200 }],
    totals: { net: 10000, tax: 2200, gross: 12200 },
    paymentTerms: null,
    routing: { codiceDestinatario: 'ABC1234', pecAddress: null, buyerReference: null },
    notes: [],
    references: { originalInvoice: null, purchaseOrderRef: null, contractRef: null, deliveryDate: null },
    invoiceNumber: 'FT/2025/1',
    transmissionSequence: 1,
    ...overrides,
  };
}
