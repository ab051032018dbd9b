import type { SessionEventType } from '../sessions/sessionMachine.js';

/** Style M goods-movement request shapes (contract 2.2 and 4.2), after the HTTP layer checked them. */

export const GOODS_MOVEMENT_TYPES = ['sale', 'return', 'exchange'] as const;
export type GoodsMovementType = (typeof GOODS_MOVEMENT_TYPES)[number];

export type OperationType = GoodsMovementType | SessionEventType;

export type OperationSource = 'POS' | 'ONLINE';

export function isGoodsMovementType(type: string): type is GoodsMovementType {
  return (GOODS_MOVEMENT_TYPES as readonly string[]).includes(type);
}

export interface TaxInput {
  name: string;
  /** Decimal string, e.g. `0.19` for 19 %. */
  rate: string;
  tax_amount: string;
}

export interface LineItemInput {
  /** Absent means `item`. */
  type?: 'item' | 'gift_card';
  title: string;
  quantity: number;
  unit_price: string;
  /** Post-discount and tax-inclusive. */
  total_amount: string;
  sku_identifier: string;
  taxes: TaxInput[];
  gift_card_id?: string | null;
}

export interface CartLevelDiscountInput {
  /** Positive; subtracted from the sum of line totals. */
  amount: string;
  description?: string | null;
}

export interface ExternalRelatedOperation {
  description: string;
  external_operation_id: string;
  /** Italy (RT): the original document's number, device and date. */
  document_number?: string;
  device_serial?: string;
  issued_at?: string;
}

export interface GoodsMovementInput {
  type: GoodsMovementType;
  source: OperationSource;
  currency: string;
  pretax_amount: string;
  tax_amount: string;
  tip_amount: string;
  total_amount: string;
  line_items: LineItemInput[];
  cart_level_discounts?: CartLevelDiscountInput[];
  register_id?: string | null;
  related_operation_id?: string | null;
  external_related_operation?: ExternalRelatedOperation | null;
  external_id?: string | null;
  note?: string | null;
  /** A sale's lottery code (Italy). */
  lottery_code?: string | null;
}

/** A payment as sent to complete (contract 4.1). */
export interface PaymentInput {
  payment_id: string;
  /** Free string, stored as sent; what it means is paymentMethods.ts. */
  method: string;
  amount: string;
  currency: string;
  status: string;
  processor?: string | null;
  card_brand?: string | null;
  processor_reference?: string | null;
  processed_at?: string | null;
  gift_card_id?: string | null;
}
