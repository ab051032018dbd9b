import { Decimal } from 'decimal.js';
import type { Merchant } from '../../db/generated/client.js';
import type { AddressValue } from '../../db/records/address.js';
import type {
  InvoiceLineData,
  InvoicePartyData,
  InvoicePaymentTermsData,
  InvoiceReferencesData,
  InvoiceRoutingData,
} from '../../domain/invoices/invoiceData.js';
import { invoiceLineViolations, type RuleLine } from '../../domain/invoices/invoiceRules.js';
import { invoiceAmounts, type InvoiceLineInput, type InvoiceTotals } from '../../domain/invoices/invoiceTotals.js';
import { resolveTaxId } from '../../domain/invoices/partyTaxId.js';
import { vatCategoryOf } from '../../domain/invoices/vatCategory.js';
import { alpha2Of } from '../../domain/styleO/countries.js';
import type { RuleViolation } from '../../domain/violation.js';
import type { InvoiceJurisdiction } from '../../einvoicing/jurisdictions/invoiceJurisdiction.js';
import type { InvoiceDocumentType, InvoiceJurisdictionCode } from '../../einvoicing/invoiceDocument.js';
import { violationError } from '../operations/createGoodsMovement.js';
import type { CreateInvoiceInput } from './schemas.js';

type PartyInput = CreateInvoiceInput['buyer'];
type SellerInput = NonNullable<CreateInvoiceInput['seller']>;
type LineItemInput = CreateInvoiceInput['line_items'][number];

/** An invoice's content as stored: the request completed with the seller's defaults and every amount. */
export interface InvoiceContentData {
  jurisdiction: InvoiceJurisdictionCode;
  documentType: InvoiceDocumentType;
  currency: string;
  series: string;
  issueDate: string | null;
  seller: InvoicePartyData;
  buyer: InvoicePartyData;
  lineItems: InvoiceLineData[];
  totals: InvoiceTotals;
  paymentTerms: InvoicePaymentTermsData | null;
  routing: InvoiceRoutingData;
  notes: string[];
  references: InvoiceReferencesData;
}

const orNull = <T>(value: T | undefined): T | null => value ?? null;

function addressOf(address: PartyInput['address']): InvoicePartyData['address'] {
  return {
    line1: address.line1,
    line2: orNull(address.line2),
    city: address.city,
    state: orNull(address.state),
    postal_code: address.postal_code,
    country: address.country,
  };
}

function contactOf(contact: PartyInput['contact']): InvoicePartyData['contact'] {
  return contact ? { name: orNull(contact.name), phone: orNull(contact.phone), email: orNull(contact.email) } : null;
}

/** A party as the request sends it, its tax id resolved to a VAT id (with prefix) or a tax code. */
export function partyDataOf(party: PartyInput): InvoicePartyData {
  const address = addressOf(party.address);
  const taxId = resolveTaxId(party.tax_id, party.tax_id_type, address.country);
  return {
    legal_name: party.legal_name,
    tax_id: taxId.taxId,
    tax_id_type: taxId.taxIdType,
    address,
    sdi_code: orNull(party.sdi_code),
    pec_address: orNull(party.pec_address),
    contact: contactOf(party.contact),
    email: orNull(party.email),
  };
}

/**
 * The seller: the organization's legal name and address and the VAT id of its fiscal identity
 * of the jurisdiction's country, with every field the request sends over them (the tax id
 * with its type; the contact field by field).
 */
export function sellerDataOf(organization: Merchant, jurisdiction: InvoiceJurisdiction, input: SellerInput | undefined): InvoicePartyData {
  const stored = organization.address as AddressValue;
  const identity = (organization.fiscalIdentities as Record<string, unknown>[]).find((entry) => entry.country_code === jurisdiction.fiscalIdentityCountry);
  const defaults = partyDataOf({
    legal_name: organization.legalName,
    address: { line1: stored.line1, line2: stored.line2, city: stored.city, postal_code: stored.postal_code, country: alpha2Of(stored.country_code) },
    ...(identity && jurisdiction.sellerVatIdOf(identity) ? { tax_id: jurisdiction.sellerVatIdOf(identity)!, tax_id_type: 'vat_id' as const } : {}),
  });
  if (!input) return defaults;
  const merged = partyDataOf({
    legal_name: input.legal_name ?? defaults.legal_name,
    address: input.address ?? { ...defaults.address },
    ...(input.tax_id ? { tax_id: input.tax_id, tax_id_type: input.tax_id_type } : defaults.tax_id ? { tax_id: defaults.tax_id, tax_id_type: defaults.tax_id_type! } : {}),
    sdi_code: input.sdi_code,
    pec_address: input.pec_address,
    email: input.email,
  });
  return { ...merged, contact: input.contact ? contactOf(input.contact) : defaults.contact };
}

const quantityText = (quantity: number | string): string => new Decimal(quantity).toFixed();

const ruleLineOf = (line: LineItemInput): RuleLine => ({
  quantity: quantityText(line.quantity),
  unitPriceNet: line.unit_price_net,
  discount: line.discount ? (line.discount.type === 'amount' ? { type: 'amount', amount: line.discount.amount } : { type: 'rate', rate: line.discount.rate }) : null,
  rate: line.tax.rate,
  requestedCategory: line.tax.category ?? null,
});

/**
 * The lines with their amounts and the invoice's totals; 422 validation_error naming the field
 * when a discount exceeds its line or a category does not fit its rate.
 */
export function linesAndTotalsOf(inputs: readonly LineItemInput[], documentType: InvoiceDocumentType): { lineItems: InvoiceLineData[]; totals: InvoiceTotals } {
  const ruleLines = inputs.map(ruleLineOf);
  const violations = invoiceLineViolations(ruleLines);
  if (violations.length) throw violationError(violations);
  const lines: InvoiceLineInput[] = inputs.map((input, index) => {
    const natureCode = orNull(input.nature_code);
    return {
      quantity: ruleLines[index].quantity,
      unitPriceNet: input.unit_price_net,
      discount: ruleLines[index].discount,
      rate: input.tax.rate,
      category: vatCategoryOf(input.tax.rate, natureCode, input.tax.category),
      natureCode,
    };
  });
  const { lines: amounts, totals } = invoiceAmounts(lines, { creditNote: documentType === 'credit_note' });
  const lineItems = inputs.map((input, index): InvoiceLineData => ({
    description: input.description,
    quantity: lines[index].quantity,
    unit_price_net: input.unit_price_net,
    tax: { rate: new Decimal(input.tax.rate).toFixed(), category: lines[index].category, included_in_price: false },
    unit: orNull(input.unit),
    discount: input.discount
      ? {
          source: orNull(input.discount.source),
          type: input.discount.type,
          label: orNull(input.discount.label),
          rate: input.discount.type === 'rate' ? new Decimal(input.discount.rate).toFixed() : null,
          amount: amounts[index].discountAmount,
        }
      : null,
    product_ref: orNull(input.product_ref),
    nature_code: lines[index].natureCode,
    line_total_net: amounts[index].net,
    line_total_tax: amounts[index].tax,
    line_total_gross: amounts[index].gross,
  }));
  return { lineItems, totals };
}

/** Totals under another document type: a credit note's net_payable is owed to the buyer. */
export const totalsFor = (totals: InvoiceTotals, documentType: InvoiceDocumentType): InvoiceTotals => ({
  ...totals,
  net_payable: documentType === 'credit_note' && totals.total_gross !== 0 ? -totals.total_gross : totals.total_gross,
});

export const paymentTermsDataOf = (terms: CreateInvoiceInput['payment_terms']): InvoicePaymentTermsData | null =>
  terms
    ? {
        method: orNull(terms.method),
        due_date: orNull(terms.due_date),
        iban: terms.iban ? terms.iban.replace(/\s+/g, '').toUpperCase() : null,
        installments: (terms.installments ?? []).map((installment) => ({ due_date: installment.due_date, amount: installment.amount })),
      }
    : null;

export const routingDataOf = (routing: CreateInvoiceInput['routing']): InvoiceRoutingData => ({
  codice_destinatario: orNull(routing?.codice_destinatario),
  pec_address: orNull(routing?.pec_address),
  buyer_reference: orNull(routing?.buyer_reference),
});

export const referencesDataOf = (references: CreateInvoiceInput['references']): InvoiceReferencesData => ({
  operation_id: orNull(references?.operation_id),
  original_invoice_id: orNull(references?.original_invoice_id),
  delivery_date: orNull(references?.delivery_date),
  purchase_order_ref: orNull(references?.purchase_order_ref),
  contract_ref: orNull(references?.contract_ref),
});

/** 422 validation_error for the first violation, with all of them in details. */
export function throwViolations(violations: RuleViolation[]): void {
  if (violations.length) throw violationError(violations);
}
