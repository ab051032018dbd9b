import type { Invoice } from '../../db/generated/client.js';
import type { HttpResult } from '../../http/idempotency.js';
import { contentDataOf } from './preparation.js';
import type { InvoiceView } from './schemas.js';

const iso = (at: Date | null) => at?.toISOString() ?? null;

/** The invoice resource (contract 2.10), with links under `baseUrl`. */
export function presentInvoice(invoice: Invoice, baseUrl: string): InvoiceView {
  const data = contentDataOf(invoice);
  const submitted = invoice.document !== null;
  const link = (path: string) => (submitted ? `${baseUrl}/v1/invoices/${invoice.id}/${path}` : null);
  return {
    id: invoice.id,
    object: 'invoice',
    organization_id: invoice.merchantId,
    jurisdiction: data.jurisdiction,
    document_type: data.documentType,
    state: invoice.state as InvoiceView['state'],
    series: invoice.series,
    invoice_number: invoice.invoiceNumber,
    issue_date: invoice.issueDate,
    currency: invoice.currency,
    seller: data.seller,
    buyer: data.buyer,
    line_items: data.lineItems,
    totals: data.totals,
    payment_terms: data.paymentTerms,
    routing: data.routing,
    notes: data.notes,
    references: data.references,
    metadata: (invoice.metadata ?? {}) as Record<string, unknown>,
    submit: submitted,
    fiscal: {
      jurisdiction: data.jurisdiction,
      transmission_status: invoice.transmissionStatus as InvoiceView['fiscal']['transmission_status'],
      delivery_status: invoice.deliveryStatus as InvoiceView['fiscal']['delivery_status'],
      authority_identifier: invoice.authorityIdentifier,
      chain_hash: invoice.chainHash,
      transmitted_at: iso(invoice.transmittedAt),
      delivered_at: iso(invoice.deliveredAt),
      verification: { url: link('document'), qr_data: null },
      jurisdiction_data: invoice.jurisdictionData as Record<string, unknown> | null,
      fiscal_errors: invoice.fiscalErrors as { code: string; message: string }[],
    },
    cancellation_credit_note_id: invoice.cancellationCreditNoteId,
    links: { document: link('document'), pdf: link('pdf') },
    created_at: invoice.createdAt.toISOString(),
    submitted_at: iso(invoice.submittedAt),
    cancelled_at: iso(invoice.cancelledAt),
  };
}

export const invoiceResult = (invoice: Invoice, status: number, baseUrl: string): HttpResult => ({ status, body: presentInvoice(invoice, baseUrl) });
