import type { Operation } from '../generated/client.js';
import type { StoredDiscount, StoredLineItem, StoredPayment } from '../../domain/operations/recordedGoodsMovement.js';

/** JSON shapes stored in the operations table; a goods movement's lines and payments are the domain's. */
export type { StoredDiscount, StoredLineItem, StoredPayment, StoredTax } from '../../domain/operations/recordedGoodsMovement.js';

export type StoredSessionDetails =
  | { opening_amount: string }
  | { amount: string; note: string | null }
  | { counted_closing_amount: string; expected_closing_amount: string; closing_cashcount_diff: string; discrepancy_note: string | null }
  | { closing_adjustment_amount: string | null; closing_adjustment_note: string | null };

export const lineItemsOf = (operation: Operation) => operation.lineItems as unknown as StoredLineItem[];
export const discountsOf = (operation: Operation) => operation.cartLevelDiscounts as unknown as StoredDiscount[];
export const paymentsOf = (operation: Operation) => operation.payments as unknown as StoredPayment[];
export const sessionDetailsOf = <T extends StoredSessionDetails>(operation: Operation) => operation.sessionDetails as unknown as T;
