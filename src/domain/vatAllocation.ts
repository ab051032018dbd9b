import { Decimal } from 'decimal.js';
import { sumAmounts, toAmount } from './money.js';

/**
 * Spreads a cart-level discount over groups of a receipt's lines (VAT rates,
 * Kassenbeleg positions, DSFinV-K keys) in proportion to their gross. Every
 * group but the largest gets its share rounded half up to `places`; the
 * largest (by absolute gross, the first of equals in the map's order) gets
 * the rest, so the shares sum to `amount` exactly. With a zero total gross
 * there is no proportion, and the largest takes it all. The map returned
 * holds every group, the largest last.
 */
export function allocateDiscountByGross<K>(amount: Decimal, grossByGroup: ReadonlyMap<K, Decimal>, places: number): Map<K, Decimal> {
  const groups = [...grossByGroup.keys()];
  if (groups.length === 0) throw new RangeError('no group to allocate the discount to');
  const gross = (group: K) => grossByGroup.get(group)!;
  const total = sumAmounts(groups.map(gross));
  const largest = groups.reduce((best, group) => (gross(group).abs().gt(gross(best).abs()) ? group : best), groups[0]);
  const shares = new Map<K, Decimal>();
  let allocated = toAmount('0');
  for (const group of groups) {
    if (group === largest) continue;
    const share = total.isZero() ? toAmount('0') : amount.times(gross(group)).dividedBy(total).toDecimalPlaces(places, Decimal.ROUND_HALF_UP);
    shares.set(group, share);
    allocated = allocated.plus(share);
  }
  shares.set(largest, amount.minus(allocated));
  return shares;
}
