import { z } from 'zod';
import { rksvReceiptFields, rtDocumentFields } from '../fiscalRecords/schemas.js';
import { alpha3Of } from '../../domain/styleO/countries.js';
import { PaymentMethodView, Timestamp } from '../common/schemas.js';

// The shapes every Style O module shares: conventions, headers, addresses, and the parts of a
// document (line items, cart discounts, payments, totals, the fiscal block) that refunds and
// canonical receipts both show. The rules read and build those parts as src/domain/styleO/document.ts.

/** Style O conventions (contract 2): integer minor units, decimal-string rates, `object` discriminators. */
export const MinorUnits = z
  .number()
  .int()
  .describe('Integer amount in minor units of the currency (ISO 4217 exponent: EUR cents, JPY yen)');

export const Rate = z.string().describe('Decimal string, e.g. "0.19"');

export const StyleOHeaders = z.object({
  'service-organization': z
    .string()
    .optional()
    .describe(
      'The organization the call acts for. Required with platform keys; an organization key may omit it (another organization is 403); a tenant key sends it unless the path names the organization.',
    ),
});

export const StyleOMutationHeaders = StyleOHeaders.extend({
  'idempotency-key': z
    .string()
    .optional()
    .describe('Optional UUID; a retry with the same key and payload returns the original response, another payload is 409 idempotency_key_conflict'),
});

/** How runIdempotentService treats the Idempotency-Key StyleOMutationHeaders describes. */
export const STYLE_O_IDEMPOTENCY = { required: false, format: 'uuid' } as const;

const MetadataValue = z.union([z.string().max(500), z.number(), z.boolean()]);

/** Free-form key/value data of the integrator: up to 50 keys of at most 40 characters; values up to 500 characters. */
export const MetadataInput = z
  .record(z.string().min(1).max(40), MetadataValue)
  .refine((value) => Object.keys(value).length <= 50, 'must have at most 50 keys')
  .describe('Up to 50 keys (1-40 characters) with string (max 500), number or boolean values');

/** PATCH: the keys sent are merged into the stored metadata; a key sent as null is removed. */
export const MetadataPatch = z
  .record(z.string().min(1).max(40), MetadataValue.nullable())
  .describe('Keys to set (merged into the stored metadata); a key set to null is removed');

export const Metadata = z.record(z.string(), z.unknown());

export const CountryAlpha2 = z
  .string()
  .regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 code in uppercase, e.g. DE')
  .refine((code) => alpha3Of(code) !== undefined, 'is not a supported country')
  .describe('ISO 3166-1 alpha-2, uppercase (e.g. DE, AT, IT)');

export const StyleOAddressInput = z.strictObject({
  line1: z.string().min(1).max(200),
  line2: z.string().max(200).nullable().optional(),
  city: z.string().min(1).max(100),
  state: z.string().max(100).nullable().optional(),
  postal_code: z.string().min(1).max(20),
  country: CountryAlpha2,
});

/** PATCH: only the address fields sent change. */
export const StyleOAddressPatch = z.strictObject({
  line1: z.string().min(1).max(200).optional(),
  line2: z.string().max(200).nullable().optional(),
  city: z.string().min(1).max(100).optional(),
  state: z.string().max(100).nullable().optional(),
  postal_code: z.string().min(1).max(20).optional(),
  country: CountryAlpha2.optional(),
});

export const StyleOAddress = z
  .object({
    line1: z.string(),
    line2: z.string().nullable(),
    city: z.string(),
    state: z.string().nullable(),
    postal_code: z.string(),
    country: z.string().describe('ISO 3166-1 alpha-2'),
  })
  .meta({ id: 'OrganizationAddress' });

export const OrganizationParams = z.strictObject({ organizationId: z.string().min(1).max(64) });

// ---- documents (contract 2.8): line items, cart discounts, payments, totals, the fiscal block ----

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
    method: PaymentMethodView,
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

const SigningError = z
  .object({
    phase: z.number().int().nullable().describe('1: before the device recorded anything of the record; 2: after it'),
    reason: z.string(),
    message: z.string(),
    failed_at: Timestamp,
    attempts: z.number().int(),
    next_attempt_at: Timestamp.nullable(),
  })
  .nullable()
  .describe('Why the last signing attempt failed, while fiscal_state is failed');

/** The Style O fiscal block of a KassenSichV register: both TSE events in full. */
const KassenSichVOrganizationFiscal = z
  .object({
    regime: z.literal('KassenSichV'),
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
    error: SigningError,
  })
  .meta({ id: 'KassenSichVOrganizationFiscal' });

/** The same fields, each also null. */
function nullableFields<T extends Record<string, z.ZodType>>(fields: T): { [K in keyof T]: z.ZodNullable<T[K]> } {
  return Object.fromEntries(Object.entries(fields).map(([key, schema]) => [key, schema.nullable()])) as { [K in keyof T]: z.ZodNullable<T[K]> };
}

const { regime: rksvRegime, suite: rksvSuite, document_type: rksvDocumentType, ...rksvReceiptValues } = rksvReceiptFields;

/**
 * The Style O fiscal block of an RKSV register: the receipt as `fiscal_information` publishes
 * it, in the contract's envelope (tse_serial and client_id as the register's fiscalization
 * names them). RKSV receipts are issued even while the signature device is out, so signing
 * fails only when the register's receipt chain cannot be reached; then the receipt's values
 * are null and `error` says why.
 */
const RksvOrganizationFiscal = z
  .object({
    regime: rksvRegime,
    suite: rksvSuite,
    document_type: rksvDocumentType,
    ...nullableFields(rksvReceiptValues),
    transmission_status: z.enum(['succeeded', 'failed']).describe('succeeded once the receipt is issued, also when it carries the failure marker'),
    fiscal_unit_id: z.string().nullable().describe('The signature device id'),
    transmitted_at: Timestamp.nullable(),
    verification: z
      .object({ url: z.string().nullable(), qr_data: z.string().describe('The machine-readable code to print as the receipt QR code') })
      .nullable(),
    tse_serial: z.string().nullable().describe('The signature device id (field 11), as fiscalization.tse_serial'),
    client_id: z.string().nullable().describe('The Kassen-ID, as fiscalization.client_id'),
    signature_algorithm: z.literal('ES256'),
    error: SigningError,
  })
  .meta({ id: 'RksvOrganizationFiscal' });

const { regime: rtRegime, ...rtDocumentValues } = rtDocumentFields;

/** The Style O fiscal block of an RT register: the documento commerciale, or while the RT could not issue it, the error. */
const RtOrganizationFiscal = z
  .object({
    regime: rtRegime,
    ...nullableFields(rtDocumentValues),
    transmission_status: z.enum(['succeeded', 'failed']),
    fiscal_unit_id: z.string().nullable().describe('The RT’s matricola'),
    transmitted_at: Timestamp.nullable(),
    verification: z.object({ url: z.string().nullable(), qr_data: z.null() }).nullable(),
    error: SigningError,
  })
  .meta({ id: 'RtOrganizationFiscal' });

/** The fiscal block (contract 2.8, 2.9): a union on `regime`, one variant per regime. */
export const OrganizationFiscal = z
  .discriminatedUnion('regime', [KassenSichVOrganizationFiscal, RksvOrganizationFiscal, RtOrganizationFiscal])
  .meta({ id: 'OrganizationFiscal', discriminator: { propertyName: 'regime' } });

export const Cashier = z.object({ id: z.string(), display_name: z.string().nullable() });

export type OrganizationLineItemView = z.infer<typeof OrganizationLineItem>;
export type OrganizationCartDiscountView = z.infer<typeof OrganizationCartDiscount>;
export type OrganizationPaymentView = z.infer<typeof OrganizationPayment>;
export type OrganizationFiscalView = z.infer<typeof OrganizationFiscal>;
