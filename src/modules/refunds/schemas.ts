import { z } from 'zod';
import { ResourceId, Timestamp } from '../common/schemas.js';
import { Metadata, MetadataInput, MinorUnits, Rate } from '../organizations/schemas.js';

const Currency = z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code such as EUR');
const Text = (max: number) => z.string().min(1).max(max);

// ---- Style O documents (contract 2.8): line items, cart discounts, payments, totals ----

export const LineDiscount = z.object({
  id: z.string(),
  source: z.string(),
  type: z.string(),
  label: z.string().nullable(),
  rate: Rate.nullable(),
  amount: MinorUnits,
});

export const CartDiscountAllocation = z.object({ discount_id: z.string(), amount: MinorUnits, label: z.string().nullable() });

export const LineTax = z.object({
  rate: Rate,
  category: z.string().describe('standard, reduced, zero or outside_scope'),
  included_in_price: z.boolean(),
  taxable_amount: MinorUnits,
  tax_amount: MinorUnits,
});

export const OrganizationLineItem = z
  .object({
    id: z.string(),
    position: z.number().int(),
    description: z.string(),
    quantity: z.number(),
    unit: z.string().nullable(),
    unit_price_gross: MinorUnits,
    product_ref: z.string().nullable(),
    flags: z.array(z.string()),
    subtotal_gross: MinorUnits,
    line_discounts: z.array(LineDiscount),
    line_discount_amount: MinorUnits,
    subtotal_after_line_discounts: MinorUnits,
    cart_discount_allocations: z.array(CartDiscountAllocation),
    cart_discount_amount: MinorUnits,
    total_gross: MinorUnits,
    tax: LineTax,
    total_net: MinorUnits,
    original_line_item_id: z
      .string()
      .nullable()
      .describe('On a refund: the line item of the original sale this line returns'),
  })
  .meta({ id: 'OrganizationLineItem' });

export const OrganizationCartDiscount = z
  .object({
    id: z.string(),
    source: z.string(),
    type: z.string(),
    label: z.string().nullable(),
    code: z.string().nullable(),
    allocation_method: z.string(),
    rate: Rate.nullable(),
    amount: MinorUnits.nullable().describe('Nominal amount of a fixed-amount discount'),
    total_amount: MinorUnits.describe('What this document applies of the discount (the sum of its line allocations)'),
  })
  .meta({ id: 'OrganizationCartDiscount' });

const nullableText = z.string().nullable();

export const OrganizationPayment = z
  .object({
    id: z.string(),
    method: z.string(),
    direction: z.enum(['charge', 'refund']).describe('charge: the customer pays; refund: the money goes back to the customer'),
    amount: MinorUnits.describe('Positive; the direction gives the sign'),
    currency: z.string(),
    reference: nullableText,
    status: z.string(),
    cash: z.object({ amount_tendered: MinorUnits.nullable() }).optional(),
    card: z
      .object({ scheme: nullableText, last4: nullableText, authorization_code: nullableText, terminal_id: nullableText, application_id: nullableText })
      .optional(),
    wallet: z.object({ provider: nullableText, scheme: nullableText, last4: nullableText, authorization_code: nullableText }).optional(),
    voucher: z.object({ code: nullableText, type: nullableText }).optional(),
    gift_card: z.object({ gift_card_id: nullableText, last4: nullableText }).optional(),
    online: z.object({ provider: nullableText, transaction_reference: nullableText }).optional(),
  })
  .meta({ id: 'OrganizationPayment' });

export const OrganizationTotals = z
  .object({
    subtotal_gross: MinorUnits,
    total_line_discounts: MinorUnits,
    subtotal_after_line_discounts: MinorUnits,
    total_cart_discounts: MinorUnits,
    subtotal_after_all_discounts: MinorUnits,
    rounding_adjustment: MinorUnits,
    total_gross: MinorUnits,
    total_net: MinorUnits,
    total_tax: MinorUnits,
    tax_breakdown: z.array(
      z.object({ rate: Rate, category: z.string(), taxable_amount: MinorUnits, tax_amount: MinorUnits, total_gross: MinorUnits }),
    ),
    net_payable: MinorUnits.describe('What the customer pays; negative on refunds (money back). The only amount that may be negative.'),
  })
  .meta({
    id: 'OrganizationTotals',
    description:
      'subtotal_gross − total_line_discounts = subtotal_after_line_discounts; − total_cart_discounts = subtotal_after_all_discounts; + rounding_adjustment = total_gross = total_net + total_tax. tax_breakdown sums the lines per rate and category.',
  });

const StartEvent = z.object({
  signed_at: Timestamp,
  transaction_counter: z.number().int(),
  signature_counter: z.number().int(),
  signature: z.string(),
  process_type: z.string(),
  process_data: z.string(),
});

const EndEvent = StartEvent.extend({ public_key: z.string() });

export const OrganizationFiscal = z
  .object({
    regime: z.string(),
    document_type: z.string(),
    transmission_status: z.enum(['pending', 'succeeded', 'failed']),
    fiscal_unit_id: z.string().nullable(),
    document_number: z.string().nullable(),
    transmitted_at: Timestamp.nullable(),
    verification: z
      .object({
        url: z.string().nullable(),
        qr_data: z.string().nullable().describe('The exact string to encode in the receipt QR code (DSFinV-K V0)'),
      })
      .nullable(),
    tse_serial: z.string().nullable(),
    client_id: z.string().nullable(),
    signature_algorithm: z.string().nullable(),
    time_format: z.string().nullable(),
    start_event: StartEvent.nullable(),
    end_event: EndEvent.nullable(),
    error: z
      .object({
        phase: z.number().int().nullable().describe('1: before the device recorded the start; 2: after it'),
        reason: z.string(),
        message: z.string(),
        failed_at: Timestamp,
        attempts: z.number().int(),
        next_attempt_at: Timestamp.nullable(),
      })
      .nullable()
      .describe('Why the last signing attempt failed, while fiscal_state is failed'),
  })
  .meta({ id: 'OrganizationFiscal' });

export const Cashier = z.object({ id: z.string(), display_name: z.string().nullable() });

export const RefundData = z.object({
  original_operation_id: z.string(),
  refund_type: z.enum(['full', 'partial']),
  reason: z.string().nullable(),
  currency: z.string(),
  line_items: z.array(OrganizationLineItem),
  cart_discounts: z.array(OrganizationCartDiscount),
  payments: z.array(OrganizationPayment),
  totals: OrganizationTotals,
});

export const RefundOperation = z
  .object({
    id: z.string(),
    object: z.literal('operation'),
    type: z.literal('refund'),
    state: z.enum(['open', 'completed', 'cancelled']),
    register_id: z.string(),
    location_id: z.string(),
    organization_id: z.string(),
    external_id: z.string().nullable(),
    sequence_number: z.number().int().describe('Register-scoped, shared with every operation of the register'),
    cashier: Cashier.nullable(),
    fiscal: OrganizationFiscal.nullable().describe('null until signing was attempted'),
    fiscal_state: z.enum(['pending', 'succeeded', 'failed']).describe('Tracked apart from state'),
    references: z.object({ original_operation_id: z.string(), reason: z.string().nullable() }),
    metadata: Metadata,
    started_at: Timestamp.nullable().describe('Time of the fiscal start event'),
    completed_at: Timestamp.nullable(),
    created_at: Timestamp,
    data: RefundData,
  })
  .meta({ id: 'RefundOperation', description: 'Refund operation (Style O, contract 2.8)' });

export type RefundOperationView = z.infer<typeof RefundOperation>;
export type OrganizationLineItemView = z.infer<typeof OrganizationLineItem>;
export type OrganizationCartDiscountView = z.infer<typeof OrganizationCartDiscount>;
export type OrganizationPaymentView = z.infer<typeof OrganizationPayment>;
export type OrganizationFiscalView = z.infer<typeof OrganizationFiscal>;

// ---- requests ----

const RefundPaymentInput = z.strictObject({
  method: Text(50).describe('e.g. cash, card, gift_card'),
  amount: z.number().int().min(0).describe('Integer minor units, positive'),
  currency: Currency.optional().describe('Defaults to the sale\'s currency; another one is 422'),
  reference: Text(200).optional(),
  cash: z.strictObject({ amount_tendered: z.number().int().min(0).optional() }).optional(),
  card: z
    .strictObject({
      scheme: Text(50).optional(),
      last4: z.string().regex(/^\d{4}$/).optional(),
      authorization_code: Text(100).optional(),
      terminal_id: Text(100).optional(),
      application_id: Text(100).optional(),
    })
    .optional(),
  wallet: z
    .strictObject({
      provider: Text(50).optional(),
      scheme: Text(50).optional(),
      last4: z.string().regex(/^\d{4}$/).optional(),
      authorization_code: Text(100).optional(),
    })
    .optional(),
  voucher: z.strictObject({ code: Text(100).optional(), type: Text(50).optional() }).optional(),
  gift_card: z.strictObject({ gift_card_id: Text(200).optional(), last4: z.string().regex(/^\d{4}$/).optional() }).optional(),
  online: z.strictObject({ provider: Text(50).optional(), transaction_reference: Text(200).optional() }).optional(),
});

export const CreateRefundBody = z
  .strictObject({
    original_operation_id: ResourceId.describe('The completed sale of this organization being refunded'),
    refund_type: z
      .enum(['full', 'partial'])
      .default('full')
      .describe('full (default): every line of a sale that has no refund yet; partial: the quantities named in line_items'),
    line_items: z
      .array(
        z.strictObject({
          line_item_id: ResourceId.describe('id of a line item of the original sale'),
          quantity: z.number().positive().max(1_000_000).describe('How much of it comes back; at most what earlier refunds left'),
        }),
      )
      .min(1)
      .max(500)
      .optional()
      .describe(
        'partial only (required there): what comes back. Each line is refunded at its share of the sale line\'s amounts after all discounts; refunds together never exceed the sale (422 validation_error naming the field).',
      ),
    reason: Text(500).optional(),
    cashier: z.strictObject({ id: Text(100), display_name: Text(200).optional() }).optional(),
    external_id: Text(200).optional(),
    metadata: MetadataInput.optional(),
    payments: z
      .array(RefundPaymentInput)
      .max(50)
      .optional()
      .describe(
        'How the money goes back; the amounts must sum to the refund\'s total_gross. Optional: a full refund repeats the sale\'s payments, and any refund of a sale paid by one method goes back by that method.',
      ),
  })
  .superRefine((body, ctx) => {
    if (body.refund_type === 'partial' && !body.line_items) {
      ctx.addIssue({ code: 'custom', path: ['line_items'], message: 'is required for a partial refund' });
    }
    if (body.refund_type === 'full' && body.line_items) {
      ctx.addIssue({ code: 'custom', path: ['line_items'], message: 'is only for partial refunds; a full refund returns every line' });
    }
  });

export type CreateRefundInput = z.infer<typeof CreateRefundBody>;

/** Complete and cancel take no body (or `{}`). */
export const EmptyBody = z.strictObject({}).nullish();

export const OperationIdParams = z.strictObject({ id: ResourceId });
export const RegisterIdParams = z.strictObject({ id: ResourceId });
