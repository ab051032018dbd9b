import { z } from 'zod';
import { FiscalInformation } from '../fiscalRecords/schemas.js';
import { boundedTimestampInput, PageQuery, cursorListOf, PaymentMethodInput, PaymentMethodView, ResourceId, Timestamp, TimestampInput } from '../common/schemas.js';
import { VOID_REASONS } from '../../domain/operations/operationMachine.js';

/** Style M amounts are decimal strings; a JSON number is a 400 (decimal vs integer mismatch). */
export const DecimalString = z.string().regex(/^-?\d{1,12}(\.\d{1,8})?$/, 'must be a decimal string such as "12.50"');
const Currency = z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code such as EUR');
const Text = (max: number) => z.string().min(1).max(max);
const OptionalText = (max: number) => z.string().max(max).nullable().optional();

const TaxInput = z.strictObject({
  name: Text(100),
  rate: z.string().regex(/^\d{1,3}(\.\d{1,8})?$/, 'must be a decimal rate such as "0.19"'),
  tax_amount: z.string().regex(/^-?\d{1,12}(\.\d+)?$/, 'must be a decimal string'),
});

const LineItemInput = z.strictObject({
  type: z.enum(['item', 'gift_card']).optional(),
  title: Text(2000),
  quantity: z.number().positive().max(1_000_000),
  unit_price: DecimalString,
  total_amount: DecimalString,
  sku_identifier: Text(200),
  taxes: z.array(TaxInput).max(10).default([]),
  gift_card_id: OptionalText(200),
});

const CartLevelDiscountInput = z.strictObject({
  amount: DecimalString,
  description: OptionalText(2000),
});

/** The original of a return never ingested; an Italian (RT) return adds the original document's number, device and date. */
const ExternalRelatedOperation = z.strictObject({
  description: Text(2000),
  external_operation_id: Text(200),
  document_number: Text(20).optional().describe('RT (Italy): the original documento commerciale number, NNNN-NNNN'),
  device_serial: Text(20).optional().describe('RT (Italy): the matricola of the RT that issued the original'),
  issued_at: TimestampInput.optional().describe('RT (Italy): when the original was issued'),
});

const goodsMovementFields = {
  source: z.enum(['POS', 'ONLINE']),
  currency: Currency,
  pretax_amount: DecimalString.optional(),
  tax_amount: DecimalString.optional(),
  tip_amount: DecimalString.optional(),
  total_amount: DecimalString,
  line_items: z.array(LineItemInput).min(1).max(500),
  register_id: ResourceId.nullable().optional(),
  external_id: OptionalText(200),
  note: OptionalText(2000),
};

const relatedFields = {
  related_operation_id: ResourceId.nullable().optional(),
  external_related_operation: ExternalRelatedOperation.nullable().optional(),
};

// Each request variant has an id, so the document names it (SaleInput, ReturnInput, ...) and the
// body's discriminator can map each type to it.

// Sale carries no related-operation fields; a sale that sends them breaks rule 4.2.2 (422),
// so they are accepted by the shape and refused by the rule with the field named.
const SaleInput = z
  .strictObject({
    type: z.literal('sale'),
    ...goodsMovementFields,
    ...relatedFields,
    cart_level_discounts: z.array(CartLevelDiscountInput).max(50).optional(),
    lottery_code: Text(50)
      .nullable()
      .optional()
      .describe('Italy (RT): the customer’s lotteria degli scontrini code, 8 characters [A-Z0-9]; only with electronic payments'),
  })
  .meta({ id: 'Sale' });
const ReturnInput = z.strictObject({ type: z.literal('return'), ...goodsMovementFields, ...relatedFields }).meta({ id: 'Return' });
const ExchangeInput = z.strictObject({ type: z.literal('exchange'), ...goodsMovementFields, ...relatedFields }).meta({ id: 'Exchange' });

const sessionFields = {
  source: z.literal('POS').optional(),
  register_id: ResourceId,
  currency: Currency.optional(),
  external_id: OptionalText(200),
};

const SessionOpenInput = z
  .strictObject({
    type: z.literal('session_open'),
    ...sessionFields,
    // A negative amount is well-formed but impossible: 409 session_invalid_state, not 400.
    opening_amount: DecimalString.optional(),
  })
  .meta({ id: 'SessionOpen' });
const SessionCashAdjustmentInput = z
  .strictObject({
    type: z.literal('session_cash_adjustment'),
    ...sessionFields,
    amount: DecimalString,
    note: OptionalText(2000),
  })
  .meta({ id: 'SessionCashAdjustment' });
const SessionCashCountInput = z
  .strictObject({
    type: z.literal('session_cash_count'),
    ...sessionFields,
    counted_closing_amount: DecimalString,
    discrepancy_note: OptionalText(2000),
  })
  .meta({ id: 'SessionCashCount' });
const SessionCloseInput = z
  .strictObject({
    type: z.literal('session_close'),
    ...sessionFields,
    closing_adjustment_amount: DecimalString.optional(),
    closing_adjustment_note: OptionalText(2000),
  })
  .meta({ id: 'SessionClose' });

export const CreateOperationBody = z
  .discriminatedUnion('type', [
    SaleInput,
    ReturnInput,
    ExchangeInput,
    SessionOpenInput,
    SessionCashAdjustmentInput,
    SessionCashCountInput,
    SessionCloseInput,
  ])
  .meta({ discriminator: { propertyName: 'type' } });

export type CreateOperationInput = z.infer<typeof CreateOperationBody>;
export type GoodsMovementBody = z.infer<typeof SaleInput> | z.infer<typeof ReturnInput> | z.infer<typeof ExchangeInput>;
export type SessionEventBody = Exclude<CreateOperationInput, GoodsMovementBody>;

export const PaymentInput = z.strictObject({
  payment_id: Text(200).optional(),
  method: PaymentMethodInput,
  amount: DecimalString,
  currency: Currency.optional(),
  status: z.enum(['captured', 'pending', 'authorized', 'refunded', 'partially_refunded']).optional(),
  processor: OptionalText(100),
  card_brand: OptionalText(50),
  processor_reference: OptionalText(200),
  processed_at: TimestampInput.nullable().optional(),
  gift_card_id: OptionalText(200),
});

/**
 * A POS may complete offline and send the sale later, so completed_at may lie in the past;
 * ahead of the service's clock only by clock skew, never a post-dated sale.
 */
const COMPLETED_AT_MAX_AHEAD_HOURS = 24;
const CompletedAtInput = boundedTimestampInput(
  () => Date.now() + COMPLETED_AT_MAX_AHEAD_HOURS * 3_600_000,
  `from 1970-01-01T00:00:00Z to ${COMPLETED_AT_MAX_AHEAD_HOURS} hours after the service's current time`,
);

export const CompleteOperationBody = z.strictObject({
  payments: z.array(PaymentInput).max(50).default([]),
  completed_at: CompletedAtInput.optional(),
});

export const VoidOperationBody = z.strictObject({ reason: z.enum(VOID_REASONS) });

export const ListOperationsQuery = z.strictObject({
  register_id: ResourceId.optional(),
  session_id: ResourceId.optional(),
  type: z.enum(['sale', 'return', 'exchange', 'session_open', 'session_cash_adjustment', 'session_cash_count', 'session_close']).optional(),
  status: z.enum(['open', 'completed', 'voided']).optional(),
  created_from: TimestampInput.optional(),
  created_to: TimestampInput.optional(),
  ...PageQuery,
});

// ---- responses ----

const TaxView = z.object({ id: z.string(), name: z.string(), rate: z.string(), tax_amount: z.string() });
export const LineItemView = z.object({
  id: z.string(),
  type: z.enum(['item', 'gift_card']),
  title: z.string(),
  quantity: z.number(),
  unit_price: z.string(),
  total_amount: z.string(),
  sku_identifier: z.string(),
  taxes: z.array(TaxView),
  gift_card_id: z.string().nullable(),
});
export const PaymentView = z.object({
  id: z.string(),
  payment_id: z.string().nullable(),
  method: PaymentMethodView,
  amount: z.string(),
  currency: z.string(),
  status: z.string(),
  processor: z.string().nullable(),
  card_brand: z.string().nullable(),
  processor_reference: z.string().nullable(),
  processed_at: z.string().nullable(),
  gift_card_id: z.string().nullable(),
});
const CartLevelDiscountView = z.object({ id: z.string(), amount: z.string(), description: z.string().nullable() });


const common = {
  id: z.string(),
  merchant_id: z.string(),
  source: z.enum(['POS', 'ONLINE']),
  status: z.enum(['open', 'completed', 'voided']),
  currency: z.string(),
  resource_version: z.number().int(),
  location_id: z.string().nullable(),
  register_id: z.string().nullable(),
  session_id: z.string().nullable(),
  sequence_number: z.number().int().nullable(),
  external_id: z.string().nullable(),
  completed_at: Timestamp.nullable(),
  voided_at: Timestamp.nullable(),
  void_reason: z.string().nullable(),
  created_at: Timestamp,
  updated_at: Timestamp,
};

const goodsCommon = {
  ...common,
  pretax_amount: z.string(),
  tax_amount: z.string(),
  tip_amount: z.string(),
  total_amount: z.string(),
  line_items: z.array(LineItemView),
  payments: z.array(PaymentView),
  fiscal_information: FiscalInformation.nullable(),
  receipt_id: z.string().nullable(),
  note: z.string().nullable(),
};

const relatedViews = {
  related_operation_id: z.string().optional(),
  external_related_operation: z
    .object({
      description: z.string(),
      external_operation_id: z.string(),
      document_number: z.string().optional(),
      device_serial: z.string().optional(),
      issued_at: z.string().optional(),
    })
    .optional(),
};

export const SaleOperation = z
  .object({ type: z.literal('sale'), ...goodsCommon, cart_level_discounts: z.array(CartLevelDiscountView), lottery_code: z.string().nullable() })
  .meta({ id: 'SaleOperation' });
export const ReturnOperation = z.object({ type: z.literal('return'), ...goodsCommon, ...relatedViews }).meta({ id: 'ReturnOperation' });
export const ExchangeOperation = z
  .object({ type: z.literal('exchange'), ...goodsCommon, ...relatedViews })
  .meta({ id: 'ExchangeOperation' });
export const SessionOpenOperation = z
  .object({ type: z.literal('session_open'), ...common, opening_amount: z.string() })
  .meta({ id: 'SessionOpenOperation' });
export const SessionCashAdjustmentOperation = z
  .object({ type: z.literal('session_cash_adjustment'), ...common, amount: z.string(), note: z.string().nullable() })
  .meta({ id: 'SessionCashAdjustmentOperation' });
export const SessionCashCountOperation = z
  .object({
    type: z.literal('session_cash_count'),
    ...common,
    counted_closing_amount: z.string(),
    expected_closing_amount: z.string(),
    closing_cashcount_diff: z.string(),
    discrepancy_note: z.string().nullable(),
  })
  .meta({ id: 'SessionCashCountOperation' });
export const SessionCloseOperation = z
  .object({
    type: z.literal('session_close'),
    ...common,
    closing_adjustment_amount: z.string().nullable(),
    closing_adjustment_note: z.string().nullable(),
  })
  .meta({ id: 'SessionCloseOperation' });

export const Operation = z
  .discriminatedUnion('type', [
    SaleOperation,
    ReturnOperation,
    ExchangeOperation,
    SessionOpenOperation,
    SessionCashAdjustmentOperation,
    SessionCashCountOperation,
    SessionCloseOperation,
  ])
  .meta({ id: 'Operation', discriminator: { propertyName: 'type' } });

export type OperationView = z.infer<typeof Operation>;

export const OperationList = cursorListOf(Operation);
