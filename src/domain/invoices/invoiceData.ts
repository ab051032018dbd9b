import type { Minor } from '../styleO/totals.js';
import type { TaxIdType } from './partyTaxId.js';
import type { VatCategory } from './vatCategory.js';

/**
 * An invoice's content as stored and presented (contract 2.10; minor units, decimal-string
 * rates and quantities): what the request sent, completed with the seller's defaults and every
 * derived amount.
 */
export interface InvoiceAddressData {
  line1: string;
  line2: string | null;
  city: string;
  state: string | null;
  postal_code: string;
  /** ISO 3166-1 alpha-2. */
  country: string;
}

export interface InvoiceContactData {
  name: string | null;
  phone: string | null;
  email: string | null;
}

export interface InvoicePartyData {
  legal_name: string;
  tax_id: string | null;
  tax_id_type: TaxIdType | null;
  address: InvoiceAddressData;
  sdi_code: string | null;
  pec_address: string | null;
  contact: InvoiceContactData | null;
  email: string | null;
}

export interface InvoiceLineDiscountData {
  source: string | null;
  type: 'amount' | 'rate';
  label: string | null;
  rate: string | null;
  /** What the discount takes off the line (for a rate, computed). */
  amount: Minor;
}

export interface InvoiceLineData {
  description: string;
  /** Decimal string. */
  quantity: string;
  unit_price_net: Minor;
  tax: { rate: string; category: VatCategory; included_in_price: false };
  unit: string | null;
  discount: InvoiceLineDiscountData | null;
  product_ref: string | null;
  nature_code: string | null;
  line_total_net: Minor;
  line_total_tax: Minor;
  line_total_gross: Minor;
}

export interface InvoicePaymentTermsData {
  method: string | null;
  due_date: string | null;
  iban: string | null;
  installments: { due_date: string; amount: Minor }[];
}

export interface InvoiceRoutingData {
  codice_destinatario: string | null;
  pec_address: string | null;
  buyer_reference: string | null;
}

export interface InvoiceReferencesData {
  operation_id: string | null;
  original_invoice_id: string | null;
  delivery_date: string | null;
  purchase_order_ref: string | null;
  contract_ref: string | null;
}
