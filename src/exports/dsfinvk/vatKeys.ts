import type { Decimal } from 'decimal.js';
import { toAmount } from '../../domain/money.js';
import { DsfinvkDataError } from './model.js';

/** One UST_SCHLUESSEL as vat.csv declares it. */
export interface VatKey {
  key: number;
  /** The rate as a fraction (0.19), as operations carry it. */
  rate: Decimal;
  /** UST_SATZ: the rate in percent. */
  percent: Decimal;
  /** UST_BESCHR (at most 55 characters). */
  description: string;
}

/** Key 5: not taxable (vouchers, tips for staff, cash movements). */
export const NOT_TAXABLE_KEY = 5;

/**
 * DSFinV-K Anlage 2 (reference §5; TWEECORE's table of 2024-12-05): keys 1-5
 * for the rates in force, two-digit keys for superseded rates (the last digit
 * names the base key), e.g. the 16 % / 5 % of 2020 on a return recorded
 * today. Every key carries exactly one rate, so vat.csv never declares a key
 * twice in a closing. 0 % maps to "nicht steuerbar" (5), the case of vouchers
 * and tips; tax-exempt supplies (6) are not modelled by the service.
 */
const KEYS: readonly [fraction: string, key: number, description: string][] = [
  ['0.19', 1, 'Regelsteuersatz (§ 12 Abs. 1 UStG)'],
  ['0.07', 2, 'Ermäßigter Steuersatz (§ 12 Abs. 2 UStG)'],
  ['0.078', 3, 'Durchschnittssatz (§ 24 Abs. 1 Nr. 3 UStG)'],
  ['0.055', 4, 'Durchschnittssatz (§ 24 Abs. 1 Nr. 1 UStG)'],
  ['0', NOT_TAXABLE_KEY, 'Nicht steuerbar'],
  ['0.107', 13, 'Hist. Durchschnittssatz 10,7 % (§ 24 Abs. 1 Nr. 3)'],
  ['0.16', 21, 'Historischer Regelsteuersatz 16 % (§ 12 Abs. 1 UStG)'],
  ['0.05', 22, 'Hist. ermäßigter Steuersatz 5 % (§ 12 Abs. 2 UStG)'],
  ['0.095', 23, 'Hist. Durchschnittssatz 9,5 % (§ 24 Abs. 1 Nr. 3)'],
  ['0.09', 33, 'Hist. Durchschnittssatz 9,0 % (§ 24 Abs. 1 Nr. 3)'],
  ['0.084', 43, 'Hist. Durchschnittssatz 8,4 % (§ 24 Abs. 1 Nr. 3)'],
];

const BY_FRACTION = new Map<string, VatKey>();
const BY_KEY = new Map<number, VatKey>();
for (const [fraction, key, description] of KEYS) {
  const rate = toAmount(fraction);
  const entry: VatKey = { key, rate, percent: rate.times(100), description };
  BY_FRACTION.set(rate.toString(), entry);
  BY_KEY.set(key, entry);
}

/** The key of a tax rate given as a fraction ("0.19"); a rate outside Anlage 2 cannot be exported. */
export function vatKeyForRate(rate: string): VatKey {
  const entry = BY_FRACTION.get(toAmount(rate).toString());
  if (!entry) throw new DsfinvkDataError(`Tax rate ${rate} has no DSFinV-K VAT key`, { rate });
  return entry;
}

export function vatKey(key: number): VatKey {
  const entry = BY_KEY.get(key);
  if (!entry) throw new RangeError(`unknown VAT key ${key}`);
  return entry;
}
