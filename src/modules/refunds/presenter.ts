import type { Operation } from '../../db/generated/client.js';
import type { FiscalRecord } from '../../fiscal/fiscalDevice.js';
import type { HttpResult } from '../../http/idempotency.js';
import { cashierOf, fiscalFailureOf, refundDataOf, refundFiscalOf, type FiscalState, type StoredFiscalFailure } from './records.js';
import type { OrganizationFiscalView } from '../styleO/schemas.js';
import { organizationFiscalOf, organizationFiscalOfFailure, signingStartedAt } from '../fiscalRecords/organizationFiscal.js';
import type { RefundOperationView } from './schemas.js';

export interface FiscalBlockInput {
  record: FiscalRecord | null;
  /** Signature of the start log, where the stored record lacks it (looked up by the caller). */
  startSignature: string | null;
  failure: StoredFiscalFailure | null;
  fiscalState: FiscalState;
  attempts: number;
  nextAttemptAt: Date | null;
  documentNumber: string | null;
}

/**
 * The Style O fiscal block (contract 2.8): the signed record in its regime's
 * variant; while signing has failed, the reason, in the variant of the regime
 * whose device failed.
 */
export function presentFiscalBlock(input: FiscalBlockInput): OrganizationFiscalView | null {
  const { record, failure } = input;
  if (record) return organizationFiscalOf(record, input.startSignature);
  if (failure && input.fiscalState === 'failed') {
    return organizationFiscalOfFailure(failure.regime ?? 'KassenSichV', {
      documentNumber: input.documentNumber,
      device: { serial: failure.tse_serial, clientId: failure.client_id, signatureAlgorithm: failure.signature_algorithm, suite: failure.suite ?? null },
      error: {
        phase: failure.phase,
        reason: failure.reason,
        message: failure.message,
        failed_at: failure.failed_at,
        attempts: input.attempts,
        next_attempt_at: input.nextAttemptAt?.toISOString() ?? null,
      },
    });
  }
  return null;
}

export function refundFiscalBlock(operation: Operation): OrganizationFiscalView | null {
  const record = refundFiscalOf(operation);
  return presentFiscalBlock({
    record,
    startSignature: null,
    failure: fiscalFailureOf(operation),
    fiscalState: (operation.fiscalState ?? 'pending') as FiscalState,
    attempts: operation.fiscalAttempts,
    nextAttemptAt: operation.fiscalRetryAt,
    documentNumber: operation.sequenceNumber === null ? null : String(operation.sequenceNumber),
  });
}

/** The Style O operation envelope of a refund (contract 2.8). */
export function presentRefund(operation: Operation): RefundOperationView {
  const data = refundDataOf(operation);
  const record = refundFiscalOf(operation);
  const references = { original_operation_id: operation.relatedOperationId!, reason: operation.reason };
  return {
    id: operation.id,
    object: 'operation',
    type: 'refund',
    state: operation.status as RefundOperationView['state'],
    register_id: operation.registerId!,
    location_id: operation.locationId!,
    organization_id: operation.merchantId,
    external_id: operation.externalId,
    sequence_number: operation.sequenceNumber!,
    cashier: cashierOf(operation),
    fiscal: refundFiscalBlock(operation),
    fiscal_state: (operation.fiscalState ?? 'pending') as FiscalState,
    references,
    metadata: (operation.metadata ?? {}) as Record<string, unknown>,
    started_at: record ? signingStartedAt(record) : null,
    completed_at: operation.completedAt?.toISOString() ?? null,
    created_at: operation.createdAt.toISOString(),
    data: {
      ...references,
      refund_type: operation.refundType as 'full' | 'partial',
      currency: data.currency,
      line_items: data.line_items,
      cart_discounts: data.cart_discounts,
      payments: data.payments,
      totals: data.totals,
    },
  };
}

export const refundResult = (refund: Operation, status: number): HttpResult => ({ status, body: presentRefund(refund) });
