/**
 * A party's tax identifier as an invoice needs it: a VAT identification number with its
 * country prefix (IT01234567890, DE123456789), or a national tax code without VAT (the
 * Italian codice fiscale, the German Steuernummer).
 */
export const TAX_ID_TYPES = ['vat_id', 'tax_code'] as const;
export type TaxIdType = (typeof TAX_ID_TYPES)[number];

/** Greece's VAT prefix is EL, not its ISO code GR. */
const vatPrefixOf = (country: string): string => (country === 'GR' ? 'EL' : country);

const compact = (taxId: string): string => taxId.replace(/[\s.-]/g, '').toUpperCase();

/**
 * The type of a tax id sent without one: with a two-letter prefix a VAT id; for an Italian
 * party 11 digits (partita IVA) a VAT id, anything else (16 characters: codice fiscale) a tax
 * code; for a German one 9 digits a VAT id, anything else (Steuernummer) a tax code; elsewhere
 * a VAT id.
 */
export function inferTaxIdType(taxId: string, country: string): TaxIdType {
  const value = compact(taxId);
  if (/^[A-Z]{2}[0-9A-Z+*]{2,13}$/.test(value) && /\d/.test(value.slice(2))) return 'vat_id';
  if (country === 'IT') return /^\d{11}$/.test(value) ? 'vat_id' : 'tax_code';
  if (country === 'DE') return /^\d{9}$/.test(value) ? 'vat_id' : 'tax_code';
  return 'vat_id';
}

/**
 * A VAT id in its canonical form: spaces, dots and hyphens removed, upper case, prefixed with
 * the party's country (EL for Greece) when it does not start with two letters.
 */
export function canonicalVatId(taxId: string, country: string): string {
  const value = compact(taxId);
  return /^[A-Z]{2}/.test(value) ? value : `${vatPrefixOf(country)}${value}`;
}

export interface ResolvedTaxId {
  taxId: string | null;
  taxIdType: TaxIdType | null;
  vatId: string | null;
  taxCode: string | null;
}

/** A party's tax id as sent (with or without its type) resolved to a VAT id or a tax code. */
export function resolveTaxId(taxId: string | null | undefined, taxIdType: TaxIdType | null | undefined, country: string): ResolvedTaxId {
  if (!taxId) return { taxId: null, taxIdType: null, vatId: null, taxCode: null };
  const type = taxIdType ?? inferTaxIdType(taxId, country);
  if (type === 'vat_id') {
    const vatId = canonicalVatId(taxId, country);
    return { taxId: vatId, taxIdType: type, vatId, taxCode: null };
  }
  const taxCode = taxId.trim().toUpperCase();
  return { taxId: taxCode, taxIdType: type, vatId: null, taxCode };
}
