import type { Operation } from '../generated/client.js';

/** JSON shapes stored in the operations table (amounts as normalized decimal strings). */
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

export type StoredSessionDetails =
  | { opening_amount: string }
  | { amount: string; note: string | null }
  | { counted_closing_amount: string; expected_closing_amount: string; closing_cashcount_diff: string; discrepancy_note: string | null }
  | { closing_adjustment_amount: string | null; closing_adjustment_note: string | null };

export const lineItemsOf = (operation: Operation) => operation.lineItems as unknown as StoredLineItem[];
export const discountsOf = (operation: Operation) => operation.cartLevelDiscounts as unknown as StoredDiscount[];
export const paymentsOf = (operation: Operation) => operation.payments as unknown as StoredPayment[];
export const sessionDetailsOf = <T extends StoredSessionDetails>(operation: Operation) => operation.sessionDetails as unknown as T;
