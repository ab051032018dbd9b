import { formatAmount, parseAmount } from '../money.js';
import type { RuleViolation } from '../violation.js';
import type { LineItemInput } from './operationInput.js';
import { computeLineTaxAmounts } from './taxAmount.js';

/**
 * Taxes of one line item (contract 2.2 line item rules, 4.2 rules 5 and 6). `path` is the
 * line's JSON path, e.g. `line_items[2]`.
 */
export function validateLineTaxes(line: LineItemInput, path: string): RuleViolation[] {
  return line.type === 'gift_card' ? giftCardTaxes(line, path) : itemTaxes(line, path);
}

/** Gift cards are not taxed: every tax must say rate 0 and amount 0. */
function giftCardTaxes(line: LineItemInput, path: string): RuleViolation[] {
  const violations: RuleViolation[] = [];
  line.taxes.forEach((tax, j) => {
    const field = !parseAmount(tax.rate).isZero()
      ? `${path}.taxes[${j}].rate`
      : !parseAmount(tax.tax_amount).isZero()
        ? `${path}.taxes[${j}].tax_amount`
        : undefined;
    if (field) {
      violations.push({
        code: 'gift_card_tax_rate_must_be_zero',
        field,
        message: 'A gift_card line must have tax rate 0 and tax amount 0.',
      });
    }
  });
  return violations;
}

function itemTaxes(line: LineItemInput, path: string): RuleViolation[] {
  const negativeRates = line.taxes.flatMap((tax, j): RuleViolation[] =>
    parseAmount(tax.rate).lt(0)
      ? [{ code: 'validation_error', field: `${path}.taxes[${j}].rate`, message: 'A tax rate must not be negative.' }]
      : [],
  );
  // Without valid rates there is no expected tax to compare with.
  if (negativeRates.length > 0) return negativeRates;

  const expected = computeLineTaxAmounts(line.total_amount, line.taxes.map((tax) => tax.rate));
  const violations: RuleViolation[] = [];
  line.taxes.forEach((tax, j) => {
    // Numeric comparison: `0.19` equals `0.190000000`, and a value with more than 8
    // significant decimals can never equal the 8-decimal expected amount.
    if (!parseAmount(tax.tax_amount).eq(expected[j])) {
      violations.push({
        code: 'tax_amount_precision_invalid',
        field: `${path}.taxes[${j}].tax_amount`,
        message: 'tax_amount must equal total_amount × rate / (1 + sum of the line’s rates), rounded half-up to 8 decimal places.',
        details: { expected_tax_amount: formatAmount(expected[j]) },
      });
    }
  });
  return violations;
}
