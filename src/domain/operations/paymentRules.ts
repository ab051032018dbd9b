import { formatAmount, parseAmount, sumAmounts, toAmount, type AmountLike } from '../money.js';
import { isGiftCardPayment } from '../paymentMethods.js';
import type { RuleViolation } from '../violation.js';
import type { GoodsMovementType, PaymentInput } from './operationInput.js';
import { checkSign } from './signRule.js';

/**
 * Payments given on complete (contract 4.2 rules 4, 7 and 8). With `currency` (the
 * operation's), each payment must be in it too, since amounts in other currencies cannot be
 * summed against total_amount.
 */
export function validatePayments(
  type: GoodsMovementType,
  totalAmount: AmountLike,
  payments: readonly PaymentInput[],
  currency?: string,
): RuleViolation[] {
  const violations: RuleViolation[] = [];
  payments.forEach((payment, i) => {
    const sign = checkSign(type, parseAmount(payment.amount), `payments[${i}].amount`);
    if (sign) violations.push(sign);
    if (isGiftCardPayment(payment.method) && !payment.gift_card_id?.trim()) {
      violations.push({
        code: 'gift_card_id_required',
        field: `payments[${i}].gift_card_id`,
        message: 'A gift_card payment must carry a non-blank gift_card_id.',
      });
    }
    if (currency !== undefined && payment.currency.toUpperCase() !== currency.toUpperCase()) {
      violations.push({
        code: 'validation_error',
        field: `payments[${i}].currency`,
        message: `A payment must be in the operation's currency ${currency}.`,
      });
    }
  });

  const total = toAmount(totalAmount);
  const paid = sumAmounts(payments.map((payment) => payment.amount));
  if (!paid.eq(total)) {
    violations.push({
      code: 'validation_error',
      field: 'payments',
      message: 'The sum of payment amounts must equal total_amount.',
      details: { payments_total: formatAmount(paid), total_amount: formatAmount(total) },
    });
  }
  return violations;
}
