import { Decimal } from 'decimal.js';
import { sumAmounts } from './money.js';

/**
 * Rounds exact parts to `places` so that the rounded parts add up to their
 * exact sum rounded half up (largest remainder method): every part is rounded
 * down, and the units still missing go one each to the parts with the largest
 * remainders, the first of equals in the map's order. No part moves by a unit
 * or more, so amounts are never rounded twice.
 */
export function roundByLargestRemainder<K>(parts: ReadonlyMap<K, Decimal>, places: number): Map<K, Decimal> {
  const unit = new Decimal(10).pow(-places);
  const total = sumAmounts(parts.values()).toDecimalPlaces(places, Decimal.ROUND_HALF_UP);
  const floors = new Map<K, Decimal>();
  for (const [key, value] of parts) floors.set(key, value.toDecimalPlaces(places, Decimal.ROUND_FLOOR));
  let missing = total.minus(sumAmounts(floors.values())).dividedBy(unit).toNumber();
  const byRemainder = [...parts.keys()].sort((a, b) => parts.get(b)!.minus(floors.get(b)!).comparedTo(parts.get(a)!.minus(floors.get(a)!)));
  for (const key of byRemainder) {
    if (missing <= 0) break;
    floors.set(key, floors.get(key)!.plus(unit));
    missing -= 1;
  }
  return floors;
}
