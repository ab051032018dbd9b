/**
 * A goods movement's lines, discounts and payments as an operation records them (amounts as
 * normalized decimal strings): what the operations table stores, and what a refund mirrors.
 */
export interface StoredTax {
  id: string;
  name: string;
  rate: string;
  tax_amount: string;
}

export interface StoredLineItem {
  id: string;
  type: 'item' | 'gift_card';
  title: string;
  quantity: number;
  unit_price: string;
  total_amount: string;
  sku_identifier: string;
  taxes: StoredTax[];
  gift_card_id: string | null;
}

export interface StoredDiscount {
  id: string;
  amount: string;
  description: string | null;
}

export interface StoredPayment {
  id: string;
  payment_id: string | null;
  method: string;
  amount: string;
  currency: string;
  status: string;
  processor: string | null;
  card_brand: string | null;
  processor_reference: string | null;
  processed_at: string | null;
  gift_card_id: string | null;
}

