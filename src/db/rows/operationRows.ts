import { Prisma, type Operation } from '../generated/client.js';

/**
 * Every column of `operations` (aliased `o`) as the SQL hot paths read it, the
 * amounts as text so they stay exact; operationFromRow turns a row into the
 * same record Prisma returns, so presenters and rules see one shape.
 */
export const OPERATION_COLUMNS = `o.id, o.merchant_id, o.type, o.source, o.status, o.currency, o.register_id, o.location_id,
  o.session_id, o.sequence_number, o.external_id, o.lottery_code, o.pretax_amount::text AS pretax_amount, o.tax_amount::text AS tax_amount,
  o.tip_amount::text AS tip_amount, o.total_amount::text AS total_amount, o.line_items, o.cart_level_discounts, o.payments,
  o.related_operation_id, o.external_related_operation, o.session_details, o.fiscal_information, o.pending_tse_transaction,
  o.note, o.void_reason, o.voided_at, o.completed_at, o.receipt_id, o.fiscal_state, o.fiscal_error, o.fiscal_attempts,
  o.fiscal_retry_at, o.refund_type, o.reason, o.cashier, o.metadata, o.style_o_data, o.resource_version, o.created_at,
  o.updated_at`;

type Json = Prisma.JsonValue;

export interface OperationRow {
  id: string;
  merchant_id: string;
  type: string;
  source: string;
  status: string;
  currency: string;
  register_id: string | null;
  location_id: string | null;
  session_id: string | null;
  sequence_number: number | null;
  external_id: string | null;
  lottery_code: string | null;
  pretax_amount: string | null;
  tax_amount: string | null;
  tip_amount: string | null;
  total_amount: string | null;
  line_items: Json;
  cart_level_discounts: Json;
  payments: Json;
  related_operation_id: string | null;
  external_related_operation: Json | null;
  session_details: Json | null;
  fiscal_information: Json | null;
  pending_tse_transaction: Json | null;
  note: string | null;
  void_reason: string | null;
  voided_at: Date | null;
  completed_at: Date | null;
  receipt_id: string | null;
  fiscal_state: string | null;
  fiscal_error: Json | null;
  fiscal_attempts: number;
  fiscal_retry_at: Date | null;
  refund_type: string | null;
  reason: string | null;
  cashier: Json | null;
  metadata: Json | null;
  style_o_data: Json | null;
  resource_version: number;
  created_at: Date;
  updated_at: Date;
}

const decimal = (value: string | null) => (value === null ? null : new Prisma.Decimal(value));

export function operationFromRow(row: OperationRow): Operation {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    type: row.type,
    source: row.source,
    status: row.status,
    currency: row.currency,
    registerId: row.register_id,
    locationId: row.location_id,
    sessionId: row.session_id,
    sequenceNumber: row.sequence_number,
    externalId: row.external_id,
    lotteryCode: row.lottery_code,
    pretaxAmount: decimal(row.pretax_amount),
    taxAmount: decimal(row.tax_amount),
    tipAmount: decimal(row.tip_amount),
    totalAmount: decimal(row.total_amount),
    lineItems: row.line_items,
    cartLevelDiscounts: row.cart_level_discounts,
    payments: row.payments,
    relatedOperationId: row.related_operation_id,
    externalRelatedOperation: row.external_related_operation,
    sessionDetails: row.session_details,
    fiscalInformation: row.fiscal_information,
    pendingTseTransaction: row.pending_tse_transaction,
    note: row.note,
    voidReason: row.void_reason,
    voidedAt: row.voided_at,
    completedAt: row.completed_at,
    receiptId: row.receipt_id,
    fiscalState: row.fiscal_state,
    fiscalError: row.fiscal_error,
    fiscalAttempts: row.fiscal_attempts,
    fiscalRetryAt: row.fiscal_retry_at,
    refundType: row.refund_type,
    reason: row.reason,
    cashier: row.cashier,
    metadata: row.metadata,
    styleOData: row.style_o_data,
    resourceVersion: row.resource_version,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
