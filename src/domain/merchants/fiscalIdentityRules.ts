/** Format rules of the fiscal identities per regime (contract 2.1); shape is checked before. */

export interface FiscalIdentityFields {
  country_code: string;
  legal_entity_id_type?: string;
  gln?: string;
  tax_number?: string;
  vat_number?: string;
  fisconline_user?: string;
}

export interface RegimeViolation {
  field: string;
  message: string;
}

const GLN = /^\d{13}$/;
const ITA_TAX_NUMBER = /^(\d{11}|[A-Za-z0-9]{16})$/;
const ITA_VAT_NUMBER = /^\d{11}$/;
const ITA_FISCAL_CODE = /^[A-Za-z0-9]{16}$/;

export function checkFiscalIdentity(identity: FiscalIdentityFields, path: string): RegimeViolation[] {
  const violations: RegimeViolation[] = [];
  if (identity.country_code === 'AUT') {
    if (identity.legal_entity_id_type === 'GLN' && identity.gln === undefined) {
      violations.push({ field: `${path}.gln`, message: 'gln is required when legal_entity_id_type is GLN' });
    }
    if (identity.gln !== undefined && !GLN.test(identity.gln)) {
      violations.push({ field: `${path}.gln`, message: 'gln must be a 13-digit location number' });
    }
  }
  if (identity.country_code === 'ITA') {
    if (!ITA_TAX_NUMBER.test(identity.tax_number ?? '')) {
      violations.push({ field: `${path}.tax_number`, message: 'tax_number must be 11 digits or 16 alphanumeric characters' });
    }
    if (!ITA_VAT_NUMBER.test(identity.vat_number ?? '')) {
      violations.push({ field: `${path}.vat_number`, message: 'vat_number must be 11 digits' });
    }
    if (!ITA_FISCAL_CODE.test(identity.fisconline_user ?? '')) {
      violations.push({ field: `${path}.fisconline_user`, message: 'fisconline_user must be a 16-character alphanumeric fiscal code' });
    }
  }
  return violations;
}

export function checkFiscalIdentities(identities: FiscalIdentityFields[], path = 'fiscal_identities'): RegimeViolation[] {
  return identities.flatMap((identity, index) => checkFiscalIdentity(identity, `${path}[${index}]`));
}

/** Index of the first identity whose country_code repeats an earlier one, or -1. */
export function firstDuplicateCountry(identities: { country_code: string }[]): number {
  const seen = new Set<string>();
  return identities.findIndex((identity) => {
    if (seen.has(identity.country_code)) return true;
    seen.add(identity.country_code);
    return false;
  });
}

/** PATCH semantics: an identity replaces the one of the same country_code; others stay. */
export function mergeFiscalIdentities<T extends { country_code: string }>(current: T[], updates: T[]): T[] {
  const merged = new Map(current.map((identity) => [identity.country_code, identity]));
  for (const identity of updates) merged.set(identity.country_code, identity);
  return [...merged.values()];
}
