import type { InvoiceLineData, InvoicePartyData, InvoicePaymentTermsData, InvoiceReferencesData, InvoiceRoutingData } from '../domain/invoices/invoiceData.js';
import type { InvoiceTotals } from '../domain/invoices/invoiceTotals.js';
import { resolveTaxId } from '../domain/invoices/partyTaxId.js';
import type { InvoiceContent, InvoiceDocument, InvoiceDocumentType, InvoiceJurisdictionCode, InvoiceParty } from './invoiceDocument.js';

/** An invoice's stored content, with the invoice it corrects resolved (number and issue date). */
export interface StoredInvoiceContent {
  jurisdiction: InvoiceJurisdictionCode;
  documentType: InvoiceDocumentType;
  /** YYYY-MM-DD: the invoice's, or for a draft without one the date it would get if submitted now. */
  issueDate: string;
  currency: string;
  seller: InvoicePartyData;
  buyer: InvoicePartyData;
  lines: readonly InvoiceLineData[];
  totals: InvoiceTotals;
  paymentTerms: InvoicePaymentTermsData | null;
  routing: InvoiceRoutingData;
  notes: readonly string[];
  references: InvoiceReferencesData;
  originalInvoice: { invoiceNumber: string; issueDate: string } | null;
}

function partyOf(party: InvoicePartyData): InvoiceParty {
  const { vatId, taxCode } = resolveTaxId(party.tax_id, party.tax_id_type, party.address.country);
  const contact = party.contact;
  return {
    legalName: party.legal_name,
    vatId,
    taxCode,
    address: {
      line1: party.address.line1,
      line2: party.address.line2,
      city: party.address.city,
      state: party.address.state,
      postalCode: party.address.postal_code,
      country: party.address.country,
    },
    contact: contact && (contact.name || contact.phone || contact.email) ? { name: contact.name, phone: contact.phone, email: contact.email } : null,
    email: party.email,
  };
}

/**
 * The invoice as its document sees it (the port of ./einvoiceFormat.ts). The recipient code
 * and PEC address are the routing's, else the buyer's sdi_code and pec_address.
 */
export function invoiceContentOf(invoice: StoredInvoiceContent): InvoiceContent {
  const { totals, routing, references, paymentTerms } = invoice;
  return {
    jurisdiction: invoice.jurisdiction,
    documentType: invoice.documentType,
    issueDate: invoice.issueDate,
    currency: invoice.currency,
    seller: partyOf(invoice.seller),
    buyer: partyOf(invoice.buyer),
    lines: invoice.lines.map((line, index) => ({
      position: index + 1,
      description: line.description,
      quantity: line.quantity,
      unit: line.unit,
      productRef: line.product_ref,
      unitPriceNet: line.unit_price_net,
      discount: line.discount ? { amount: line.discount.amount, label: line.discount.label, rate: line.discount.rate } : null,
      netAmount: line.line_total_net,
      taxAmount: line.line_total_tax,
      grossAmount: line.line_total_gross,
      vatRate: line.tax.rate,
      vatCategory: line.tax.category,
      natureCode: line.nature_code,
    })),
    vatBreakdown: totals.tax_breakdown.map((row) => ({
      vatRate: row.rate,
      vatCategory: row.category,
      natureCode: row.nature_code,
      taxableAmount: row.taxable_amount,
      taxAmount: row.tax_amount,
    })),
    totals: { net: totals.total_net, tax: totals.total_tax, gross: totals.total_gross },
    paymentTerms: paymentTerms
      ? {
          method: paymentTerms.method,
          dueDate: paymentTerms.due_date,
          iban: paymentTerms.iban,
          installments: paymentTerms.installments.map((installment) => ({ dueDate: installment.due_date, amount: installment.amount })),
        }
      : null,
    routing: {
      codiceDestinatario: routing.codice_destinatario ?? invoice.buyer.sdi_code,
      pecAddress: routing.pec_address ?? invoice.buyer.pec_address,
      buyerReference: routing.buyer_reference,
    },
    notes: [...invoice.notes],
    references: {
      originalInvoice: invoice.originalInvoice,
      purchaseOrderRef: references.purchase_order_ref,
      contractRef: references.contract_ref,
      deliveryDate: references.delivery_date,
    },
  };
}

/** A submitted invoice's document input: its content, number and transmission sequence. */
export const invoiceDocumentOf = (content: InvoiceContent, invoiceNumber: string, transmissionSequence: number): InvoiceDocument => ({
  ...content,
  invoiceNumber,
  transmissionSequence,
});
