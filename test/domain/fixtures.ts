import fc from 'fast-check';
import { formatAmount, sumAmounts } from '../../src/domain/money.js';
import type { GoodsMovementInput, GoodsMovementType, LineItemInput } from '../../src/domain/operations/operationInput.js';
import { computeLineTaxAmounts } from '../../src/domain/operations/taxAmount.js';
import type { RuleViolation } from '../../src/domain/violation.js';

export interface LineSpec {
  total: string;
  rates?: string[];
  type?: LineItemInput['type'];
}

/**
 * A goods movement whose amounts all agree: line taxes by the contract formula, tax_amount
 * their sum, pretax the rest. Tests then break exactly one thing.
 */
export function consistentInput(
  type: GoodsMovementType,
  lines: LineSpec[],
  options: { tip?: string; discounts?: string[] } = {},
): GoodsMovementInput {
  const tip = options.tip ?? '0.00';
  const discounts = options.discounts ?? [];
  const lineItems: LineItemInput[] = lines.map((line, i) => {
    const rates = line.rates ?? ['0.19'];
    const taxes = computeLineTaxAmounts(line.total, rates);
    return {
      ...(line.type ? { type: line.type } : {}),
      title: `Item ${i}`,
      quantity: 1,
      unit_price: line.total,
      total_amount: line.total,
      sku_identifier: `SKU-${i}`,
      taxes: rates.map((rate, j) => ({ name: `VAT ${rate}`, rate, tax_amount: formatAmount(taxes[j]) })),
    };
  });
  const total = sumAmounts(lines.map((line) => line.total))
    .minus(sumAmounts(discounts))
    .plus(tip);
  const tax = sumAmounts(lineItems.flatMap((line) => line.taxes.map((t) => t.tax_amount)));
  return {
    type,
    source: 'POS',
    register_id: 'reg_1',
    currency: 'EUR',
    pretax_amount: formatAmount(total.minus(tax).minus(tip)),
    tax_amount: formatAmount(tax),
    tip_amount: tip,
    total_amount: formatAmount(total),
    line_items: lineItems,
    cart_level_discounts: discounts.map((amount) => ({ amount })),
    ...(type === 'sale' ? {} : { related_operation_id: 'op_original' }),
  };
}

/** `[code, field]` pairs, the part of a violation every test pins down. */
export function codesAndFields(violations: RuleViolation[]): [string, string][] {
  return violations.map((v) => [v.code, v.field]);
}

/** `units` scaled down by `scale` decimals, as a plain decimal string (`1050n, 2` -> `10.50`). */
export function unitsToString(units: bigint, scale: number): string {
  const sign = units < 0n ? '-' : '';
  const digits = (units < 0n ? -units : units).toString().padStart(scale + 1, '0');
  return scale === 0 ? sign + digits : `${sign}${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
}

export function decimalString(min: bigint, max: bigint, scale: number): fc.Arbitrary<string> {
  return fc.bigInt({ min, max }).map((units) => unitsToString(units, scale));
}
