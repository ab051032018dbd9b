import type { Operation } from '../../db/generated/client.js';
import type { FiscalRecord } from '../../fiscal/fiscalDevice.js';
import type { HttpResult } from '../../http/idempotency.js';
import { cashierOf, fiscalFailureOf, refundDataOf, refundFiscalOf, type FiscalState, type StoredFiscalFailure } from './records.js';
import type { OrganizationFiscalView } from '../styleO/schemas.js';
import type { RefundOperationView } from './schemas.js';

export interface FiscalBlockInput {
  record: FiscalRecord | null;
  /** Signature of the start log; the Style M record does not keep it, so callers may look it up. */
  startSignature: string | null;
  failure: StoredFiscalFailure | null;
  fiscalState: FiscalState;
  attempts: number;
  nextAttemptAt: Date | null;
  documentNumber: string | null;
}

/**
 * The Style O fiscal block (contract 2.8): both KassenSichV events in full
 * once signed; while signing has failed, the reason, with no events.
 */
export function presentFiscalBlock(input: FiscalBlockInput): OrganizationFiscalView | null {
  const { record, failure } = input;
  if (record) {
    return {
      regime: record.regime,
      document_type: record.document_type,
      transmission_status: 'succeeded',
      fiscal_unit_id: record.tss_serial_number,
      document_number: record.document_number,
      transmitted_at: record.end_event.signed_at,
      verification: { url: null, qr_data: record.verification.qr_data },
      tse_serial: record.tss_serial_number,
      client_id: record.pos_client_serial_number,
      signature_algorithm: record.signature_algorithm,
      time_format: record.time_format,
      start_event: {
        signed_at: record.start_event.signed_at,
        transaction_counter: record.end_event.transaction_counter,
        signature_counter: record.start_signature_counter,
        signature: input.startSignature ?? '',
        // The StartTransaction log is signed with empty processType and processData.
        process_type: '',
        process_data: '',
      },
      end_event: {
        signed_at: record.end_event.signed_at,
        transaction_counter: record.end_event.transaction_counter,
        signature_counter: record.end_event.signature_counter,
        signature: record.end_event.signature,
        public_key: record.end_event.public_key,
        process_type: record.end_event.process_type,
        process_data: record.end_event.process_data,
      },
      error: null,
    };
  }
  if (failure && input.fiscalState === 'failed') {
    return {
      regime: 'KassenSichV',
      document_type: 'Beleg',
      transmission_status: 'failed',
      fiscal_unit_id: failure.tse_serial,
      document_number: input.documentNumber,
      transmitted_at: null,
      verification: null,
      tse_serial: failure.tse_serial,
      client_id: failure.client_id,
      signature_algorithm: failure.signature_algorithm,
      time_format: 'unixTime',
      start_event: null,
      end_event: null,
      error: {
        phase: failure.phase,
        reason: failure.reason,
        message: failure.message,
        failed_at: failure.failed_at,
        attempts: input.attempts,
        next_attempt_at: input.nextAttemptAt?.toISOString() ?? null,
      },
    };
  }
  return null;
}

export function refundFiscalBlock(operation: Operation): OrganizationFiscalView | null {
  const record = refundFiscalOf(operation);
  return presentFiscalBlock({
    record,
    startSignature: record?.start_signature ?? null,
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
    started_at: record?.start_event.signed_at ?? null,
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
