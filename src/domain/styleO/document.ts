import type { Minor, MoneyDirection } from './totals.js';

/**
 * The parts of a Style O document (contract 2.8) that the rules read and
 * build: the shapes of modules/styleO/schemas.ts, amounts in minor units.
 */

export interface StyleOLineDiscount {
  id: string;
  source: string;
  type: string;
  label: string | null;
  rate: string | null;
  amount: Minor;
}

export interface StyleOCartDiscountAllocation {
  discount_id: string;
  amount: Minor;
  label: string | null;
}

export interface StyleOLineItem {
  id: string;
  position: number;
  description: string;
  quantity: number;
  unit: string | null;
  unit_price_gross: Minor;
  product_ref: string | null;
  flags: string[];
  subtotal_gross: Minor;
  line_discounts: StyleOLineDiscount[];
  line_discount_amount: Minor;
  subtotal_after_line_discounts: Minor;
  cart_discount_allocations: StyleOCartDiscountAllocation[];
  cart_discount_amount: Minor;
  total_gross: Minor;
  tax: { rate: string; category: string; included_in_price: boolean; taxable_amount: Minor; tax_amount: Minor };
  total_net: Minor;
  /** On a refund: the line item of the original sale this line returns. */
  original_line_item_id: string | null;
}

export interface StyleOCartDiscount {
  id: string;
  source: string;
  type: string;
  label: string | null;
  code: string | null;
  allocation_method: string;
  rate: string | null;
  amount: Minor | null;
  /** What this document applies of the discount: the sum of its line allocations. */
  total_amount: Minor;
}

export interface StyleOPayment {
  id: string;
  method: string;
  direction: MoneyDirection;
  /** Positive; the direction gives the sign. */
  amount: Minor;
  currency: string;
  reference: string | null;
  status: string;
  cash?: { amount_tendered: Minor | null };
  card?: {
    scheme: string | null;
    last4: string | null;
    authorization_code: string | null;
    terminal_id: string | null;
    application_id: string | null;
  };
  wallet?: { provider: string | null; scheme: string | null; last4: string | null; authorization_code: string | null };
  voucher?: { code: string | null; type: string | null };
  gift_card?: { gift_card_id: string | null; last4: string | null };
  online?: { provider: string | null; transaction_reference: string | null };
}

/** The amount fields of a Style O line, as the totals need them. */
export function lineFigures(line: StyleOLineItem) {
  return {
    subtotal_gross: line.subtotal_gross,
    line_discount_amount: line.line_discount_amount,
    subtotal_after_line_discounts: line.subtotal_after_line_discounts,
    cart_discount_amount: line.cart_discount_amount,
    total_gross: line.total_gross,
    taxable_amount: line.tax.taxable_amount,
    tax_amount: line.tax.tax_amount,
    total_net: line.total_net,
  };
}
