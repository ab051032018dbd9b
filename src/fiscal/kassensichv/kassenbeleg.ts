import { Decimal } from 'decimal.js';
import { formatAmount, toAmount } from '../../domain/money.js';
import { paymentMethodOf } from '../../domain/paymentMethods.js';
import { grossByVatRate, vatRateOfLine, type RateGross, type RateOrder } from '../../domain/vatBreakdown.js';
import { buildKassenbelegProcessData, type KassenbelegInput } from './processData.js';

type VatSlot = keyof KassenbelegInput['grossByVatKey'];

/**
 * German VAT rates to the five Kassenbeleg-V1 positions (DSFinV-K keys 1-5;
 * the historical 16 % / 5 % of keys 11 / 12 count under their base keys).
 */
const SLOT_BY_RATE: ReadonlyMap<string, VatSlot> = new Map([
  ['0.19', 'normal'],
  ['0.16', 'normal'],
  ['0.07', 'reduced'],
  ['0.05', 'reduced'],
  ['0.107', 'average1'],
  ['0.095', 'average1'],
  ['0.09', 'average1'],
  ['0.084', 'average1'],
  ['0.078', 'average1'],
  ['0.055', 'average2'],
  ['0', 'zero'],
]);

const SLOTS: readonly VatSlot[] = ['normal', 'reduced', 'average1', 'average2', 'zero'];

export class KassenbelegMappingError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'KassenbelegMappingError';
  }
}

export interface ReceiptLine {
  type: 'item' | 'gift_card';
  total_amount: string;
  taxes: { rate: string }[];
}

export interface ReceiptForSigning {
  line_items: ReceiptLine[];
  cart_level_discounts: { amount: string }[];
  tip_amount: string;
  payments: { method: string; amount: string; currency: string }[];
}

function slotOf(line: ReceiptLine, index: number): VatSlot {
  // Vouchers (Mehrzweckgutschein) are not taxable at sale: key 5.
  if (line.type === 'gift_card' || line.taxes.length === 0) return 'zero';
  if (line.taxes.length > 1) {
    throw new KassenbelegMappingError(`line_items[${index}].taxes`, 'A German receipt line carries exactly one VAT rate');
  }
  const slot = SLOT_BY_RATE.get(toAmount(line.taxes[0].rate).toString());
  if (!slot) {
    throw new KassenbelegMappingError(`line_items[${index}].taxes[0].rate`, `${line.taxes[0].rate} is not a German VAT rate`);
  }
  return slot;
}

const RATE_ORDER: readonly string[] = [...SLOT_BY_RATE.keys()];

/** Rates in the order of their positions (SLOTS): a discount's remainder cent goes where the DSFinV-K export sends it too. */
const byPosition: RateOrder = (a, b) => RATE_ORDER.indexOf(a.toString()) - RATE_ORDER.indexOf(b.toString());

const cents = (value: Decimal): Decimal => value.toDecimalPlaces(2, Decimal.ROUND_HALF_UP);

/**
 * Gross turnover per VAT rate in cents (grossByVatRate, src/domain/vatBreakdown.ts): line
 * totals less the cart-level discounts spread over the rates, the tip under 0 %. The
 * positions signed are its sums, and the receipt prints it, so both show the same amounts.
 */
export function grossByGermanVatRate(receipt: Omit<ReceiptForSigning, 'payments'>): RateGross[] {
  const lines = receipt.line_items.map((line, index) => {
    const rate = slotOf(line, index) === 'zero' ? toAmount('0') : vatRateOfLine(line);
    return { rate, gross: line.total_amount };
  });
  return grossByVatRate({ lines, cartDiscounts: receipt.cart_level_discounts.map((d) => d.amount), tip: receipt.tip_amount }, 2, byPosition);
}

/** Gross turnover per VAT position: the sum of grossByGermanVatRate over the rates of each position. */
export function grossByVatSlot(receipt: ReceiptForSigning): Record<VatSlot, Decimal> {
  const gross = Object.fromEntries(SLOTS.map((slot) => [slot, toAmount('0')])) as Record<VatSlot, Decimal>;
  for (const { rate, gross: amount } of grossByGermanVatRate(receipt)) {
    const slot = SLOT_BY_RATE.get(rate.toString())!;
    gross[slot] = gross[slot].plus(amount);
  }
  return gross;
}

/** processData of a goods movement's receipt (Kassenbeleg-V1, Vorgangstyp Beleg). */
export function kassenbelegProcessData(receipt: ReceiptForSigning): string {
  const gross = grossByVatSlot(receipt);
  return buildKassenbelegProcessData({
    receiptType: 'Beleg',
    grossByVatKey: {
      normal: formatAmount(gross.normal),
      reduced: formatAmount(gross.reduced),
      average1: formatAmount(gross.average1),
      average2: formatAmount(gross.average2),
      zero: formatAmount(gross.zero),
    },
    payments: receipt.payments.map((payment) => ({
      type: paymentMethodOf(payment.method).tse,
      amount: formatAmount(cents(toAmount(payment.amount))),
      currency: payment.currency,
    })),
  });
}

/** processData of a cash movement in or out of the drawer (Vorgangstyp AVTransfer, not taxable). */
export function cashTransferProcessData(amount: string, currency: string): string {
  const value = formatAmount(cents(toAmount(amount)));
  return buildKassenbelegProcessData({
    receiptType: 'AVTransfer',
    grossByVatKey: { normal: '0.00', reduced: '0.00', average1: '0.00', average2: '0.00', zero: value },
    payments: [{ type: 'Bar', amount: value, currency }],
  });
}

/** Free-text processData of a cash count (processType SonstigerVorgang). */
export function cashCountProcessData(counted: string, expected: string, difference: string, currency: string): string {
  return `Kassenzaehlung^gezaehlt=${formatAmount(counted)}^erwartet=${formatAmount(expected)}^differenz=${formatAmount(difference)}^${currency}`;
}
