import type { Merchant, Operation, Receipt } from '../../db/generated/client.js';
import type { AppContext } from '../../context.js';
import { presentStyleOAddress } from '../locations/styleO.js';
import { conflict, DomainError, notFound } from '../../domain/errors.js';
import { fiscalRecordOf } from '../operations/records.js';
import { snapshotOf } from '../receipts/presenter.js';
import { refundFiscalBlock } from '../refunds/presenter.js';
import { organizationFiscalOf, signingStartedAt } from '../fiscalRecords/organizationFiscal.js';
import { cashierOf, refundDataOf, refundFiscalOf, type FiscalState } from '../refunds/records.js';
import type { OrganizationFiscalView } from '../styleO/schemas.js';
import { styleOViewOfGoodsMovement } from '../refunds/styleMView.js';
import type { CanonicalReceiptView } from './schemas.js';

const RECEIPT_TYPES = new Set(['sale', 'return', 'refund']);

/** Regime-neutral: the TSE (KassenSichV) and the signature device (RKSV) are both the Sicherheitseinrichtung. */
const FISCAL_FAILURE_NOTE =
  'Sicherheitseinrichtung ausgefallen: der Vorgang wird nachträglich signiert. / Fiscal device unavailable: the transaction will be signed later.';

function styleMFiscal(operation: Operation): OrganizationFiscalView | null {
  const record = fiscalRecordOf(operation);
  return record && organizationFiscalOf(record);
}

/**
 * GET /operations/{id}/receipt (contract 2.9): the canonical receipt of a
 * completed sale, return (both recorded in Style M) or refund, built from the
 * receipt issued at completion (issuer and the PDF link, frozen then) and the
 * operation's current fiscal data (a refund signed late shows its signature).
 */
export async function canonicalReceipt(ctx: AppContext, organization: Merchant, id: string): Promise<CanonicalReceiptView> {
  const operation = await ctx.db.operation.findFirst({ where: { id, merchantId: organization.id } });
  if (!operation) throw notFound('operation', id);
  if (!RECEIPT_TYPES.has(operation.type)) {
    throw new DomainError('not_found', 'not_found', `Canonical receipts exist for sales, returns and refunds, not for a ${operation.type} operation`, {
      resource: 'receipt',
      operation_type: operation.type,
    });
  }
  if (operation.status !== 'completed') {
    throw conflict('operation_invalid_state', `A receipt exists once the operation is completed; this ${operation.type} is ${operation.status}`, {
      type: operation.type,
      state: operation.status,
    });
  }
  const receipt: Receipt | null = operation.receiptId ? await ctx.db.receipt.findUnique({ where: { id: operation.receiptId } }) : null;
  if (!receipt) throw new DomainError('not_found', 'not_found', `The ${operation.type} ${operation.id} has no receipt`, { resource: 'receipt' });
  const snapshot = snapshotOf(receipt);

  const refund = operation.type === 'refund';
  const document = refund ? refundDataOf(operation) : styleOViewOfGoodsMovement(operation, organization.countryCode);
  const fiscal = refund ? refundFiscalBlock(operation) : styleMFiscal(operation);
  const fiscalState = (operation.fiscalState ?? null) as FiscalState | null;
  const signed = refund ? refundFiscalOf(operation) : fiscalRecordOf(operation);
  const startedAt = signed ? signingStartedAt(signed) : null;

  const notes: CanonicalReceiptView['notes'] = [];
  if (refund && fiscalState !== 'succeeded') notes.push({ type: 'fiscal', text: FISCAL_FAILURE_NOTE });
  if (operation.note) notes.push({ type: 'note', text: operation.note });

  const base = ctx.publicBaseUrl;
  return {
    object: 'receipt',
    id: receipt.id,
    version: snapshot.version ?? 1,
    created_at: receipt.issuedAt.toISOString(),
    issuer: {
      organization_id: organization.id,
      legal_name: snapshot.issuer.legal_name,
      trade_name: null,
      tax_id: snapshot.issuer.tax_id,
      address: presentStyleOAddress(snapshot.issuer.address),
      location_id: snapshot.location_id,
      location_name: snapshot.issuer.location_name,
      register_id: snapshot.register_id,
      register_label: snapshot.issuer.register_name,
    },
    operation: {
      id: operation.id,
      external_id: operation.externalId,
      type: operation.type as 'sale' | 'return' | 'refund',
      sequence_number: operation.sequenceNumber,
      started_at: startedAt,
      completed_at: operation.completedAt?.toISOString() ?? null,
      currency: operation.currency,
      cashier: refund ? cashierOf(operation) : null,
    },
    line_items: document.line_items,
    totals: document.totals,
    payments: document.payments,
    fiscal,
    customer: null,
    notes,
    references: {
      original_operation_id: operation.relatedOperationId,
      reason: operation.reason,
    },
    links: {
      self: `${base}/v1/operations/${operation.id}/receipt`,
      pdf: `${base}/receipts/${receipt.publicToken}/pdf`,
      operation: `${base}/v1/operations/${operation.id}`,
    },
    metadata: (operation.metadata ?? {}) as Record<string, unknown>,
  };
}
