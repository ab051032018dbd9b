import { fromMinorUnits, toAmount } from '../../domain/money.js';
import type { RuleViolation } from '../../domain/violation.js';
import type { InvoiceDocumentLine } from '../invoiceDocument.js';
import { ITALIAN_VAT_RATES_TEXT, isItalianVatRate } from './italianVatRates.js';
import { MAX_QUANTITY_DECIMALS } from './lineAmounts.js';
import { isNaturaCode, needsSubCode } from './natura.js';
import { violation } from './violation.js';
import { textProblem } from './xmlText.js';

/** Descrizione is String1000Latin, UnitaMisura String10, CodiceValore String35LatinExt. */
const DESCRIPTION_LENGTH = 1000;
const UNIT_LENGTH = 10;
const PRODUCT_REF_LENGTH = 35;
/** QuantitaType: at most 12 integer digits. */
const QUANTITY_LIMIT = toAmount('1000000000000');
/** Amount8DecimalType (PrezzoUnitario, PrezzoTotale): at most 11 integer digits. */
export const AMOUNT_LIMIT = toAmount('100000000000');

function textViolations(line: InvoiceDocumentLine, path: string): RuleViolation[] {
  const violations: RuleViolation[] = [];
  const description = textProblem(line.description, 'latin1', DESCRIPTION_LENGTH);
  if (description) violations.push(violation(`${path}.description`, `description ${description}.`));
  const unit = line.unit ? textProblem(line.unit, 'ascii', UNIT_LENGTH) : undefined;
  if (unit) violations.push(violation(`${path}.unit`, `unit ${unit}.`));
  const productRef = line.productRef ? textProblem(line.productRef, 'latin1', PRODUCT_REF_LENGTH) : undefined;
  if (productRef) violations.push(violation(`${path}.product_ref`, `product_ref ${productRef}.`));
  return violations;
}

function amountViolations(line: InvoiceDocumentLine, path: string, currency: string): RuleViolation[] {
  const violations: RuleViolation[] = [];
  const quantity = toAmount(line.quantity);
  if (quantity.decimalPlaces() > MAX_QUANTITY_DECIMALS || quantity.abs().gte(QUANTITY_LIMIT)) {
    violations.push(violation(`${path}.quantity`, `FatturaPA writes a quantity with at most 12 integer digits and, so that quantity x price fits PrezzoTotale's 8 decimals, ${MAX_QUANTITY_DECIMALS} decimals.`));
  }
  if (fromMinorUnits(line.unitPriceNet, currency).abs().gte(AMOUNT_LIMIT) || fromMinorUnits(line.netAmount, currency).abs().gte(AMOUNT_LIMIT)) {
    violations.push(violation(`${path}.unit_price_net`, 'FatturaPA writes line amounts below 100,000,000,000 in the invoice currency.'));
  }
  if (line.discount !== null && line.discount.amount !== 0) {
    // Written per unit: the discount divided by the quantity must exist and fit the amount type.
    const discount = fromMinorUnits(line.discount.amount, currency);
    if (quantity.isZero()) {
      violations.push(violation(`${path}.discount`, 'FatturaPA applies a line discount to the unit price: a discounted line needs a quantity other than 0.'));
    } else if (discount.dividedBy(quantity).abs().gte(AMOUNT_LIMIT)) {
      violations.push(violation(`${path}.discount`, 'FatturaPA writes the discount per unit, which must stay below 100,000,000,000 in the invoice currency.'));
    }
  }
  return violations;
}

/**
 * The rate and natura of a line: an Italian rate; rate 0 with a natura code in force (N2, N3,
 * N6 need their sub-code since 2021); no natura on a positive rate (the SdI's 00400, 00401).
 */
function taxViolations(line: InvoiceDocumentLine, path: string): RuleViolation[] {
  if (!isItalianVatRate(line.vatRate)) {
    return [violation(`${path}.tax.rate`, `An Italian invoice charges Italian VAT: the rate must be ${ITALIAN_VAT_RATES_TEXT}.`)];
  }
  const zeroRated = toAmount(line.vatRate).isZero();
  const natura = line.natureCode;
  if (zeroRated && natura === null) {
    return [violation(`${path}.nature_code`, 'A line with rate 0 needs a nature_code (N1 ... N7) stating why no VAT is charged.')];
  }
  if (!zeroRated && natura !== null) {
    return [violation(`${path}.nature_code`, 'nature_code is only for lines with rate 0; a line that charges VAT has none.')];
  }
  if (natura !== null && needsSubCode(natura)) {
    return [violation(`${path}.nature_code`, `${natura} is no longer accepted on invoices: use one of its sub-codes (${natura}.1, ${natura}.2, ...).`)];
  }
  if (natura !== null && !isNaturaCode(natura)) {
    return [violation(`${path}.nature_code`, `${natura} is not a FatturaPA natura code (N1, N2.1, N2.2, N3.1 ... N3.6, N4, N5, N6.1 ... N6.9, N7).`)];
  }
  return [];
}

export function lineViolations(line: InvoiceDocumentLine, index: number, currency: string): RuleViolation[] {
  const path = `line_items[${index}]`;
  return [...textViolations(line, path), ...amountViolations(line, path, currency), ...taxViolations(line, path)];
}
