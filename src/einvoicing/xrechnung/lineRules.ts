import { Decimal } from 'decimal.js';
import type { RuleViolation } from '../../domain/violation.js';
import type { InvoiceContent } from '../invoiceDocument.js';
import { xrechnungViolation } from './ruleViolation.js';
import { isVatCategoryCode, requiresZeroRate, VAT_CATEGORY_CODES } from './vatCategory.js';

const RATE_RULE_PREFIX: Record<string, string> = { Z: 'BR-Z', E: 'BR-E', AE: 'BR-AE', K: 'BR-IC', G: 'BR-G', O: 'BR-O' };

/**
 * At least one line (BR-16), each with a name (BR-25), a price that is not negative (BR-27)
 * and a VAT category EN 16931 knows, at a rate that fits it: above 0 for S (BR-S-05), 0 for
 * the others (BR-Z-05, BR-E-05, ...). A "not subject to VAT" invoice has only such lines
 * (BR-O-11 to BR-O-14).
 */
export function lineViolations(invoice: InvoiceContent): RuleViolation[] {
  if (invoice.lines.length === 0) return [xrechnungViolation('line_items', 'BR-16', 'An invoice needs at least one line')];
  const violations: RuleViolation[] = [];
  const notSubjectToVat = invoice.lines.some((line) => line.vatCategory === 'O');
  invoice.lines.forEach((line, i) => {
    const at = `line_items[${i}]`;
    if (!line.description.trim()) violations.push(xrechnungViolation(`${at}.description`, 'BR-25', 'A line needs a description'));
    if (line.unitPriceNet < 0) violations.push(xrechnungViolation(`${at}.unit_price_net`, 'BR-27', 'A net price must not be negative'));
    const category = line.vatCategory;
    if (!isVatCategoryCode(category)) {
      violations.push(xrechnungViolation(`${at}.tax.category`, 'BR-CL-18', `The VAT category must be one of ${VAT_CATEGORY_CODES.join(', ')}`));
      return;
    }
    const rate = new Decimal(line.vatRate);
    if (category === 'S' && !rate.gt(0)) {
      violations.push(xrechnungViolation(`${at}.tax.rate`, 'BR-S-05', 'A standard-rated line needs a rate above 0'));
    } else if (requiresZeroRate(category) && !rate.isZero()) {
      violations.push(xrechnungViolation(`${at}.tax.rate`, `${RATE_RULE_PREFIX[category]}-05`, `A line in VAT category ${category} has rate 0`));
    }
    if (notSubjectToVat && category !== 'O') {
      violations.push(xrechnungViolation(`${at}.tax.category`, 'BR-O-12', 'A "not subject to VAT" invoice (category O) cannot have lines in other VAT categories'));
    }
  });
  return violations;
}
