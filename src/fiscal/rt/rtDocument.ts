import { Decimal } from 'decimal.js';
import { formatAmount, parseAmount, sumAmounts } from '../../domain/money.js';
import { paymentMethodOf } from '../../domain/paymentMethods.js';
import { RegimeRuleError, type GoodsMovementContent, type ReturnedOriginal } from '../fiscalDevice.js';
import { checkLotteryCodeFormat, checkLotteryPayments } from './lotteryCode.js';
import type { RtDocumentRequest, RtLine, RtReference } from './rtDriver.js';
import { rtTaxOfLine } from './rtTaxes.js';

const positive = (amount: string) => formatAmount(parseAmount(amount).abs(), 2);

/** The original a documento di reso refers to: its number, the RT that issued it and its date (reference §3). */
function referenceOf(original: ReturnedOriginal | null): RtReference {
  if (!original) {
    throw new RegimeRuleError('RT', 'related_operation_id', 'A return on an Italian register refers to its original: related_operation_id or external_related_operation');
  }
  if (original.kind === 'recorded') {
    const fiscal = original.fiscal;
    if (!fiscal || fiscal.regime !== 'RT') {
      throw new RegimeRuleError('RT', 'related_operation_id', 'The original has no documento commerciale of an RT to refer to; send external_related_operation with its document_number, device_serial and issued_at');
    }
    return { documentNumber: fiscal.document_number, deviceSerial: fiscal.device_serial, issuedAt: new Date(fiscal.issued_at) };
  }
  const missing = (['document_number', 'device_serial', 'issued_at'] as const).find((field) => typeof original.fields[field] !== 'string');
  if (missing) {
    throw new RegimeRuleError('RT', `external_related_operation.${missing}`, `An Italian return of an original never recorded here names its ${missing} in external_related_operation`);
  }
  const fields = original.fields as Record<'document_number' | 'device_serial' | 'issued_at', string>;
  if (!/^\d{4}-\d{4}$/.test(fields.document_number)) {
    throw new RegimeRuleError('RT', 'external_related_operation.document_number', 'A documento commerciale number is NNNN-NNNN');
  }
  return { documentNumber: fields.document_number, deviceSerial: fields.device_serial, issuedAt: new Date(fields.issued_at) };
}

/** What returns give back of a recorded original never exceeds it (reference §8). */
function checkReturnCap(original: ReturnedOriginal | null, returned: Decimal): void {
  if (original?.kind !== 'recorded') return;
  const total = parseAmount(original.totalAmount);
  const already = parseAmount(original.returnedAmount);
  if (already.plus(returned).gt(total)) {
    throw new RegimeRuleError(
      'RT',
      'total_amount',
      `Returns of the original may give back at most ${formatAmount(total, 2)}; ${formatAmount(already, 2)} were given back before, this one gives ${formatAmount(returned, 2)}`,
    );
  }
}

/**
 * A goods movement as an RT issues it (DESIGN "Italy: RT"): a sale is a
 * documento commerciale, a return (or Style O refund) a documento di reso that
 * refers to its original; an exchange is refused (record a return and a
 * sale). Rates, natura codes and the lottery code follow the Italian rules;
 * every violation is a RegimeRuleError naming the field. Payments are checked
 * only when given (at completion).
 */
export function rtDocumentOf(movement: GoodsMovementContent): RtDocumentRequest {
  if (movement.operationType === 'exchange') {
    throw new RegimeRuleError('RT', 'type', 'An Italian RT issues no exchange document: record a return and a sale');
  }
  if (!parseAmount(movement.tipAmount).isZero()) {
    throw new RegimeRuleError('RT', 'tip_amount', 'A documento commerciale carries no tip: record it as a line with its VAT rate or natura code');
  }
  const lines: RtLine[] = movement.lineItems.map((line, index) => ({
    description: line.title ?? '',
    quantity: line.quantity ?? 1,
    unitPrice: positive(line.unit_price ?? line.total_amount),
    total: positive(line.total_amount),
    tax: rtTaxOfLine(line, index),
  }));
  checkLotteryCodeFormat(movement.lotteryCode);
  checkLotteryPayments(movement.lotteryCode, movement.payments);
  const isReturn = movement.operationType === 'return';
  const reference = isReturn ? referenceOf(movement.original) : null;
  if (isReturn) checkReturnCap(movement.original, sumAmounts(movement.lineItems.map((line) => line.total_amount)).abs());
  return {
    kind: isReturn ? 'return' : 'sale',
    lines,
    discounts: movement.cartLevelDiscounts.map((discount) => ({ description: 'Sconto', amount: positive(discount.amount) })),
    payments: movement.payments.map((payment) => ({
      kind: paymentMethodOf(payment.method).kind === 'cash' ? ('cash' as const) : ('electronic' as const),
      amount: positive(payment.amount),
    })),
    lotteryCode: movement.lotteryCode,
    reference,
  };
}
