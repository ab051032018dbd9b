import { Decimal } from 'decimal.js';
import { roundByLargestRemainder } from '../../domain/largestRemainder.js';
import { toAmount } from '../../domain/money.js';
import { grossByVatRate, vatRateOfLine, type RateGross } from '../../domain/vatBreakdown.js';
import { RegimeRuleError, type GoodsMovementTurnover } from '../fiscalDevice.js';
import { TAX_SET_ORDER, type TaxSetCents } from './receiptCode.js';

type TaxSet = keyof TaxSetCents;

/** The Austrian rates and the receipt field each one's gross goes to (DESIGN "Austria: RKSV", reference §3.1). */
const RATE_OF_TAX_SET: Readonly<Record<TaxSet, Decimal>> = {
  normal: new Decimal('0.20'),
  reduced1: new Decimal('0.10'),
  reduced2: new Decimal('0.13'),
  zero: new Decimal('0'),
  special: new Decimal('0.19'),
};

export const AUSTRIAN_RATES = TAX_SET_ORDER.map((set) => RATE_OF_TAX_SET[set].toFixed(2));

const taxSetOfRate = (rate: Decimal): TaxSet | undefined => TAX_SET_ORDER.find((set) => RATE_OF_TAX_SET[set].eq(rate));

/** Every line carries one of the five Austrian rates (the sum of its taxes), else it cannot be signed. */
function assertAustrianRates(movement: GoodsMovementTurnover): void {
  movement.lineItems.forEach((line, index) => {
    const rate = vatRateOfLine(line);
    if (taxSetOfRate(rate)) return;
    const field = line.taxes.length === 1 ? `line_items[${index}].taxes[0].rate` : `line_items[${index}].taxes`;
    throw new RegimeRuleError('RKSV', field, `A line on an Austrian register must carry one of the rates ${AUSTRIAN_RATES.join(', ')}; this one carries ${rate.toFixed()}`);
  });
}

/** Places at which the exact split is taken before the amounts are rounded to the cent once. */
const EXACT_PLACES = 20;

/**
 * The five amounts of a Standardbeleg: each line's gross under its rate's
 * field, cart-level discounts spread over the rates in proportion to their
 * gross, the tip at the zero rate (DESIGN, src/domain/vatBreakdown.ts); rounded
 * to the cent by largest remainder, so the five add up to the total.
 */
export function taxSetOf(movement: GoodsMovementTurnover): TaxSetCents {
  assertAustrianRates(movement);
  const exact = grossByVatRate(
    {
      lines: movement.lineItems.map((line) => ({ rate: vatRateOfLine(line), gross: line.total_amount })),
      cartDiscounts: movement.cartLevelDiscounts.map((discount) => discount.amount),
      tip: movement.tipAmount,
    },
    EXACT_PLACES,
  );
  const bySet = new Map<TaxSet, Decimal>(TAX_SET_ORDER.map((set) => [set, toAmount('0')]));
  for (const { rate, gross } of exact) bySet.set(taxSetOfRate(rate)!, gross);
  const cents = roundByLargestRemainder(bySet, 2);
  return Object.fromEntries(TAX_SET_ORDER.map((set) => [set, BigInt(cents.get(set)!.times(100).toFixed(0))])) as unknown as TaxSetCents;
}

/** The signed amounts as the receipt's VAT table takes them: gross per rate, empty fields left out. */
export function grossByAustrianRate(movement: GoodsMovementTurnover): RateGross[] {
  const amounts = taxSetOf(movement);
  return TAX_SET_ORDER.filter((set) => amounts[set] !== 0n).map((set) => ({
    rate: toAmount(RATE_OF_TAX_SET[set].toFixed(2)),
    gross: toAmount(amounts[set].toString()).dividedBy(100),
  }));
}

export const ZERO_TAX_SET: TaxSetCents = { normal: 0n, reduced1: 0n, reduced2: 0n, zero: 0n, special: 0n };

export const taxSetTotal = (amounts: TaxSetCents): bigint => TAX_SET_ORDER.reduce((sum, set) => sum + amounts[set], 0n);
