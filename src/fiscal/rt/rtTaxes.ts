import { Decimal } from 'decimal.js';
import { sumAmounts } from '../../domain/money.js';
import { RegimeRuleError, type GoodsMovementContent } from '../fiscalDevice.js';
import type { RtTax } from './rtDriver.js';

/** The Italian VAT rates an RT prints (reference italy.md §5); rate 0 needs a natura code. */
export const ITALIAN_RATES = ['0.22', '0.10', '0.05', '0.04'] as const;

/**
 * N1 ... N6, with the sub-codes of N2, N3 and N6 (N2.1, N3.4, N6.9). N7 (VAT paid in
 * another EU state) is an invoice's nature: the daily COR10 has no place for it
 * (reference §5, CorrispettiviTypes' Natura is N1-N6), so an RT cannot issue it.
 */
const NATURA = /^N[1-6](\.[1-9])?$/;

/**
 * The tax of a line as the RT prints it: one of the Italian rates, or at rate 0
 * the natura code the tax's `name` carries (DESIGN "Italy: RT"). Anything else
 * is 422 regime_validation_failed naming the field.
 */
export function rtTaxOfLine(line: GoodsMovementContent['lineItems'][number], index: number): RtTax {
  if (line.taxes.length !== 1) {
    throw new RegimeRuleError('RT', `line_items[${index}].taxes`, 'A line on an Italian register carries exactly one tax: a VAT rate, or rate 0 with a natura code');
  }
  const [tax] = line.taxes;
  const rate = sumAmounts([tax!.rate]);
  const known = ITALIAN_RATES.find((candidate) => rate.eq(candidate));
  if (known) return { kind: 'rate', rate: known };
  if (rate.isZero()) {
    const natura = (tax!.name ?? '').trim().toUpperCase();
    if (NATURA.test(natura)) return { kind: 'natura', natura };
    throw new RegimeRuleError('RT', `line_items[${index}].taxes[0].name`, 'A line at rate 0 on an Italian register names its natura code (N1 ... N6, e.g. N4) as the tax name');
  }
  throw new RegimeRuleError(
    'RT',
    `line_items[${index}].taxes[0].rate`,
    `A line on an Italian register must carry one of the rates ${ITALIAN_RATES.join(', ')} or 0 with a natura code; this one carries ${new Decimal(rate).toFixed()}`,
  );
}

/** The key a daily closure totals by: the rate as a decimal string, or the natura code. */
export const rtTaxKey = (tax: RtTax): string => (tax.kind === 'rate' ? tax.rate : tax.natura);
