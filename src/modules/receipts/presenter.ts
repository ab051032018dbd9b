import type { Receipt } from '../../db/generated/client.js';
import type { ReceiptSnapshot } from './snapshot.js';
import type { ReceiptView } from './schemas.js';

// The Style M receipt is a document to print: its amounts are JSON numbers (DESIGN).
const num = (value: string): number => Number(value);

export const snapshotOf = (receipt: Receipt) => receipt.document as unknown as ReceiptSnapshot;

/** The customer's page of the receipt with `publicToken`. */
export const hostedReceiptUrl = (publicBaseUrl: string, publicToken: string) => `${publicBaseUrl}/receipts/${publicToken}`;

export function receiptLinks(publicBaseUrl: string, receipt: Receipt) {
  const hosted = hostedReceiptUrl(publicBaseUrl, receipt.publicToken);
  return { self: `${publicBaseUrl}/v1/receipts/${receipt.id}`, pdf: `${hosted}/pdf`, hosted };
}

export function presentReceipt(receipt: Receipt, publicBaseUrl: string): ReceiptView {
  const snapshot = snapshotOf(receipt);
  return {
    id: receipt.id,
    operation_id: receipt.operationId,
    merchant_id: receipt.merchantId,
    location_id: snapshot.location_id,
    register_id: snapshot.register_id,
    currency: snapshot.currency,
    issued_at: receipt.issuedAt.toISOString(),
    status: receipt.status as ReceiptView['status'],
    issuer: {
      legal_name: snapshot.issuer.legal_name,
      location_name: snapshot.issuer.location_name,
      register_name: snapshot.issuer.register_name,
      // The Style M receipt shows the address without line2 and state (snapshot.ts keeps them for Style O).
      address: {
        line1: snapshot.issuer.address.line1,
        city: snapshot.issuer.address.city,
        postal_code: snapshot.issuer.address.postal_code,
        country_code: snapshot.issuer.address.country_code,
      },
      tax_id: snapshot.issuer.tax_id,
    },
    line_items: snapshot.line_items.map((line) => ({
      id: line.id,
      description: line.description,
      quantity: line.quantity,
      unit_price: num(line.unit_price),
      total_amount: num(line.total_amount),
      tax_rate: num(line.tax_rate),
      tax_amount: num(line.tax_amount),
    })),
    totals: {
      total_gross: num(snapshot.totals.total_gross),
      total_net: num(snapshot.totals.total_net),
      total_tax: num(snapshot.totals.total_tax),
    },
    payments: snapshot.payments.map((payment) => ({ method: payment.method, amount: num(payment.amount), details: payment.details })),
    links: receiptLinks(publicBaseUrl, receipt),
    external_reference: snapshot.external_reference,
    fiscal: snapshot.fiscal ?? {},
    metadata: { operation_type: snapshot.operation_type },
  };
}
