// German invoices as the e-invoicing layer receives them, with every amount derived the way
// EN 16931 derives it: line net = quantity x price - discount (rounded half up to the cent),
// one breakdown row per (category, rate) whose tax is taxable x rate rounded half up (BR-CO-17),
// totals as the sums.
import { Decimal } from 'decimal.js';
import type { InvoiceDocument, InvoiceDocumentLine, InvoiceParty, InvoiceVatBreakdownRow } from '../../src/einvoicing/invoiceDocument.js';

const cents = (value: Decimal) => value.toDecimalPlaces(0, Decimal.ROUND_HALF_UP).toNumber();

export interface LineSpec {
  description?: string;
  quantity?: string;
  unit?: string | null;
  unitPriceNet: number;
  rate?: string;
  category?: string;
  discount?: number;
  discountLabel?: string | null;
  productRef?: string | null;
}

export function invoiceLine(spec: LineSpec, position: number): InvoiceDocumentLine {
  const quantity = spec.quantity ?? '1';
  const rate = spec.rate ?? '0.19';
  const discount = spec.discount ?? 0;
  const netAmount = cents(new Decimal(quantity).times(spec.unitPriceNet)) - discount;
  const taxAmount = cents(new Decimal(netAmount).times(rate));
  return {
    position,
    description: spec.description ?? `Article ${position}`,
    quantity,
    unit: spec.unit === undefined ? 'pcs' : spec.unit,
    productRef: spec.productRef === undefined ? `SKU-${position}` : spec.productRef,
    unitPriceNet: spec.unitPriceNet,
    discount: discount ? { amount: discount, label: spec.discountLabel ?? null, rate: null } : null,
    netAmount,
    taxAmount,
    grossAmount: netAmount + taxAmount,
    vatRate: rate,
    vatCategory: spec.category ?? 'S',
    natureCode: null,
  };
}

/** One row per (category, rate) in first-seen order, tax = taxable x rate, rounded half up. */
export function breakdownOf(lines: readonly InvoiceDocumentLine[]): InvoiceVatBreakdownRow[] {
  const rows = new Map<string, InvoiceVatBreakdownRow>();
  for (const line of lines) {
    const key = `${line.vatCategory} ${new Decimal(line.vatRate).toString()}`;
    const row = rows.get(key) ?? { vatRate: line.vatRate, vatCategory: line.vatCategory, natureCode: null, taxableAmount: 0, taxAmount: 0 };
    row.taxableAmount += line.netAmount;
    rows.set(key, row);
  }
  return [...rows.values()].map((row) => ({ ...row, taxAmount: cents(new Decimal(row.taxableAmount).times(row.vatRate)) }));
}

export const germanSeller = (): InvoiceParty => ({
  legalName: 'Muster & Söhne GmbH',
  vatId: 'DE123456789',
  taxCode: '21/815/08150',
  address: { line1: 'Friedrichstraße 10', line2: 'Hinterhaus', city: 'Berlin', state: null, postalCode: '10117', country: 'DE' },
  contact: { name: 'Erika Mustermann', phone: '+49 30 1234567', email: 'erika@muster-soehne.de' },
  email: 'rechnungen@muster-soehne.de',
});

export const germanBuyer = (): InvoiceParty => ({
  legalName: 'Stadtverwaltung Musterstadt',
  vatId: 'DE987654321',
  taxCode: null,
  address: { line1: 'Rathausplatz 1', line2: null, city: 'Musterstadt', state: 'Bayern', postalCode: '80331', country: 'DE' },
  contact: null,
  email: 'eingangsrechnungen@musterstadt.de',
});

/** A valid German invoice: two articles at 19 %, paid by SEPA transfer within 30 days. */
export function germanInvoice(overrides: Partial<InvoiceDocument> & { lineSpecs?: LineSpec[] } = {}): InvoiceDocument {
  const { lineSpecs, ...rest } = overrides;
  const lines = (lineSpecs ?? [{ unitPriceNet: 12_50, quantity: '4' }, { unitPriceNet: 99_90 }]).map((spec, i) => invoiceLine(spec, i + 1));
  const vatBreakdown = breakdownOf(lines);
  const net = lines.reduce((sum, line) => sum + line.netAmount, 0);
  const tax = vatBreakdown.reduce((sum, row) => sum + row.taxAmount, 0);
  return {
    jurisdiction: 'DE',
    documentType: 'invoice',
    issueDate: '2025-03-14',
    currency: 'EUR',
    seller: germanSeller(),
    buyer: germanBuyer(),
    lines,
    vatBreakdown,
    totals: { net, tax, gross: net + tax },
    paymentTerms: { method: 'credit_transfer', dueDate: '2025-04-13', iban: 'DE89 3704 0044 0532 0130 00', installments: [] },
    routing: { codiceDestinatario: null, pecAddress: null, buyerReference: '04011000-1234512345-06' },
    notes: [],
    references: { originalInvoice: null, purchaseOrderRef: null, contractRef: null, deliveryDate: null },
    invoiceNumber: 'RE/2025/17',
    transmissionSequence: 17,
    ...rest,
  };
}
