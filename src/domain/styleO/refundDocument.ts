import { Decimal } from 'decimal.js';
import type { StoredLineItem, StoredPayment } from '../operations/recordedGoodsMovement.js';
import { formatAmount, fromMinorUnits } from '../money.js';
import { isGiftCardPayment, paymentMethodOf } from '../paymentMethods.js';
import type { RuleViolation } from '../violation.js';
import { lineFigures, type StyleOCartDiscount, type StyleOLineItem, type StyleOPayment } from './document.js';
import { planRefund, type LineRefund, type RefundSelection } from './refundPlan.js';
import { computeTotals, lineAmounts, type Minor, type Totals } from './totals.js';

/** Makes the ids of a refund's lines, payments and taxes; the caller's, so the rules here stay pure. */
export type NewId = (prefix: 'li' | 'pay' | 'tax') => string;

/** The sale being refunded, in Style O form. */
export interface RefundedSale {
  currency: string;
  line_items: readonly StyleOLineItem[];
  cart_discounts: readonly StyleOCartDiscount[];
  payments: readonly StyleOPayment[];
  totals: { rounding_adjustment: Minor };
}

/** What a refund stores as its Style O document. */
export interface RefundDocument {
  currency: string;
  line_items: StyleOLineItem[];
  cart_discounts: StyleOCartDiscount[];
  payments: StyleOPayment[];
  totals: Totals;
}

/** A refund payment as requested: how some of the money goes back. */
export interface RefundPaymentRequest {
  method: string;
  amount: Minor;
  currency?: string;
  reference?: string;
  cash?: { amount_tendered?: Minor };
  card?: { scheme?: string; last4?: string; authorization_code?: string; terminal_id?: string; application_id?: string };
  wallet?: { provider?: string; scheme?: string; last4?: string; authorization_code?: string };
  voucher?: { code?: string; type?: string };
  gift_card?: { gift_card_id?: string; last4?: string };
  online?: { provider?: string; transaction_reference?: string };
}

export interface RefundRequest {
  selection: RefundSelection;
  /** Absent: the rule of refundPayments picks them. */
  payments?: readonly RefundPaymentRequest[];
}

export type RefundOutcome = { ok: true; document: RefundDocument } | { ok: false; violation: RuleViolation };

const sumMinor = (values: readonly Minor[]) => values.reduce((a, b) => a + b, 0);
const negate = (value: Minor) => (value === 0 ? 0 : -value);

/** What earlier refunds (open or completed) of a sale already take back. */
export interface EarlierRefunds {
  /** Quantity per original line item id. */
  quantities: Map<string, Decimal>;
  /** Their part of the sale's rounding_adjustment. */
  rounding: Minor;
}

export function earlierRefundsOf(
  refunds: readonly { line_items: readonly Pick<StyleOLineItem, 'original_line_item_id' | 'quantity'>[]; totals: { rounding_adjustment: Minor } }[],
): EarlierRefunds {
  const quantities = new Map<string, Decimal>();
  let rounding = 0;
  for (const refund of refunds) {
    rounding += refund.totals.rounding_adjustment;
    for (const line of refund.line_items) {
      if (!line.original_line_item_id) continue;
      const before = quantities.get(line.original_line_item_id) ?? new Decimal(0);
      quantities.set(line.original_line_item_id, before.plus(String(line.quantity)));
    }
  }
  return { quantities, rounding };
}

/** Whether the sale is wholly refunded once `lines` are added to what earlier refunds took. */
export function completesSale(
  sale: { line_items: readonly Pick<StyleOLineItem, 'id' | 'quantity'>[] },
  earlier: ReadonlyMap<string, Decimal>,
  lines: readonly Pick<StyleOLineItem, 'original_line_item_id' | 'quantity'>[],
): boolean {
  const taken = new Map(earlier);
  for (const line of lines) {
    const id = line.original_line_item_id!;
    taken.set(id, (taken.get(id) ?? new Decimal(0)).plus(String(line.quantity)));
  }
  return sale.line_items.every((line) => (taken.get(line.id) ?? new Decimal(0)).eq(String(line.quantity)));
}

/** The refund's line items: each planned share of a sale line, with the sale line's description, unit price and tax. */
export function refundLines(sale: Pick<RefundedSale, 'line_items'>, plan: readonly LineRefund[], newId: NewId): StyleOLineItem[] {
  const byId = new Map(sale.line_items.map((line) => [line.id, line]));
  return plan.map((share, i) => {
    const original = byId.get(share.line_id)!;
    const lineDiscounts = original.line_discounts.map((discount, k) => ({ ...discount, amount: share.line_discounts[k].amount }));
    const allocations = original.cart_discount_allocations.map((allocation, k) => ({
      ...allocation,
      amount: share.cart_discount_allocations[k].amount,
    }));
    const amounts = lineAmounts({
      subtotal_gross: share.subtotal_gross,
      line_discounts: lineDiscounts,
      cart_discount_allocations: allocations,
      tax_rate: original.tax.rate,
      tax_amount: share.tax_amount,
    });
    return {
      id: newId('li'),
      position: i + 1,
      description: original.description,
      quantity: share.quantity,
      unit: original.unit,
      unit_price_gross: original.unit_price_gross,
      product_ref: original.product_ref,
      flags: [...original.flags],
      subtotal_gross: amounts.subtotal_gross,
      line_discounts: lineDiscounts,
      line_discount_amount: amounts.line_discount_amount,
      subtotal_after_line_discounts: amounts.subtotal_after_line_discounts,
      cart_discount_allocations: allocations,
      cart_discount_amount: amounts.cart_discount_amount,
      total_gross: amounts.total_gross,
      tax: { ...original.tax, taxable_amount: amounts.taxable_amount, tax_amount: amounts.tax_amount },
      total_net: amounts.total_net,
      original_line_item_id: original.id,
    };
  });
}

/** The refund's totals: money going back, plus the part of the sale's rounding_adjustment it returns. */
export function refundTotals(lines: readonly StyleOLineItem[], roundingAdjustment: Minor): Totals {
  return computeTotals(
    lines.map((line) => ({ ...lineFigures(line), tax_rate: line.tax.rate, tax_category: line.tax.category })),
    { direction: 'refund', rounding_adjustment: roundingAdjustment },
  );
}

/** The sale's cart discounts the refund lines carry allocations of, each with what the refund applies of it. */
export function refundCartDiscounts(saleDiscounts: readonly StyleOCartDiscount[], lines: readonly StyleOLineItem[]): StyleOCartDiscount[] {
  const used = new Set(lines.flatMap((line) => line.cart_discount_allocations.map((allocation) => allocation.discount_id)));
  return saleDiscounts
    .filter((discount) => used.has(discount.id))
    .map((discount) => ({
      ...discount,
      total_amount: sumMinor(
        lines.flatMap((line) => line.cart_discount_allocations.filter((a) => a.discount_id === discount.id).map((a) => a.amount)),
      ),
    }));
}

function fromRequest(payment: RefundPaymentRequest, currency: string, newId: NewId): StyleOPayment {
  const orNull = <T>(value: T | undefined) => value ?? null;
  return {
    id: newId('pay'),
    method: payment.method,
    direction: 'refund',
    amount: payment.amount,
    currency,
    reference: orNull(payment.reference),
    status: 'refunded',
    ...(payment.cash ? { cash: { amount_tendered: orNull(payment.cash.amount_tendered) } } : {}),
    ...(payment.card
      ? {
          card: {
            scheme: orNull(payment.card.scheme),
            last4: orNull(payment.card.last4),
            authorization_code: orNull(payment.card.authorization_code),
            terminal_id: orNull(payment.card.terminal_id),
            application_id: orNull(payment.card.application_id),
          },
        }
      : {}),
    ...(payment.wallet
      ? {
          wallet: {
            provider: orNull(payment.wallet.provider),
            scheme: orNull(payment.wallet.scheme),
            last4: orNull(payment.wallet.last4),
            authorization_code: orNull(payment.wallet.authorization_code),
          },
        }
      : {}),
    ...(payment.voucher ? { voucher: { code: orNull(payment.voucher.code), type: orNull(payment.voucher.type) } } : {}),
    ...(payment.gift_card ? { gift_card: { gift_card_id: orNull(payment.gift_card.gift_card_id), last4: orNull(payment.gift_card.last4) } } : {}),
    ...(payment.online
      ? { online: { provider: orNull(payment.online.provider), transaction_reference: orNull(payment.online.transaction_reference) } }
      : {}),
  };
}

/**
 * How the money goes back. Requested: the amounts must sum to the refund's
 * total_gross, in the sale's currency. Not requested: a full refund repeats
 * the sale's payments when they add up to it; otherwise a sale paid by a
 * single method is refunded by that method; a sale paid by several needs them
 * requested.
 */
export function refundPayments(
  requested: readonly RefundPaymentRequest[] | undefined,
  refundType: RefundSelection['refund_type'],
  sale: Pick<RefundedSale, 'currency' | 'payments'>,
  total: Minor,
  newId: NewId,
): { ok: true; payments: StyleOPayment[] } | { ok: false; violation: RuleViolation } {
  const currency = sale.currency;
  if (requested) {
    for (const [i, payment] of requested.entries()) {
      if (payment.currency && payment.currency !== currency) {
        return {
          ok: false,
          violation: {
            code: 'validation_error',
            message: `A refund payment must be in the sale's currency ${currency}`,
            field: `payments[${i}].currency`,
            details: { currency },
          },
        };
      }
      if (isGiftCardPayment(payment.method) && !payment.gift_card?.gift_card_id?.trim()) {
        return {
          ok: false,
          violation: {
            code: 'gift_card_id_required',
            message: 'A gift_card payment must carry gift_card.gift_card_id',
            field: `payments[${i}].gift_card.gift_card_id`,
          },
        };
      }
    }
    const paid = sumMinor(requested.map((payment) => payment.amount));
    if (paid !== total) {
      return {
        ok: false,
        violation: {
          code: 'validation_error',
          message: 'The refund payments must sum to the refund total (totals.total_gross)',
          field: 'payments',
          details: { payments_total: paid, refund_total: total },
        },
      };
    }
    return { ok: true, payments: requested.map((payment) => fromRequest(payment, currency, newId)) };
  }
  const original = sale.payments;
  const asRefund = (payment: StyleOPayment, amount: Minor): StyleOPayment => ({
    ...payment,
    id: newId('pay'),
    direction: 'refund',
    amount,
    status: 'refunded',
  });
  if (refundType === 'full' && original.length > 0 && sumMinor(original.map((payment) => payment.amount)) === total) {
    return { ok: true, payments: original.map((payment) => asRefund(payment, payment.amount)) };
  }
  if (total === 0) return { ok: true, payments: [] };
  const methods = new Set(original.map((payment) => paymentMethodOf(payment.method).name));
  if (methods.size === 1) return { ok: true, payments: [asRefund(original[0], total)] };
  return {
    ok: false,
    violation: {
      code: 'validation_error',
      message: original.length
        ? 'The sale was paid by several methods; send payments to say how the money goes back'
        : 'The sale has no payments to refund to; send payments to say how the money goes back',
      field: 'payments',
      details: { refund_total: total },
    },
  };
}

/**
 * The refund's document: the planned shares of the sale's lines (refundPlan.ts),
 * the cart discounts they carry, totals and payments. A broken rule (more than
 * the sale, payments that do not add up) is returned, not thrown.
 */
export function buildRefundDocument(sale: RefundedSale, earlier: EarlierRefunds, request: RefundRequest, newId: NewId): RefundOutcome {
  const plan = planRefund(
    sale.line_items.map((line) => ({
      id: line.id,
      quantity: line.quantity,
      total_gross: line.total_gross,
      tax_amount: line.tax.tax_amount,
      line_discounts: line.line_discounts,
      cart_discount_allocations: line.cart_discount_allocations,
    })),
    earlier.quantities,
    request.selection,
  );
  if (!plan.ok) return { ok: false, violation: { code: 'validation_error', ...plan.violation } };

  const lines = refundLines(sale, plan.lines, newId);
  // A sale whose Style M amounts were finer than the minor unit carries a rounding_adjustment;
  // the refund that returns its last items returns it too, so refunds add up to the sale exactly.
  const rounding = completesSale(sale, earlier.quantities, lines) ? sale.totals.rounding_adjustment - earlier.rounding : 0;
  const totals = refundTotals(lines, rounding);
  const cartDiscounts = refundCartDiscounts(sale.cart_discounts, lines);
  const payments = refundPayments(request.payments, request.selection.refund_type, sale, totals.total_gross, newId);
  if (!payments.ok) return payments;
  return { ok: true, document: { currency: sale.currency, line_items: lines, cart_discounts: cartDiscounts, payments: payments.payments, totals } };
}


/**
 * The Style M columns of a refund, mirrored as a return holds them (negative
 * decimal strings), so the cash count and the DSFinV-K export read a refund
 * like any goods movement coming back.
 */
export function mirroredStyleM(document: RefundDocument, newId: NewId) {
  const decimal = (minor: Minor) => formatAmount(fromMinorUnits(negate(minor), document.currency));
  const lineItems: StoredLineItem[] = document.line_items.map((line) => ({
    id: line.id,
    type: line.flags.includes('gift_card') ? 'gift_card' : 'item',
    title: line.description,
    quantity: line.quantity,
    unit_price: decimal(line.unit_price_gross),
    total_amount: decimal(line.total_gross),
    sku_identifier: line.product_ref ?? '',
    taxes: [{ id: newId('tax'), name: 'VAT', rate: line.tax.rate, tax_amount: decimal(line.tax.tax_amount) }],
    gift_card_id: null,
  }));
  const payments: StoredPayment[] = document.payments.map((payment) => ({
    id: payment.id,
    payment_id: null,
    method: payment.method,
    amount: decimal(payment.amount),
    currency: payment.currency,
    status: 'refunded',
    processor: null,
    card_brand: payment.card?.scheme ?? null,
    processor_reference: payment.reference,
    processed_at: null,
    gift_card_id: payment.gift_card?.gift_card_id ?? null,
  }));
  return {
    lineItems,
    payments,
    totalAmount: decimal(document.totals.total_gross),
    taxAmount: decimal(document.totals.total_tax),
    pretaxAmount: decimal(document.totals.total_net),
    tipAmount: '0.00',
  };
}
