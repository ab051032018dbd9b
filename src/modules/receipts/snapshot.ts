import type { Location, Merchant, Operation, Register } from '../../db/generated/client.js';
import { formatAmount, sumAmounts, toAmount } from '../../domain/money.js';
import type { ReceiptDocument } from '../../receipts/receiptDocument.js';
import type { AddressValue } from '../../db/records/address.js';
import { receiptSectionOf } from '../../fiscal/regimes.js';
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
  currency: string;
  issued_at: string;
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
  line_items: { id: string; description: string; quantity: number; unit_price: string; total_amount: string; tax_rate: string; tax_amount: string }[];
  cart_discounts: { description: string | null; amount: string }[];
  totals: { total_gross: string; total_net: string; total_tax: string; tip: string };
  tax_breakdown: { rate: string; net: string; tax: string; gross: string }[];
  payments: { method: string; amount: string; details: Record<string, string> }[];
  fiscal: FiscalInformationView | null;
}

function merchantTaxId(merchant: Merchant, countryCode: string): string | null {
  const identities = merchant.fiscalIdentities as Record<string, string>[];
  const identity = identities.find((candidate) => candidate.country_code === countryCode) ?? identities[0];
  if (!identity) return null;
  return identity.vat_id ?? identity.vat_number ?? identity.tax_number ?? null;
}

/** Where an operation took place, as its receipt names it. */
export interface ReceiptPlace {
  location: Pick<Location, 'name' | 'address'> | null;
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
  const lines = lineItemsOf(operation).map((line) => ({
    id: line.id,
    description: line.title,
    quantity: line.quantity,
    unit_price: line.unit_price,
    total_amount: line.total_amount,
    tax_rate: line.taxes[0]?.rate ?? '0',
    tax_amount: formatAmount(sumAmounts(line.taxes.map((tax) => tax.tax_amount))),
  }));
  const byRate = new Map<string, { gross: ReturnType<typeof toAmount>; tax: ReturnType<typeof toAmount> }>();
  for (const line of lines) {
    const entry = byRate.get(line.tax_rate) ?? { gross: toAmount('0'), tax: toAmount('0') };
    byRate.set(line.tax_rate, { gross: entry.gross.plus(toAmount(line.total_amount)), tax: entry.tax.plus(toAmount(line.tax_amount)) });
  }
  return {
    operation_type: operation.type as ReceiptSnapshot['operation_type'],
    currency: operation.currency,
    issued_at: input.issuedAt.toISOString(),
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
      tax_id: merchantTaxId(merchant, merchant.countryCode),
    },
    line_items: lines,
    cart_discounts: discountsOf(operation).map((discount) => ({ description: discount.description, amount: discount.amount })),
    totals: {
      total_gross: formatAmount(operation.totalAmount!.toFixed()),
      total_net: formatAmount(operation.pretaxAmount!.toFixed()),
      total_tax: formatAmount(operation.taxAmount!.toFixed()),
      tip: formatAmount(operation.tipAmount!.toFixed()),
    },
    tax_breakdown: [...byRate.entries()].map(([rate, sums]) => ({
      rate,
      gross: formatAmount(sums.gross),
      tax: formatAmount(sums.tax),
      net: formatAmount(sums.gross.minus(sums.tax)),
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

/** The renderers' view model (PDF and hosted page). */
export function toReceiptDocument(receiptId: string, snapshot: ReceiptSnapshot): ReceiptDocument {
  const fiscal = snapshot.fiscal;
  return {
    receiptId,
    issuedAt: new Date(snapshot.issued_at),
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
      taxAmount: line.tax_amount,
    })),
    cartDiscounts: snapshot.cart_discounts,
    totals: { gross: snapshot.totals.total_gross, net: snapshot.totals.total_net, tax: snapshot.totals.total_tax, tip: snapshot.totals.tip },
    taxBreakdown: snapshot.tax_breakdown,
    payments: snapshot.payments.map((payment) => ({ method: payment.method, amount: payment.amount })),
    fiscal: fiscal && receiptSectionOf(fiscal),
  };
}
