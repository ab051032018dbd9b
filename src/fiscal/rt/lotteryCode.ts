import { paymentMethodOf } from '../../domain/paymentMethods.js';
import { RegimeRuleError } from '../fiscalDevice.js';

const LOTTERY_CODE = /^[A-Z0-9]{8}$/;

/** The lottery code's shape (reference italy.md §4): 8 characters [A-Z0-9]. */
export function checkLotteryCodeFormat(code: string | null): void {
  if (code !== null && !LOTTERY_CODE.test(code)) {
    throw new RegimeRuleError('RT', 'lottery_code', 'A lottery code is 8 characters, capital letters and digits');
  }
}

/** Only electronic payments qualify for the lottery (reference §4): a sale with a code and any cash payment is refused. */
export function checkLotteryPayments(code: string | null, payments: readonly { method: string }[]): void {
  if (code === null) return;
  const cash = payments.findIndex((payment) => paymentMethodOf(payment.method).kind === 'cash');
  if (cash >= 0) {
    throw new RegimeRuleError('RT', `payments[${cash}].method`, 'A sale with a lottery code must be paid by electronic means only, not in cash');
  }
}
