import type { Decimal } from 'decimal.js';
import type { Location, Merchant, Operation, Register } from '../../db/generated/client.js';
import { formatAmount, sumAmounts } from '../../domain/money.js';
import { defaultTimeZone } from '../../domain/countryTimeZones.js';
import { grossByVatRate, vatRateOfLine, vatTable } from '../../domain/vatBreakdown.js';
import type { ReceiptDocument } from '../../receipts/receiptDocument.js';
import { PRINTED_PLACES } from '../../receipts/receiptLocales.js';
import type { AddressValue } from '../../db/records/address.js';
import { lineTaxCodeOf, receiptSectionOf, signedGrossByVatRate } from '../../fiscal/regimes.js';
import { presentFiscalInformation } from '../fiscalRecords/presenter.js';
import type { FiscalInformationView } from '../fiscalRecords/schemas.js';
import { discountsOf, lineItemsOf, paymentsOf } from '../../db/records/operation.js';
import { fiscalRecordOf } from '../operations/records.js';

/**
 * What a receipt shows, frozen when it is issued: later changes to the
 * merchant, location or register do not rewrite a document already handed out.
 */
export interface ReceiptSnapshot {
  /** `refund`: a Style O refund, printed like a return. */
  operation_type: 'sale' | 'return' | 'exchange' | 'refund';
  /** 1 when issued; a refund signed later by the fiscal retry is re-issued with the signature (2, ...). */
  version?: number;
  /**
   * The fiscal document number: the signed record's, or the register's sequence number a
   * refund awaiting its signature is signed under; null for an ONLINE sale. Absent in
   * receipts issued before it was kept here, which take their fiscal record's.
   */
  document_number?: string | null;
  currency: string;
  issued_at: string;
  /** IANA time zone of the location, which the issue time prints in; absent in receipts issued before it was kept here. */
  timezone?: string;
  location_id: string | null;
  register_id: string | null;
  external_reference: string | null;
  issuer: {
    legal_name: string;
    location_name: string | null;
    register_name: string | null;
    /** line2 and state are kept for the Style O receipt; the Style M receipt does not show them. */
    address: { line1: string; line2?: string | null; state?: string | null; city: string; postal_code: string; country_code: string };
    tax_id: string | null;
  };
  /** `tax_code`: what the regime prints instead of the rate (an Italian natura code), or null; absent in receipts issued before it was kept here. */
  line_items: {
    id: string;
    description: string;
    quantity: number;
    unit_price: string;
    total_amount: string;
    tax_rate: string;
    tax_code?: string | null;
    tax_amount: string;
  }[];
  cart_discounts: { description: string | null; amount: string }[];
  totals: { total_gross: string; total_net: string; total_tax: string; tip: string };
  /** The VAT table's rows (vatTable), in cents, from the gross per rate that was signed. */
  tax_breakdown: { rate: string; net: string; tax: string; gross: string }[];
  payments: { method: string; amount: string; details: Record<string, string> }[];
  fiscal: FiscalInformationView | null;
}

/** The tax id of the merchant's fiscal identity in the country the receipt is issued in (an Italian partita IVA in Italy), else of its first. */
function merchantTaxId(merchant: Merchant, countryCode: string): string | null {
  const identities = merchant.fiscalIdentities as Record<string, string>[];
  const identity = identities.find((candidate) => candidate.country_code === countryCode) ?? identities[0];
  if (!identity) return null;
  return identity.vat_id ?? identity.vat_number ?? identity.tax_number ?? null;
}

/** Where an operation took place, as its receipt names it. */
export interface ReceiptPlace {
  location: Pick<Location, 'name' | 'address' | 'timezone'> | null;
  register: Pick<Register, 'name'> | null;
}

export function buildReceiptSnapshot(input: {
  operation: Operation;
  merchant: Merchant;
  location: ReceiptPlace['location'];
  register: ReceiptPlace['register'];
  issuedAt: Date;
}): ReceiptSnapshot {
  const { operation, merchant, location, register } = input;
  const address = (location?.address ?? merchant.address) as AddressValue & { state?: string | null };
  const record = fiscalRecordOf(operation);
  const lineItems = lineItemsOf(operation);
  const lines = lineItems.map((line) => ({
    id: line.id,
    description: line.title,
    quantity: line.quantity,
    unit_price: line.unit_price,
    total_amount: line.total_amount,
    tax_rate: vatRateOfLine(line).toString(),
    tax_code: record && lineTaxCodeOf(record, line),
    tax_amount: formatAmount(sumAmounts(line.taxes.map((tax) => tax.tax_amount))),
  }));
  const movement = { lineItems, cartLevelDiscounts: discountsOf(operation), tipAmount: operation.tipAmount!.toFixed() };
  // A signed operation prints the gross per rate its regime signed; anything else the same rule in its default order.
  const grossByRate = record
    ? signedGrossByVatRate(record, movement)
    : grossByVatRate(
        {
          lines: lines.map((line) => ({ rate: line.tax_rate, gross: line.total_amount })),
          cartDiscounts: movement.cartLevelDiscounts.map((discount) => discount.amount),
          tip: movement.tipAmount,
        },
        PRINTED_PLACES,
      );
  return {
    operation_type: operation.type as ReceiptSnapshot['operation_type'],
    document_number: record?.document_number ?? (operation.sequenceNumber === null ? null : String(operation.sequenceNumber)),
    currency: operation.currency,
    issued_at: input.issuedAt.toISOString(),
    timezone: location?.timezone ?? defaultTimeZone(address.country_code),
    location_id: operation.locationId,
    register_id: operation.registerId,
    external_reference: operation.externalId,
    issuer: {
      legal_name: merchant.legalName,
      location_name: location?.name ?? null,
      register_name: register?.name ?? null,
      address: {
        line1: address.line1,
        line2: address.line2 ?? null,
        state: address.state ?? null,
        city: address.city,
        postal_code: address.postal_code,
        country_code: address.country_code,
      },
      tax_id: merchantTaxId(merchant, address.country_code),
    },
    line_items: lines,
    cart_discounts: movement.cartLevelDiscounts.map((discount) => ({ description: discount.description, amount: discount.amount })),
    totals: {
      total_gross: formatAmount(operation.totalAmount!.toFixed()),
      total_net: formatAmount(operation.pretaxAmount!.toFixed()),
      total_tax: formatAmount(operation.taxAmount!.toFixed()),
      tip: formatAmount(operation.tipAmount!.toFixed()),
    },
    tax_breakdown: vatTable(grossByRate, PRINTED_PLACES).rows.map((row) => ({
      rate: row.rate.toString(),
      gross: formatAmount(row.gross),
      tax: formatAmount(row.tax),
      net: formatAmount(row.net),
    })),
    payments: paymentsOf(operation).map((payment) => ({
      method: payment.method,
      amount: payment.amount,
      details: Object.fromEntries(
        Object.entries({
          payment_id: payment.payment_id,
          status: payment.status,
          processor: payment.processor,
          card_brand: payment.card_brand,
          processor_reference: payment.processor_reference,
          gift_card_id: payment.gift_card_id,
        }).filter((entry): entry is [string, string] => entry[1] !== null),
      ),
    })),
    fiscal: presentFiscalInformation(fiscalRecordOf(operation)),
  };
}

/**
 * The renderers' view model (PDF and hosted page). The VAT table is derived again from
 * each row's rate and gross: the stored rows for a receipt issued now, and a table that adds
 * up for one issued before its rows were computed that way.
 */
export function toReceiptDocument(snapshot: ReceiptSnapshot): ReceiptDocument {
  const fiscal = snapshot.fiscal;
  const vat = vatTable(snapshot.tax_breakdown, PRINTED_PLACES);
  const amounts = (row: { net: Decimal; tax: Decimal; gross: Decimal }) => ({
    net: formatAmount(row.net),
    tax: formatAmount(row.tax),
    gross: formatAmount(row.gross),
  });
  return {
    documentNumber: snapshot.document_number ?? fiscal?.document_number ?? null,
    issuedAt: new Date(snapshot.issued_at),
    timeZone: snapshot.timezone ?? defaultTimeZone(snapshot.issuer.address.country_code),
    currency: snapshot.currency,
    operationType: snapshot.operation_type === 'refund' ? 'return' : snapshot.operation_type,
    issuer: {
      legalName: snapshot.issuer.legal_name,
      locationName: snapshot.issuer.location_name ?? 'Online',
      registerName: snapshot.issuer.register_name ?? '-',
      address: {
        line1: snapshot.issuer.address.line1,
        city: snapshot.issuer.address.city,
        postalCode: snapshot.issuer.address.postal_code,
        countryCode: snapshot.issuer.address.country_code,
      },
      taxId: snapshot.issuer.tax_id,
    },
    lines: snapshot.line_items.map((line) => ({
      description: line.description,
      quantity: line.quantity,
      unitPrice: line.unit_price,
      totalAmount: line.total_amount,
      taxRate: line.tax_rate,
      taxCode: line.tax_code ?? null,
      taxAmount: line.tax_amount,
    })),
    cartDiscounts: snapshot.cart_discounts,
    totals: { gross: snapshot.totals.total_gross, tip: snapshot.totals.tip },
    vat: { rows: vat.rows.map((row) => ({ rate: row.rate.toString(), ...amounts(row) })), total: amounts(vat.total) },
    payments: snapshot.payments.map((payment) => ({ method: payment.method, amount: payment.amount })),
    fiscal: fiscal && receiptSectionOf(fiscal),
  };
}
