import type { Operation } from '../../db/generated/client.js';
import { currencyExponent, toAmount } from '../../domain/money.js';
import { paymentMethodOf } from '../../domain/paymentMethods.js';
import { lineFigures } from '../../domain/styleO/document.js';
import { taxCategory } from '../../domain/styleO/taxCategory.js';
import {
  allocateProportionally,
  computeTotals,
  lineAmounts,
  normalizeRate,
  roundMinor,
  type Minor,
  type MoneyDirection,
  type Totals,
} from '../../domain/styleO/totals.js';
import { discountsOf, lineItemsOf, paymentsOf, type StoredPayment } from '../../db/records/operation.js';
import type { OrganizationCartDiscountView, OrganizationLineItemView, OrganizationPaymentView } from '../styleO/schemas.js';

/** A goods movement as Style O shows it (contract 2.8 shapes, minor units). */
export interface StyleODocument {
  currency: string;
  direction: MoneyDirection;
  line_items: OrganizationLineItemView[];
  cart_discounts: OrganizationCartDiscountView[];
  payments: OrganizationPaymentView[];
  totals: Totals;
}

/**
 * Minor units of a Style M decimal amount, as a magnitude. Style M accepts up
 * to 8 decimals; an amount finer than the currency's minor unit is rounded
 * half up here, and the document's rounding_adjustment carries the difference
 * between the rounded lines and the rounded total, so the totals still match
 * what was paid to the minor unit.
 */
export function minorOf(amount: string, currency: string): Minor {
  return roundMinor(toAmount(amount).abs().times(toAmount('10').pow(currencyExponent(currency))));
}

export function presentStyleMPayment(payment: StoredPayment, direction: MoneyDirection, currency: string): OrganizationPaymentView {
  const { kind } = paymentMethodOf(payment.method);
  return {
    id: payment.id,
    method: payment.method,
    direction,
    amount: minorOf(payment.amount, payment.currency || currency),
    currency: payment.currency,
    reference: payment.processor_reference ?? payment.payment_id ?? null,
    status: payment.status,
    ...(payment.card_brand || kind === 'card'
      ? { card: { scheme: payment.card_brand, last4: null, authorization_code: null, terminal_id: null, application_id: null } }
      : {}),
    ...(kind === 'gift_card' ? { gift_card: { gift_card_id: payment.gift_card_id, last4: null } } : {}),
  };
}

/**
 * A Style M sale or return in Style O form. Style M line totals are already
 * after line-level discounts, so each line's subtotal_gross is its total;
 * cart-level discounts (sales) are allocated over the lines in proportion to
 * their amounts. Taxes are included in prices and computed per line from the
 * rate. A return's amounts are shown as magnitudes with direction `refund`
 * (net_payable negative); a sale's tip is paid on top (net_payable).
 */
export function styleOViewOfGoodsMovement(operation: Operation, countryCode: string): StyleODocument {
  if (operation.type !== 'sale' && operation.type !== 'return') {
    throw new TypeError(`no Style O document for a ${operation.type} operation`);
  }
  const currency = operation.currency;
  const direction: MoneyDirection = operation.type === 'return' ? 'refund' : 'charge';
  const minor = (amount: string) => minorOf(amount, currency);
  const stored = lineItemsOf(operation);
  const discounts = operation.type === 'sale' ? discountsOf(operation) : [];

  const subtotals = stored.map((line) => minor(line.total_amount));
  const allocations = discounts.map((discount) => allocateProportionally(minor(discount.amount), subtotals));

  const lines: OrganizationLineItemView[] = stored.map((line, i) => {
    const rate = normalizeRate(line.taxes.reduce((sum, tax) => sum.plus(toAmount(tax.rate)), toAmount('0')).toString());
    const giftCard = line.type === 'gift_card';
    const cartAllocations = discounts
      .map((discount, k) => ({ discount_id: discount.id, amount: allocations[k][i], label: discount.description }))
      .filter((allocation) => allocation.amount !== 0);
    const amounts = lineAmounts({ subtotal_gross: subtotals[i], line_discounts: [], cart_discount_allocations: cartAllocations, tax_rate: rate });
    return {
      id: line.id,
      position: i + 1,
      description: line.title,
      quantity: line.quantity,
      unit: null,
      unit_price_gross: minor(line.unit_price),
      product_ref: line.sku_identifier,
      flags: giftCard ? ['gift_card'] : [],
      subtotal_gross: amounts.subtotal_gross,
      line_discounts: [],
      line_discount_amount: amounts.line_discount_amount,
      subtotal_after_line_discounts: amounts.subtotal_after_line_discounts,
      cart_discount_allocations: cartAllocations,
      cart_discount_amount: amounts.cart_discount_amount,
      total_gross: amounts.total_gross,
      tax: {
        rate,
        category: taxCategory(rate, countryCode, { giftCard }),
        included_in_price: true,
        taxable_amount: amounts.taxable_amount,
        tax_amount: amounts.tax_amount,
      },
      total_net: amounts.total_net,
      original_line_item_id: null,
    };
  });

  const tip = operation.tipAmount ? operation.tipAmount.toFixed() : '0';
  const goodsTotal = operation.totalAmount ? toAmount(operation.totalAmount.toFixed()).minus(toAmount(tip)).toFixed() : '0';
  const linesTotal = lines.reduce((sum, line) => sum + line.total_gross, 0);
  const totals = computeTotals(
    lines.map((line) => ({ ...lineFigures(line), tax_rate: line.tax.rate, tax_category: line.tax.category })),
    {
      direction,
      rounding_adjustment: minor(goodsTotal) - linesTotal,
      untaxed_payable: direction === 'charge' ? minor(tip) : 0,
    },
  );
  return {
    currency,
    direction,
    line_items: lines,
    cart_discounts: discounts.map((discount, k) => ({
      id: discount.id,
      source: 'merchant',
      type: 'fixed_amount',
      label: discount.description,
      code: null,
      allocation_method: 'proportional',
      rate: null,
      amount: minor(discount.amount),
      total_amount: allocations[k].reduce((sum, part) => sum + part, 0),
    })),
    payments: paymentsOf(operation).map((payment) => presentStyleMPayment(payment, direction, currency)),
    totals,
  };
}
