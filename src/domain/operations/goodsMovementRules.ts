import { currencyExponent, formatAmount, parseAmount, sumAmounts } from '../money.js';
import type { RuleViolation } from '../violation.js';
import { validateLineTaxes } from './lineTaxRules.js';
import type { GoodsMovementInput } from './operationInput.js';
import { checkSign } from './signRule.js';

/**
 * Semantic rules of a goods-movement create body (contract 4.2 rules 1-6, plus consistency of
 * the amounts). Returns every violation found, in body order; empty means valid.
 */
export function validateGoodsMovement(input: GoodsMovementInput): RuleViolation[] {
  return [
    ...registerRule(input),
    ...relatedOperationRule(input),
    ...signRules(input),
    ...lineRules(input),
    ...discountRules(input),
    ...amountConsistencyRules(input),
  ];
}

/** Rule 1: POS operations belong to a register, ONLINE ones to none. */
function registerRule(input: GoodsMovementInput): RuleViolation[] {
  if (input.source === 'POS' && !input.register_id?.trim()) {
    return [{ code: 'validation_error', field: 'register_id', message: 'A POS operation must carry register_id.' }];
  }
  if (input.source === 'ONLINE' && input.register_id != null) {
    return [{ code: 'validation_error', field: 'register_id', message: 'An ONLINE operation must not carry register_id.' }];
  }
  return [];
}

/** Rules 2 and 3: a sale stands alone; a return or exchange points at exactly one original. */
function relatedOperationRule(input: GoodsMovementInput): RuleViolation[] {
  const given = (['related_operation_id', 'external_related_operation'] as const).filter((field) => input[field] != null);
  if (input.type === 'sale') {
    return given.map((field) => ({ code: 'validation_error', field, message: `A sale must not carry ${field}.` }));
  }
  if (given.length !== 1) {
    return [
      {
        code: 'validation_error',
        field: given.length === 0 ? 'related_operation_id' : 'external_related_operation',
        message: `A ${input.type} must carry exactly one of related_operation_id and external_related_operation.`,
      },
    ];
  }
  return [];
}

/** Rule 4 on the operation and line totals; payments are checked on complete. */
function signRules(input: GoodsMovementInput): RuleViolation[] {
  const checked = [
    checkSign(input.type, parseAmount(input.total_amount), 'total_amount'),
    ...input.line_items.map((line, i) => checkSign(input.type, parseAmount(line.total_amount), `line_items[${i}].total_amount`)),
  ];
  return checked.filter((violation) => violation !== undefined);
}

/** Rules 5 and 6, and gift_card_id only where the contract allows it. */
function lineRules(input: GoodsMovementInput): RuleViolation[] {
  return input.line_items.flatMap((line, i): RuleViolation[] => {
    const path = `line_items[${i}]`;
    const misplacedGiftCardId: RuleViolation[] =
      line.type !== 'gift_card' && line.gift_card_id != null
        ? [{ code: 'validation_error', field: `${path}.gift_card_id`, message: 'Only a gift_card line may carry gift_card_id.' }]
        : [];
    return [...misplacedGiftCardId, ...validateLineTaxes(line, path)];
  });
}

/** Cart-level discounts are sale-only (contract 2.2) and positive. */
function discountRules(input: GoodsMovementInput): RuleViolation[] {
  const discounts = input.cart_level_discounts ?? [];
  if (input.type !== 'sale' && discounts.length > 0) {
    return [{ code: 'validation_error', field: 'cart_level_discounts', message: 'Only a sale may carry cart_level_discounts.' }];
  }
  return discounts.flatMap((discount, k): RuleViolation[] =>
    parseAmount(discount.amount).gt(0)
      ? []
      : [{ code: 'validation_error', field: `cart_level_discounts[${k}].amount`, message: 'A cart-level discount amount must be positive.' }],
  );
}

/**
 * Top-level amounts must agree with the lines:
 * - total = Σ line totals − Σ cart-level discounts + tip (line totals are tax-inclusive);
 * - pretax + tax + tip = total, blamed on pretax_amount since tax_amount is checked next;
 * - without cart-level discounts, tax_amount = Σ line taxes, give or take half a minor unit
 *   per tax entry, so an integrator may round each line tax (or their sum) to the currency.
 *   With cart-level discounts the line taxes are on pre-discount totals and the discount's
 *   tax split is the integrator's, so there is nothing exact to compare with.
 */
function amountConsistencyRules(input: GoodsMovementInput): RuleViolation[] {
  const violations: RuleViolation[] = [];
  const total = parseAmount(input.total_amount);
  const tax = parseAmount(input.tax_amount);
  const tip = parseAmount(input.tip_amount);
  const discounts = input.cart_level_discounts ?? [];

  const expectedTotal = sumAmounts(input.line_items.map((line) => line.total_amount))
    .minus(sumAmounts(discounts.map((discount) => discount.amount)))
    .plus(tip);
  if (!total.eq(expectedTotal)) {
    violations.push({
      code: 'validation_error',
      field: 'total_amount',
      message: 'total_amount must equal the sum of line totals minus cart-level discounts plus tip_amount.',
      details: { expected_total_amount: formatAmount(expectedTotal) },
    });
  }

  const expectedPretax = total.minus(tax).minus(tip);
  if (!parseAmount(input.pretax_amount).eq(expectedPretax)) {
    violations.push({
      code: 'validation_error',
      field: 'pretax_amount',
      message: 'pretax_amount + tax_amount + tip_amount must equal total_amount.',
      details: { expected_pretax_amount: formatAmount(expectedPretax) },
    });
  }

  if (discounts.length === 0) {
    const lineTaxes = input.line_items.flatMap((line) => line.taxes.map((t) => t.tax_amount));
    const tolerance = parseAmount('0.5')
      .times(lineTaxes.length)
      .dividedBy(parseAmount('10').pow(currencyExponent(input.currency)));
    const lineTaxTotal = sumAmounts(lineTaxes);
    if (tax.minus(lineTaxTotal).abs().gt(tolerance)) {
      violations.push({
        code: 'validation_error',
        field: 'tax_amount',
        message: 'tax_amount must equal the sum of the line items’ tax amounts.',
        details: { line_tax_total: formatAmount(lineTaxTotal) },
      });
    }
  }
  return violations;
}
