import { z } from 'zod';
import { INVOICE_STATES } from '../../domain/invoices/invoiceStates.js';
import { SERIES_PATTERN } from '../../domain/invoices/invoiceNumber.js';
import { TAX_ID_TYPES } from '../../domain/invoices/partyTaxId.js';
import { NATURE_CODE_PATTERN, VAT_CATEGORIES } from '../../domain/invoices/vatCategory.js';
import { RECIPIENT_SIMULATIONS } from '../../einvoicing/invoiceChannel.js';
import { PageQuery, ResourceId, Timestamp, TimestampInput } from '../common/schemas.js';
import { CountryAlpha2, Metadata, MetadataInput, MetadataPatch, MinorUnits, OrganizationTotals, Rate } from '../styleO/schemas.js';

// The invoice (contract 2.10; DESIGN "E-invoicing"): requests and the resource. Amounts are
// integer minor units, rates and quantities decimal strings.

const Text = (max: number) => z.string().min(1).max(max);
const DateOnly = z.iso.date().describe('A date, YYYY-MM-DD');
const Currency = z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code such as EUR');
const Email = z.email().max(256);

const QUANTITY_TEXT = /^\d{1,12}(\.\d{1,8})?$/;
const DecimalRate = z
  .string()
  .regex(/^(0(\.\d{1,6})?|1(\.0{1,6})?)$/, 'must be a decimal string from 0 to 1 with at most 6 decimals, e.g. "0.22"');

export const JURISDICTIONS = ['IT', 'DE'] as const;
export const DOCUMENT_TYPES = ['invoice', 'simplified_invoice', 'credit_note', 'debit_note', 'deferred_invoice', 'self_invoice'] as const;

const Quantity = z
  .union([
    z.number().positive().max(1e12).refine((n) => QUANTITY_TEXT.test(String(n)), 'must have at most 8 decimals'),
    z.string().regex(QUANTITY_TEXT, 'must be a decimal string with at most 8 decimals, e.g. "2.5"').refine((s) => Number(s) > 0, 'must be positive'),
  ])
  .describe('Positive, at most 8 decimals; a decimal string or a number');

const AddressInput = z.strictObject({
  line1: Text(200),
  line2: z.string().max(200).nullable().optional(),
  city: Text(100),
  state: z.string().max(100).nullable().optional().describe('Italy: the two-letter provincia, e.g. MI'),
  postal_code: Text(20),
  country: CountryAlpha2,
});

const ContactInput = z.strictObject({
  name: Text(200).optional(),
  phone: Text(50).optional(),
  email: Email.optional(),
});

const partyFields = {
  legal_name: Text(200),
  tax_id: Text(40)
    .optional()
    .describe('VAT id (with or without its country prefix: IT01234567890, DE123456789) or a national tax code (codice fiscale, Steuernummer)'),
  tax_id_type: z
    .enum(TAX_ID_TYPES)
    .optional()
    .describe('vat_id or tax_code; left out, it is inferred: a two-letter prefix, 11 Italian or 9 German digits are a VAT id, anything else a tax code'),
  address: AddressInput,
  sdi_code: z.string().regex(/^[A-Z0-9]{6,7}$/).optional().describe('Italy: the recipient code, used when routing.codice_destinatario is left out'),
  pec_address: Email.optional().describe('Italy: certified e-mail (PEC) address, used when routing.pec_address is left out'),
  contact: ContactInput.optional().describe('Germany: the seller contact (BG-6) XRechnung requires'),
  email: Email.optional().describe('Germany: the party\'s electronic address (BT-34 / BT-49) XRechnung requires'),
};

const BuyerInput = z.strictObject(partyFields);

/** The seller's fields, each merged over the organization's defaults (legal name, address, VAT id of the jurisdiction's fiscal identity). */
const SellerInput = z.strictObject({ ...partyFields, legal_name: Text(200).optional(), address: AddressInput.optional() });

const DiscountInput = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('amount'),
    amount: MinorUnits.min(0).describe('Minor units off the line\'s quantity × unit_price_net'),
    source: Text(50).optional(),
    label: Text(200).optional(),
  }).meta({ id: 'InvoiceDiscountByAmount' }),
  z.strictObject({
    type: z.literal('rate'),
    rate: DecimalRate.describe('The fraction of quantity × unit_price_net taken off, e.g. "0.1"'),
    source: Text(50).optional(),
    label: Text(200).optional(),
  }).meta({ id: 'InvoiceDiscountByRate' }),
]).meta({ discriminator: { propertyName: 'type' } });

const LineItemInput = z.strictObject({
  description: Text(1000),
  quantity: Quantity,
  unit_price_net: MinorUnits.min(0).max(1e13).describe('Net price of one unit (VAT excluded), minor units'),
  tax: z.strictObject({
    rate: DecimalRate,
    category: z
      .enum(VAT_CATEGORIES)
      .optional()
      .describe('UNCL 5305 VAT category; left out, it follows from rate and nature_code (S for a positive rate, Z for rate 0 without a natura code)'),
    included_in_price: z.literal(false).optional().describe('Invoice prices are net: false, or left out'),
  }),
  unit: Text(20).optional().describe('Unit of measure: UN/ECE Rec 20 code (C62, HUR, KGM) or text'),
  discount: DiscountInput.optional(),
  product_ref: Text(35).optional(),
  nature_code: z
    .string()
    .regex(NATURE_CODE_PATTERN, 'must be an Italian natura code N1 ... N7 (sub-codes such as N2.1, N6.3)')
    .optional()
    .describe('Italy: the natura code of a zero-rated line'),
});

const PaymentTermsInput = z.strictObject({
  method: Text(50)
    .optional()
    .describe('How the buyer pays: credit_transfer (the default; FatturaPA MP05, XRechnung 58), cash, cheque, card, direct_debit, ...; each format lists what it accepts (422 naming the field otherwise)'),
  due_date: DateOnly.optional(),
  iban: z.string().min(15).max(40).optional().describe('The account to pay to (credit transfer)'),
  installments: z.array(z.strictObject({ due_date: DateOnly, amount: MinorUnits.min(1) })).max(50).optional().describe('Their amounts add up to total_gross'),
});

const RoutingInput = z.strictObject({
  codice_destinatario: z
    .string()
    .regex(/^[A-Z0-9]{6,7}$/, 'must be 6 or 7 upper-case letters and digits')
    .optional()
    .describe('Italy: 7 characters for a business recipient (FPR12; 0000000 without a code), 6 for a public administration\'s office (FPA12)'),
  pec_address: Email.optional().describe('Italy: where the SdI delivers with codice_destinatario 0000000'),
  buyer_reference: Text(200).optional().describe('Germany: the buyer reference (BT-10), the Leitweg-ID of a public buyer; required for DE'),
});

const ReferencesInput = z.strictObject({
  operation_id: ResourceId.optional().describe('An operation of this organization the invoice documents'),
  original_invoice_id: ResourceId.optional().describe('credit_note (required) and debit_note: the submitted invoice it corrects'),
  delivery_date: DateOnly.optional(),
  purchase_order_ref: Text(50).optional().describe('The buyer\'s order (DatiOrdineAcquisto, BT-13)'),
  contract_ref: Text(50).optional(),
});

const Notes = z.array(Text(2000)).max(20);

const invoiceFields = {
  document_type: z.enum(DOCUMENT_TYPES).optional().describe('Default invoice'),
  currency: Currency.optional().describe('ISO 4217; default EUR'),
  seller: SellerInput.optional(),
  series: z
    .string()
    .regex(SERIES_PATTERN, 'must be 1-8 upper-case letters, digits or hyphens')
    .optional()
    .describe('Numbering series (default INV): invoice_number is <series>/<year>/<n>'),
  issue_date: DateOnly.optional().describe('Left out: the day the invoice is submitted (local date of the jurisdiction)'),
  payment_terms: PaymentTermsInput.optional(),
  routing: RoutingInput.optional(),
  notes: Notes.optional(),
  references: ReferencesInput.optional(),
};

export const CreateInvoiceBody = z.strictObject({
  jurisdiction: z.enum(JURISDICTIONS).describe('IT (FatturaPA through the SdI) or DE (XRechnung)'),
  buyer: BuyerInput,
  line_items: z.array(LineItemInput).min(1).max(1000),
  ...invoiceFields,
  metadata: MetadataInput.optional(),
  submit: z.boolean().optional().describe('true: submit at once (the answer is the submitted invoice)'),
});
export type CreateInvoiceInput = z.infer<typeof CreateInvoiceBody>;

export const UpdateInvoiceBody = z.strictObject({
  jurisdiction: z.enum(JURISDICTIONS).optional(),
  buyer: BuyerInput.optional(),
  line_items: z.array(LineItemInput).min(1).max(1000).optional(),
  ...invoiceFields,
  metadata: MetadataPatch.optional(),
});
export type UpdateInvoiceInput = z.infer<typeof UpdateInvoiceBody>;

export const SimulateInvoiceBody = z.strictObject({
  event: z.enum(RECIPIENT_SIMULATIONS).describe('The public administration\'s answer: recipient_accepted (NE EC01), recipient_refused (NE EC02), deadline_passed (DT)'),
});

export const ListInvoicesQuery = z.strictObject({
  organization_id: ResourceId.describe('The organization whose invoices are listed (the one the call acts for)'),
  state: z.enum(INVOICE_STATES).optional(),
  document_type: z.enum(DOCUMENT_TYPES).optional(),
  jurisdiction: z.enum(JURISDICTIONS).optional(),
  buyer_tax_id: Text(40).optional().describe('The buyer\'s tax id as the invoice shows it (a VAT id with its prefix)'),
  from: TimestampInput.optional().describe('Created at or after (inclusive)'),
  to: TimestampInput.optional().describe('Created at or before (inclusive)'),
  ...PageQuery,
});
export type ListInvoicesQueryInput = z.infer<typeof ListInvoicesQuery>;

// ---- the resource ----

const nullableText = z.string().nullable();

const Party = z
  .object({
    legal_name: z.string(),
    tax_id: nullableText,
    tax_id_type: z.enum(TAX_ID_TYPES).nullable(),
    address: z.object({ line1: z.string(), line2: nullableText, city: z.string(), state: nullableText, postal_code: z.string(), country: z.string() }),
    sdi_code: nullableText,
    pec_address: nullableText,
    contact: z.object({ name: nullableText, phone: nullableText, email: nullableText }).nullable(),
    email: nullableText,
  })
  .meta({ id: 'InvoiceParty' });

const InvoiceLineItem = z
  .object({
    description: z.string(),
    quantity: z.string().describe('Decimal string'),
    unit_price_net: MinorUnits,
    tax: z.object({ rate: Rate, category: z.enum(VAT_CATEGORIES), included_in_price: z.literal(false) }),
    unit: nullableText,
    discount: z
      .object({ source: nullableText, type: z.enum(['amount', 'rate']), label: nullableText, rate: Rate.nullable(), amount: MinorUnits.describe('What it takes off the line') })
      .nullable(),
    product_ref: nullableText,
    nature_code: nullableText,
    line_total_net: MinorUnits.describe('round(quantity × unit_price_net) − discount'),
    line_total_tax: MinorUnits.describe('The line\'s share of its VAT row\'s tax (rows are taxed once, half up)'),
    line_total_gross: MinorUnits,
  })
  .meta({ id: 'InvoiceLineItem' });

// Contract 2.8's totals (as Style O's), with the invoice's breakdown rows.
const InvoiceTotals = OrganizationTotals.extend({
  tax_breakdown: z.array(
    z.object({ rate: Rate, category: z.enum(VAT_CATEGORIES), nature_code: nullableText, taxable_amount: MinorUnits, tax_amount: MinorUnits, total_gross: MinorUnits }),
  ),
  net_payable: MinorUnits.describe('total_gross; negative on a credit note (owed to the buyer)'),
}).meta({
  id: 'InvoiceTotals',
  description:
    'As contract 2.8: subtotal_gross − total_line_discounts = subtotal_after_line_discounts = subtotal_after_all_discounts (invoices have no cart discounts or rounding) = total_gross = total_net + total_tax. Each tax_breakdown row (rate, category, natura) is taxed once, half up; subtotal_gross taxes the lines before their discounts the same way.',
});

const FiscalError = z.object({ code: z.string(), message: z.string() });

const InvoiceFiscal = z
  .object({
    jurisdiction: z.enum(JURISDICTIONS),
    transmission_status: z
      .enum(['not_submitted', 'pending', 'failed', 'transmitted', 'rejected'])
      .describe('pending: waiting to be handed to the authority; failed: the last attempt failed and is retried (fiscal_errors says why); transmitted: the authority has it (DE: at submission, or the buyer\'s mail server took it); rejected: the authority refused it (DE smtp: the mail server refused the recipient for good)'),
    delivery_status: z.enum(['delivered', 'undeliverable', 'accepted', 'refused']).nullable().describe('What the channel reported about the recipient (IT; DE smtp: undeliverable)'),
    authority_identifier: nullableText.describe('IT: the SdI\'s IdentificativoSdI'),
    chain_hash: nullableText.describe('Lowercase hex SHA-256 of the previous submitted invoice\'s chain_hash (same organization and jurisdiction; 64 zeros for the first) followed by the lowercase hex SHA-256 of the document'),
    transmitted_at: Timestamp.nullable(),
    delivered_at: Timestamp.nullable(),
    verification: z
      .object({ url: nullableText.describe('Where the document as transmitted is served (with the API key)'), qr_data: z.null() })
      .describe('No public verification service exists for these documents: qr_data is null'),
    jurisdiction_data: z.record(z.string(), z.unknown()).nullable().describe('IT: {file_name, format FPR12|FPA12, progressivo}; DE: {file_name, format, customization_id}'),
    fiscal_errors: z.array(FiscalError).describe('The authority\'s errors (IT NS: e.g. 00305), the recipient\'s refusal, or why transmission is being retried'),
  })
  .meta({ id: 'InvoiceFiscal' });

export const Invoice = z
  .object({
    id: z.string(),
    object: z.literal('invoice'),
    organization_id: z.string(),
    jurisdiction: z.enum(JURISDICTIONS),
    document_type: z.enum(DOCUMENT_TYPES),
    state: z.enum(INVOICE_STATES),
    series: z.string(),
    invoice_number: nullableText.describe('<series>/<year>/<n>, assigned at submission'),
    issue_date: DateOnly.nullable(),
    currency: z.string(),
    seller: Party,
    buyer: Party,
    line_items: z.array(InvoiceLineItem),
    totals: InvoiceTotals,
    payment_terms: z
      .object({ method: nullableText, due_date: DateOnly.nullable(), iban: nullableText, installments: z.array(z.object({ due_date: DateOnly, amount: MinorUnits })) })
      .nullable(),
    routing: z.object({ codice_destinatario: nullableText, pec_address: nullableText, buyer_reference: nullableText }),
    notes: z.array(z.string()),
    references: z.object({
      operation_id: nullableText,
      original_invoice_id: nullableText,
      delivery_date: DateOnly.nullable(),
      purchase_order_ref: nullableText,
      contract_ref: nullableText,
    }),
    metadata: Metadata,
    submit: z.boolean().describe('Whether the invoice has been submitted'),
    fiscal: InvoiceFiscal,
    cancellation_credit_note_id: nullableText.describe('The credit note that cancels (or cancelled) this invoice'),
    links: z.object({ document: nullableText, pdf: nullableText }),
    created_at: Timestamp,
    submitted_at: Timestamp.nullable(),
    cancelled_at: Timestamp.nullable(),
  })
  .meta({ id: 'Invoice', description: 'E-invoice (Style O, contract 2.10)' });
export type InvoiceView = z.infer<typeof Invoice>;

export const InvoiceList = z
  .object({ object: z.literal('list'), data: z.array(Invoice), cursor: z.string().nullable().describe('The next page\'s cursor; null on the last') })
  .meta({ id: 'InvoiceList' });
