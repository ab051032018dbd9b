import { Decimal } from 'decimal.js';

/** DSFinV-K BON_TYP values allowed as Vorgangstyp (reference §6.1). */
export const KASSENBELEG_RECEIPT_TYPES = [
  'Beleg',
  'AVTransfer',
  'AVBestellung',
  'AVTraining',
  'AVBelegstorno',
  'AVBelegabbruch',
  'AVSachbezug',
  'AVSonstige',
  'AVRechnung',
] as const;

export type KassenbelegReceiptType = (typeof KASSENBELEG_RECEIPT_TYPES)[number];
export type KassenbelegPaymentType = 'Bar' | 'Unbar';

export interface KassenbelegInput {
  receiptType: KassenbelegReceiptType;
  /**
   * Gross amounts per DSFinV-K VAT key as decimal strings with at most two
   * places: normal = key 1 (19 %), reduced = key 2 (7 %), average1 = key 3
   * (§ 24(1) Nr. 3 UStG), average2 = key 4 (§ 24(1) Nr. 1 UStG), zero = keys 5-8.
   */
  grossByVatKey: { normal: string; reduced: string; average1: string; average2: string; zero: string };
  /** Bar = cash, Unbar = every other means of payment; currency is ISO 4217. */
  payments: { type: KassenbelegPaymentType; amount: string; currency: string }[];
}

const BASE_CURRENCY = 'EUR';
const PAYMENT_TYPE_ORDER: readonly KassenbelegPaymentType[] = ['Bar', 'Unbar'];
const DECIMAL_AMOUNT = /^-?\d+(\.\d+)?$/;

/**
 * processData of processType Kassenbeleg-V1:
 * `<Vorgangstyp>^<5 gross amounts joined by _>^<payments joined by _>`.
 * Payments of the same kind and currency are summed into one entry; entries
 * are ordered Bar before Unbar, EUR before other currencies, then by code, so
 * the same receipt always yields the same signed text.
 */
export function buildKassenbelegProcessData(input: KassenbelegInput): string {
  if (!(KASSENBELEG_RECEIPT_TYPES as readonly string[]).includes(input.receiptType)) {
    throw new TypeError(`receiptType ${input.receiptType} is not a DSFinV-K BON_TYP`);
  }
  const { normal, reduced, average1, average2, zero } = input.grossByVatKey;
  const grossAmounts = [
    formatAmount(parseAmount(normal, 'grossByVatKey.normal')),
    formatAmount(parseAmount(reduced, 'grossByVatKey.reduced')),
    formatAmount(parseAmount(average1, 'grossByVatKey.average1')),
    formatAmount(parseAmount(average2, 'grossByVatKey.average2')),
    formatAmount(parseAmount(zero, 'grossByVatKey.zero')),
  ].join('_');
  return [input.receiptType, grossAmounts, formatPayments(input.payments)].join('^');
}

function formatPayments(payments: KassenbelegInput['payments']): string {
  const totals = new Map<string, { type: KassenbelegPaymentType; currency: string; amount: Decimal }>();
  payments.forEach((payment, index) => {
    if (!PAYMENT_TYPE_ORDER.includes(payment.type)) {
      throw new TypeError(`payments[${index}].type must be Bar or Unbar`);
    }
    if (!/^[A-Z]{3}$/.test(payment.currency)) {
      throw new TypeError(`payments[${index}].currency must be an upper-case ISO 4217 code`);
    }
    const amount = parseAmount(payment.amount, `payments[${index}].amount`);
    const key = `${payment.type}:${payment.currency}`;
    const total = totals.get(key);
    if (total) total.amount = total.amount.plus(amount);
    else totals.set(key, { type: payment.type, currency: payment.currency, amount });
  });
  return [...totals.values()]
    .sort(
      (a, b) =>
        PAYMENT_TYPE_ORDER.indexOf(a.type) - PAYMENT_TYPE_ORDER.indexOf(b.type) ||
        Number(b.currency === BASE_CURRENCY) - Number(a.currency === BASE_CURRENCY) ||
        (a.currency < b.currency ? -1 : a.currency > b.currency ? 1 : 0),
    )
    .map(({ type, currency, amount }) =>
      currency === BASE_CURRENCY ? `${formatAmount(amount)}:${type}` : `${formatAmount(amount)}:${type}:${currency}`,
    )
    .join('_');
}

// More than two places is rejected rather than cut off: the signed amounts
// must equal the printed receipt, so rounding is the caller's decision.
function parseAmount(text: string, field: string): Decimal {
  if (!DECIMAL_AMOUNT.test(text)) throw new TypeError(`${field} must be a decimal string like 12.34`);
  const amount = new Decimal(text);
  if (amount.decimalPlaces() > 2) throw new TypeError(`${field} has more than two decimal places`);
  return amount;
}

/** Exactly two decimals, '.' as separator, no grouping, and never "-0.00". */
function formatAmount(amount: Decimal): string {
  return amount.isZero() ? '0.00' : amount.toFixed(2);
}
