import type { RuleViolation } from '../../domain/violation.js';
import type { InvoiceAddress, InvoiceParty } from '../invoiceDocument.js';
import { isItalian } from './parties.js';
import { CAP, PROVINCIA, indirizzoOf, provinciaOf } from './sede.js';
import { CODICE_FISCALE, ITALIAN_VAT_ID, idFiscaleOf, normalizedId } from './taxIds.js';
import { violation } from './violation.js';
import { textProblem } from './xmlText.js';

/** Denominazione is String80Latin; Indirizzo and Comune String60Latin. */
const DENOMINAZIONE_LENGTH = 80;
const ADDRESS_LENGTH = 60;
/** IdCodice (CodiceType) holds at most 28 characters. */
const ID_CODICE_LENGTH = 28;

function addressViolations(address: InvoiceAddress, path: string): RuleViolation[] {
  const violations: RuleViolation[] = [];
  const line1 = textProblem(address.line1, 'latin1', ADDRESS_LENGTH);
  if (line1) violations.push(violation(`${path}.line1`, `line1 ${line1}.`));
  else if (address.line2) {
    const both = textProblem(indirizzoOf(address), 'latin1', ADDRESS_LENGTH);
    if (both) violations.push(violation(`${path}.line2`, `line1 and line2 together form FatturaPA's Indirizzo, which ${both}.`));
  }
  const city = textProblem(address.city, 'latin1', ADDRESS_LENGTH);
  if (city) violations.push(violation(`${path}.city`, `city ${city}.`));
  if (!/^[A-Z]{2}$/.test(address.country)) {
    violations.push(violation(`${path}.country`, 'country must be an ISO 3166-1 alpha-2 code in upper case.'));
  }
  if (address.country === 'IT') {
    if (!CAP.test(address.postalCode.trim())) {
      violations.push(violation(`${path}.postal_code`, 'An Italian postal_code (CAP) must be five digits.'));
    }
    const provincia = provinciaOf(address);
    if (provincia !== undefined && !PROVINCIA.test(provincia)) {
      violations.push(violation(`${path}.state`, 'An Italian state must be the two-letter province code (sigla), e.g. MI.'));
    }
  }
  return violations;
}

function nameViolations(party: InvoiceParty, path: string): RuleViolation[] {
  const problem = textProblem(party.legalName, 'latin1', DENOMINAZIONE_LENGTH);
  return problem ? [violation(`${path}.legal_name`, `legal_name ${problem}.`)] : [];
}

/** The seller transmits in its own name: it needs an Italian VAT id (IT and 11 digits); its codice fiscale, if any, must be one. */
export function sellerViolations(seller: InvoiceParty): RuleViolation[] {
  const violations = [...nameViolations(seller, 'seller'), ...addressViolations(seller.address, 'seller.address')];
  if (seller.vatId === null || !ITALIAN_VAT_ID.test(normalizedId(seller.vatId))) {
    violations.push(violation('seller.tax_id', 'An Italian invoice needs the seller’s Italian VAT id: IT followed by 11 digits.'));
  }
  if (seller.taxCode !== null && !CODICE_FISCALE.test(normalizedId(seller.taxCode))) {
    violations.push(violation('seller.tax_id', 'The seller’s codice fiscale must be 16 letters and digits, or 11 digits.'));
  }
  return violations;
}

/**
 * An Italian buyer needs a VAT id or a codice fiscale (a consumer has only the latter); a
 * foreign buyer's VAT id or tax code is its IdFiscaleIVA, at most 28 characters after the
 * country. The check digit is not verified here: the SdI rejects a wrong one (00305).
 */
export function buyerViolations(buyer: InvoiceParty): RuleViolation[] {
  const violations = [...nameViolations(buyer, 'buyer'), ...addressViolations(buyer.address, 'buyer.address')];
  const vatId = buyer.vatId === null ? null : normalizedId(buyer.vatId);
  const taxCode = buyer.taxCode === null ? null : normalizedId(buyer.taxCode);
  if (vatId !== null) {
    if (vatId.startsWith('IT') && !ITALIAN_VAT_ID.test(vatId)) {
      violations.push(violation('buyer.tax_id', 'An Italian VAT id is IT followed by 11 digits.'));
    } else if (idFiscaleOf(vatId) === undefined) {
      violations.push(violation('buyer.tax_id', 'A VAT id is its two-letter country prefix followed by at most 28 letters and digits.'));
    }
  }
  if (isItalian(buyer)) {
    if (vatId === null && taxCode === null) {
      violations.push(violation('buyer.tax_id', 'An Italian buyer needs a VAT id or a codice fiscale.'));
    } else if (taxCode !== null && !CODICE_FISCALE.test(taxCode)) {
      violations.push(violation('buyer.tax_id', 'An Italian codice fiscale is 16 letters and digits, or 11 digits.'));
    }
  } else if (vatId === null && taxCode !== null) {
    const problem = textProblem(taxCode, 'ascii', ID_CODICE_LENGTH);
    if (problem) violations.push(violation('buyer.tax_id', `A foreign buyer’s tax code is written as its IdFiscaleIVA, which ${problem}.`));
  }
  return violations;
}
