import type { ReceiptFiscalSection } from '../fiscal/fiscalDevice.js';
/**
 * Everything a printed or hosted receipt shows, already resolved from the
 * database. Amounts are decimal strings as stored (e.g. "12.5", "-3.00");
 * the renderers only format them and never compute new amounts, so the
 * receipt shows exactly what was fiscalized.
 */
export interface ReceiptDocument {
  /** The fiscal document number (the register's sequence number); null when no register numbered the operation (an ONLINE sale). */
  documentNumber: string | null;
  issuedAt: Date;
  /** IANA time zone the issue time is printed in: the location's. */
  timeZone: string;
  /** ISO 4217 code, printed after every amount. */
  currency: string;
  operationType: 'sale' | 'return' | 'exchange';
  issuer: {
    legalName: string;
    locationName: string;
    registerName: string;
    /** `countryCode`: ISO 3166-1 alpha-3 as addresses store it, or alpha-2; the receipt's language and layout follow it. */
    address: { line1: string; city: string; postalCode: string; countryCode: string };
    taxId: string | null;
  };
  lines: {
    description: string;
    quantity: number;
    unitPrice: string;
    /** Gross line total, after line discounts. */
    totalAmount: string;
    /** Fraction, e.g. "0.19"; the rate of the line's row in the VAT table. */
    taxRate: string;
    /** What the regime prints for the tax instead of its rate (an Italian natura code, "N4"), or null. */
    taxCode: string | null;
    taxAmount: string;
  }[];
  /** `amount` is the positive reduction; it is printed with a minus sign. */
  cartDiscounts: { description: string | null; amount: string }[];
  totals: { gross: string; tip: string };
  /** The VAT table (src/domain/vatBreakdown.ts vatTable): `total` is the sum of `rows`. */
  vat: {
    rows: { rate: string; net: string; tax: string; gross: string }[];
    total: { net: string; tax: string; gross: string };
  };
  payments: { method: string; amount: string }[];
  /** What the regime's law requires on the receipt; null when the operation carries no fiscal signature. */
  fiscal: ReceiptFiscalSection | null;
}
