import type { Invoice, Merchant } from '../../db/generated/client.js';
import type { Tx } from '../../db/transaction.js';
import { invoiceRuleViolations, type InvoiceDocumentKind } from '../../domain/invoices/invoiceRules.js';
import type { InvoiceState } from '../../domain/invoices/invoiceStates.js';
import { localDateIn } from '../../domain/localTime.js';
import type { RuleViolation } from '../../domain/violation.js';
import { invoiceContentOf } from '../../einvoicing/invoiceContentOf.js';
import type { InvoiceContent } from '../../einvoicing/invoiceDocument.js';
import type { InvoiceJurisdiction } from '../../einvoicing/jurisdictions/invoiceJurisdiction.js';
import { throwViolations, type InvoiceContentData } from './invoiceContent.js';

/** The local date (YYYY-MM-DD) of `at` in the jurisdiction's time zone: a submission's default issue date. */
export const localDateOf = (at: Date, jurisdiction: InvoiceJurisdiction): string => localDateIn(at, jurisdiction.timeZone);

export interface InvoiceCheck {
  /** Today in the jurisdiction: a draft without an issue date is checked as if issued today. */
  today: string;
  /** At submission an issue date after today is refused. */
  submitting: boolean;
  /** The invoice being checked, when it exists (a cancellation's credit note may name an invoice being cancelled by it). */
  invoiceId?: string;
}

const violation = (field: string, message: string): RuleViolation => ({ code: 'validation_error', field, message });

/**
 * Checks an invoice's content before anything is written or numbered: the generic rules
 * (domain/invoices/invoiceRules.ts, with the invoice a note corrects and the operation it
 * documents looked up in the organization) and the jurisdiction's format. 422
 * validation_error naming the first field, all violations in details. Returns the content as
 * the format reads it and the original invoice.
 */
export async function checkInvoice(
  tx: Tx,
  organization: Merchant,
  jurisdiction: InvoiceJurisdiction,
  data: InvoiceContentData,
  check: InvoiceCheck,
): Promise<{ content: InvoiceContent; original: Invoice | null }> {
  const originalId = data.references.original_invoice_id;
  const original = originalId ? await tx.invoice.findFirst({ where: { id: originalId, merchantId: organization.id } }) : null;
  const operationId = data.references.operation_id;
  const operationMissing = operationId !== null && !(await tx.operation.findFirst({ where: { id: operationId, merchantId: organization.id }, select: { id: true } }));

  const rules = invoiceRuleViolations(
    {
      jurisdiction: data.jurisdiction,
      documentType: data.documentType,
      currency: data.currency,
      issueDate: data.issueDate,
      paymentTerms: data.paymentTerms && {
        dueDate: data.paymentTerms.due_date,
        installments: data.paymentTerms.installments.map((installment) => ({ dueDate: installment.due_date, amount: installment.amount })),
      },
      originalInvoiceId: originalId,
      original: original && {
        state: original.state as InvoiceState,
        jurisdiction: original.jurisdiction,
        currency: original.currency,
        documentType: original.documentType as InvoiceDocumentKind,
        cancelledByThisNote: check.invoiceId !== undefined && original.cancellationCreditNoteId === check.invoiceId,
      },
    },
    data.totals.total_gross,
    check.submitting ? check.today : undefined,
  );
  const content = invoiceContentOf({
    jurisdiction: data.jurisdiction,
    documentType: data.documentType,
    issueDate: data.issueDate ?? check.today,
    currency: data.currency,
    seller: data.seller,
    buyer: data.buyer,
    lines: data.lineItems,
    totals: data.totals,
    paymentTerms: data.paymentTerms,
    routing: data.routing,
    notes: data.notes,
    references: data.references,
    originalInvoice: original?.invoiceNumber && original.issueDate ? { invoiceNumber: original.invoiceNumber, issueDate: original.issueDate } : null,
  });
  throwViolations([
    ...(operationMissing ? [violation('references.operation_id', 'no operation of this organization has this id')] : []),
    ...rules,
    ...jurisdiction.format.violations(content),
  ]);
  return { content, original };
}

/** An invoice row's content, as checkInvoice and the document read it. */
export const contentDataOf = (invoice: Invoice): InvoiceContentData => ({
  jurisdiction: invoice.jurisdiction as InvoiceContentData['jurisdiction'],
  documentType: invoice.documentType as InvoiceContentData['documentType'],
  currency: invoice.currency,
  series: invoice.series,
  issueDate: invoice.issueDate,
  seller: invoice.seller as unknown as InvoiceContentData['seller'],
  buyer: invoice.buyer as unknown as InvoiceContentData['buyer'],
  lineItems: invoice.lineItems as unknown as InvoiceContentData['lineItems'],
  totals: invoice.totals as unknown as InvoiceContentData['totals'],
  paymentTerms: invoice.paymentTerms as unknown as InvoiceContentData['paymentTerms'],
  routing: invoice.routing as unknown as InvoiceContentData['routing'],
  notes: invoice.notes as unknown as string[],
  references: invoice.references as unknown as InvoiceContentData['references'],
});
