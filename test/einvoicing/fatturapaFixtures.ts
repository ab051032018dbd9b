// Italian invoices as the invoice resource hands them to the FatturaPA format: parties
// resolved, every amount derived in minor units (line net = quantity x unit price rounded
// half-up, minus the discount; VAT per breakdown row).
import { Decimal } from 'decimal.js';
import type { InvoiceDocument, InvoiceDocumentLine, InvoiceParty, InvoiceVatBreakdownRow } from '../../src/einvoicing/invoiceDocument.js';

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

export const dutchCompany = (): InvoiceParty => ({
  legalName: 'Van Dijk B.V.',
  vatId: 'NL123456789B01',
  taxCode: null,
  address: { line1: 'Damrak 1', line2: null, city: 'Amsterdam', state: 'Noord-Holland', postalCode: '1012 LG', country: 'NL' },
  contact: null,
  email: null,
});

export interface LineSpec {
  description?: string;
  quantity?: string;
  unitPriceNet?: number;
  discount?: number;
  vatRate?: string;
  natureCode?: string | null;
  unit?: string | null;
  productRef?: string | null;
}

const halfUp = (value: Decimal) => value.toDecimalPlaces(0, Decimal.ROUND_HALF_UP).toNumber();

/** A line with its derived amounts. Default: 1 x 100.00 at 22 %. */
export function line(position: number, spec: LineSpec = {}): InvoiceDocumentLine {
  const quantity = spec.quantity ?? '1';
  const unitPriceNet = spec.unitPriceNet ?? 10000;
  const vatRate = spec.vatRate ?? '0.22';
  const natureCode = spec.natureCode ?? null;
  const discount = spec.discount ?? 0;
  const netAmount = halfUp(new Decimal(quantity).times(unitPriceNet)) - discount;
  const taxAmount = halfUp(new Decimal(netAmount).times(vatRate));
  return {
    position,
    description: spec.description ?? `Articolo ${position}`,
    quantity,
    unit: spec.unit ?? null,
    productRef: spec.productRef ?? null,
    unitPriceNet,
    discount: discount === 0 ? null : { amount: discount, label: 'Sconto', rate: null },
    netAmount,
    taxAmount,
    grossAmount: netAmount + taxAmount,
    vatRate,
    vatCategory: natureCode === null ? 'S' : natureCode.startsWith('N6') ? 'AE' : natureCode === 'N4' ? 'E' : 'O',
    natureCode,
  };
}

/** One breakdown row per (rate, natura): taxable the sum of the nets, VAT on the sum. */
export function breakdownOf(lines: InvoiceDocumentLine[]): InvoiceVatBreakdownRow[] {
  const rows = new Map<string, InvoiceVatBreakdownRow>();
  for (const l of lines) {
    const key = `${l.vatRate}|${l.natureCode}`;
    const row = rows.get(key) ?? { vatRate: l.vatRate, vatCategory: l.vatCategory, natureCode: l.natureCode, taxableAmount: 0, taxAmount: 0 };
    row.taxableAmount += l.netAmount;
    rows.set(key, row);
  }
  for (const row of rows.values()) row.taxAmount = halfUp(new Decimal(row.taxableAmount).times(row.vatRate));
  return [...rows.values()];
}

/** An invoice from an Italian seller to an Italian company, its lines' breakdown and totals derived. */
export function invoice(overrides: Partial<InvoiceDocument> = {}): InvoiceDocument {
  const lines = overrides.lines ?? [line(1)];
  const vatBreakdown = overrides.vatBreakdown ?? breakdownOf(lines);
  const net = vatBreakdown.reduce((sum, row) => sum + row.taxableAmount, 0);
  const tax = vatBreakdown.reduce((sum, row) => sum + row.taxAmount, 0);
  return {
    jurisdiction: 'IT',
    documentType: 'invoice',
    issueDate: '2025-06-30',
    currency: 'EUR',
    seller: seller(),
    buyer: italianCompany(),
    paymentTerms: null,
    routing: { codiceDestinatario: 'ABC1234', pecAddress: null, buyerReference: null },
    notes: [],
    references: { originalInvoice: null, purchaseOrderRef: null, contractRef: null, deliveryDate: null },
    invoiceNumber: 'FT/2025/1',
    transmissionSequence: 1,
    ...overrides,
    lines,
    vatBreakdown,
    totals: overrides.totals ?? { net, tax, gross: net + tax },
  };
}
