import { z } from 'zod';
import { PaymentMethodInput, ResourceId, Timestamp } from '../common/schemas.js';
import {
  Cashier,
  Metadata,
  MetadataInput,
  OrganizationCartDiscount,
  OrganizationFiscal,
  OrganizationLineItem,
  OrganizationPayment,
  OrganizationTotals,
} from '../styleO/schemas.js';

const Currency = z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code such as EUR');
const Text = (max: number) => z.string().min(1).max(max);

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

// ---- requests ----

const RefundPaymentInput = z.strictObject({
  method: PaymentMethodInput,
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