import type { Operation } from '../../db/generated/client.js';
import type { Totals } from '../../domain/styleO/totals.js';
import type { FiscalRecord, Regime } from '../../fiscal/fiscalDevice.js';
import type { OrganizationCartDiscountView, OrganizationLineItemView, OrganizationPaymentView } from '../styleO/schemas.js';

/**
 * How a refund is stored: a row of `operations` with type `refund`, status
 * `open` | `completed` | `cancelled`, related_operation_id = the sale, and
 * - style_o_data: the Style O document below (minor units), as presented;
 * - the Style M columns (line_items, payments, *_amount) mirrored as a return
 *   would hold them (negative decimal strings), so the cash count and the
 *   DSFinV-K export read a refund like any goods movement coming back;
 * - fiscal_information: the fiscal record once signed, fiscal_error the
 *   reason of the last failed attempt.
 */
export interface StoredRefundData {
  currency: string;
  line_items: OrganizationLineItemView[];
  cart_discounts: OrganizationCartDiscountView[];
  payments: OrganizationPaymentView[];
  totals: Totals;
}

export type StoredRefundFiscal = FiscalRecord;

export interface StoredFiscalFailure {
  /** The regime of the device that failed; absent in failures recorded before a second regime was built (all KassenSichV). */
  regime?: Regime;
  phase: 1 | 2 | null;
  reason: string;
  message: string;
  failed_at: string;
  tse_serial: string | null;
  client_id: string | null;
  signature_algorithm: string | null;
  /** The device's algorithm suite (RKSV); absent in failures recorded before it was kept. */
  suite?: string | null;
}

export interface StoredCashier {
  id: string;
  display_name: string | null;
}

export type FiscalState = 'pending' | 'succeeded' | 'failed';

export const refundDataOf = (operation: Operation) => operation.styleOData as unknown as StoredRefundData;
export const refundFiscalOf = (operation: Operation) => operation.fiscalInformation as unknown as StoredRefundFiscal | null;
export const fiscalFailureOf = (operation: Operation) => operation.fiscalError as unknown as StoredFiscalFailure | null;
export const cashierOf = (operation: Operation) => operation.cashier as unknown as StoredCashier | null;
