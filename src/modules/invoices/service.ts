import type { AppContext } from '../../context.js';
import { Prisma, type Invoice, type Merchant } from '../../db/generated/client.js';
import { sqlOf } from '../../db/sql.js';
import type { Tx } from '../../db/transaction.js';
import { notFound } from '../../domain/errors.js';
import { DEFAULT_SERIES } from '../../domain/invoices/invoiceNumber.js';
import { nextInvoiceState } from '../../domain/invoices/invoiceStates.js';
import { invalidState, lockInvoice, recordInvoiceStateChange } from '../../einvoicing/invoiceStateChange.js';
import { invoiceContentOf } from '../../einvoicing/invoiceContentOf.js';
import { jurisdictionOf } from '../../einvoicing/jurisdictions/index.js';
import { renderInvoicePdf } from '../../einvoicing/pdf/renderInvoicePdf.js';
import { documentMediaTypeOf } from '../../einvoicing/documentMediaType.js';
import { newId } from '../../lib/ids.js';
import { afterCursor, NEWEST_FIRST, pageOf } from '../common/cursor.js';
import type { Finalize } from '../common/transactions.js';
import {
  linesAndTotalsOf,
  partyDataOf,
  paymentTermsDataOf,
  referencesDataOf,
  routingDataOf,
  sellerDataOf,
  totalsFor,
  type InvoiceContentData,
} from './invoiceContent.js';
import { checkInvoice, contentDataOf, localDateOf } from './preparation.js';
import type { CreateInvoiceInput, ListInvoicesQueryInput, UpdateInvoiceInput } from './schemas.js';
import { submitDraft } from './submission.js';
import { recordInvoiceStateChanged } from '../events/invoiceEvents.js';

const json = (value: unknown) => value as Prisma.InputJsonValue;

/** The columns of an invoice's content. */
export const contentColumns = (data: InvoiceContentData) => ({
  jurisdiction: data.jurisdiction,
  documentType: data.documentType,
  currency: data.currency,
  series: data.series,
  issueDate: data.issueDate,
  seller: json(data.seller),
  buyer: json(data.buyer),
  buyerTaxId: data.buyer.tax_id,
  lineItems: json(data.lineItems),
  totals: json(data.totals),
  paymentTerms: data.paymentTerms === null ? Prisma.DbNull : json(data.paymentTerms),
  routing: json(data.routing),
  notes: json(data.notes),
  references: json(data.references),
  originalInvoiceId: data.references.original_invoice_id,
});

/** Checks a draft's content and writes it as a new invoice (state draft), recording its creation. */
export async function insertDraft(
  ctx: AppContext,
  tx: Tx,
  organization: Merchant,
  data: InvoiceContentData,
  metadata: Record<string, unknown>,
): Promise<Invoice> {
  const jurisdiction = jurisdictionOf(data.jurisdiction);
  const at = ctx.clock();
  const id = newId('inv');
  await checkInvoice(tx, organization, jurisdiction, data, { today: localDateOf(at, jurisdiction), submitting: false, invoiceId: id });
  const state = nextInvoiceState(null, 'created')!;
  const invoice = await tx.invoice.create({
    data: {
      id,
      merchantId: organization.id,
      state,
      ...contentColumns(data),
      metadata: json(metadata),
      transmissionStatus: 'not_submitted',
      createdAt: at,
      updatedAt: at,
    },
  });
  await recordInvoiceStateChange(tx, invoice, { from: null, event: 'created', at }, recordInvoiceStateChanged(ctx.publicBaseUrl));
  return invoice;
}

/** A request's content, the seller merged over the organization's defaults. */
function contentOfRequest(organization: Merchant, body: CreateInvoiceInput): InvoiceContentData {
  const jurisdiction = jurisdictionOf(body.jurisdiction);
  const documentType = body.document_type ?? 'invoice';
  return {
    jurisdiction: jurisdiction.code,
    documentType,
    currency: body.currency ?? 'EUR',
    series: body.series ?? DEFAULT_SERIES,
    issueDate: body.issue_date ?? null,
    seller: sellerDataOf(organization, jurisdiction, body.seller),
    buyer: partyDataOf(body.buyer),
    ...linesAndTotalsOf(body.line_items, documentType),
    paymentTerms: paymentTermsDataOf(body.payment_terms),
    routing: routingDataOf(body.routing),
    notes: body.notes ?? [],
    references: referencesDataOf(body.references),
  };
}

/** Wakes this instance's transmission worker after a submission committed, so the channel hears of it at once. */
export const wakeTransmissions = (ctx: AppContext, invoice: Invoice): void => {
  if (invoice.state === 'submitted') ctx.invoiceTransmissionWorker?.wake();
};

/**
 * Creates an invoice: draft, or with `submit: true` submitted in the same transaction (DESIGN
 * "E-invoicing"); 422 validation_error naming the field before anything is written.
 */
export async function createInvoice(ctx: AppContext, organization: Merchant, body: CreateInvoiceInput, finalize?: Finalize<Invoice>): Promise<Invoice> {
  const data = contentOfRequest(organization, body);
  const invoice = await ctx.db.$transaction(async (tx) => {
    const draft = await insertDraft(ctx, tx, organization, data, body.metadata ?? {});
    const result = body.submit ? await submitDraft(ctx, tx, organization, draft) : draft;
    await finalize?.(sqlOf(tx), result);
    return result;
  });
  wakeTransmissions(ctx, invoice);
  return invoice;
}

/** An invoice of the organization, locked for the rest of the transaction; 404 for any other. */
export async function lockOwnInvoice(tx: Tx, organization: Merchant, id: string): Promise<Invoice> {
  const invoice = await lockInvoice(tx, id);
  if (!invoice || invoice.merchantId !== organization.id) throw notFound('invoice', id);
  return invoice;
}

export async function getInvoice(ctx: AppContext, organization: Merchant, id: string): Promise<Invoice> {
  const invoice = await ctx.db.invoice.findFirst({ where: { id, merchantId: organization.id } });
  if (!invoice) throw notFound('invoice', id);
  return invoice;
}

/** A PATCH's metadata: the keys sent are set, a key sent as null is removed. */
function patchedMetadata(stored: unknown, patch: UpdateInvoiceInput['metadata']): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...(stored as Record<string, unknown>) };
  for (const [key, value] of Object.entries(patch ?? {})) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return merged;
}

/**
 * Updates a draft: each top-level field sent replaces the stored one (the seller is merged over
 * the organization's defaults again, metadata key by key); the amounts are computed and the
 * whole invoice checked again. 409 invoice_invalid_state once it is submitted.
 */
export async function updateInvoice(ctx: AppContext, organization: Merchant, id: string, body: UpdateInvoiceInput, finalize?: Finalize<Invoice>): Promise<Invoice> {
  return ctx.db.$transaction(async (tx) => {
    const invoice = await lockOwnInvoice(tx, organization, id);
    if (invoice.state !== 'draft') throw invalidState(invoice, `Only a draft can be changed; this invoice is ${invoice.state}`);
    const stored = contentDataOf(invoice);
    const jurisdiction = jurisdictionOf(body.jurisdiction ?? stored.jurisdiction);
    const documentType = body.document_type ?? stored.documentType;
    const amounts = body.line_items ? linesAndTotalsOf(body.line_items, documentType) : { lineItems: stored.lineItems, totals: totalsFor(stored.totals, documentType) };
    const data: InvoiceContentData = {
      jurisdiction: jurisdiction.code,
      documentType,
      currency: body.currency ?? stored.currency,
      series: body.series ?? stored.series,
      issueDate: body.issue_date ?? stored.issueDate,
      seller: body.seller || body.jurisdiction ? sellerDataOf(organization, jurisdiction, body.seller) : stored.seller,
      buyer: body.buyer ? partyDataOf(body.buyer) : stored.buyer,
      ...amounts,
      paymentTerms: body.payment_terms ? paymentTermsDataOf(body.payment_terms) : stored.paymentTerms,
      routing: body.routing ? routingDataOf(body.routing) : stored.routing,
      notes: body.notes ?? stored.notes,
      references: body.references ? referencesDataOf(body.references) : stored.references,
    };
    await checkInvoice(tx, organization, jurisdiction, data, { today: localDateOf(ctx.clock(), jurisdiction), submitting: false, invoiceId: id });
    const updated = await tx.invoice.update({
      where: { id },
      data: {
        ...contentColumns(data),
        metadata: json(patchedMetadata(invoice.metadata, body.metadata)),
        updatedAt: ctx.clock(),
      },
    });
    await finalize?.(sqlOf(tx), updated);
    return updated;
  });
}

/** draft -> submitted (see submission.ts); 409 invoice_invalid_state for any other state. */
export async function submitInvoice(ctx: AppContext, organization: Merchant, id: string, finalize?: Finalize<Invoice>): Promise<Invoice> {
  const invoice = await ctx.db.$transaction(async (tx) => {
    const draft = await lockOwnInvoice(tx, organization, id);
    if (draft.state !== 'draft') throw invalidState(draft, `Only a draft can be submitted; this invoice is ${draft.state}`);
    const submitted = await submitDraft(ctx, tx, organization, draft);
    await finalize?.(sqlOf(tx), submitted);
    return submitted;
  });
  wakeTransmissions(ctx, invoice);
  return invoice;
}

/** Newest first, keyset-paginated (common/cursor.ts); `from` and `to` bound created_at inclusively. */
export async function listInvoices(ctx: AppContext, organization: Merchant, query: ListInvoicesQueryInput): Promise<{ invoices: Invoice[]; cursor: string | null }> {
  if (query.organization_id !== organization.id) throw notFound('organization', query.organization_id);
  const taxId = query.buyer_tax_id?.trim().toUpperCase();
  const rows = await ctx.db.invoice.findMany({
    where: {
      merchantId: organization.id,
      ...(query.state ? { state: query.state } : {}),
      ...(query.document_type ? { documentType: query.document_type } : {}),
      ...(query.jurisdiction ? { jurisdiction: query.jurisdiction } : {}),
      ...(taxId ? { buyerTaxId: { in: [taxId, taxId.replace(/[\s.-]/g, '')] } } : {}),
      createdAt: {
        ...(query.from ? { gte: new Date(query.from) } : {}),
        ...(query.to ? { lte: new Date(query.to) } : {}),
      },
      ...afterCursor(query.cursor),
    },
    orderBy: NEWEST_FIRST,
    take: query.limit + 1,
  });
  const { page, cursor } = pageOf(rows, query.limit);
  return { invoices: page, cursor };
}

/** A submitted invoice's document exactly as stored; 409 for a draft, which has none. */
export async function invoiceDocument(ctx: AppContext, organization: Merchant, id: string): Promise<{ invoice: Invoice; document: Buffer; mediaType: string }> {
  const invoice = await getInvoice(ctx, organization, id);
  if (!invoice.document || !invoice.documentFileName) throw invalidState(invoice, 'A draft has no document yet; submit it first');
  return { invoice, document: Buffer.from(invoice.document), mediaType: documentMediaTypeOf(invoice.documentFileName) };
}

/** The invoice as a PDF in its jurisdiction's language; a draft is marked as not a fiscal document. */
export async function invoicePdf(ctx: AppContext, organization: Merchant, id: string): Promise<{ invoice: Invoice; pdf: Buffer }> {
  const invoice = await getInvoice(ctx, organization, id);
  const jurisdiction = jurisdictionOf(invoice.jurisdiction);
  const data = contentDataOf(invoice);
  const original = invoice.originalInvoiceId ? await ctx.db.invoice.findFirst({ where: { id: invoice.originalInvoiceId, merchantId: organization.id } }) : null;
  const content = invoiceContentOf({
    ...data,
    issueDate: invoice.issueDate ?? localDateOf(ctx.clock(), jurisdiction),
    lines: data.lineItems,
    originalInvoice: original?.invoiceNumber && original.issueDate ? { invoiceNumber: original.invoiceNumber, issueDate: original.issueDate } : null,
  });
  const pdf = await renderInvoicePdf({
    language: jurisdiction.language,
    content,
    invoiceNumber: invoice.invoiceNumber,
    originalInvoiceNumber: original?.invoiceNumber ?? null,
    fileName: invoice.documentFileName,
    authorityIdentifier: invoice.authorityIdentifier,
    chainHash: invoice.chainHash,
    createdAt: invoice.submittedAt ?? invoice.createdAt,
  });
  return { invoice, pdf };
}
