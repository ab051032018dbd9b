/** Identifiers as FatturaPA writes them: trimmed and upper case, IBANs without spaces. */
export const normalizedId = (id: string) => id.trim().toUpperCase();

/** A partita IVA with its prefix: IT and 11 digits. The check digit is the SdI's to verify (00305). */
export const ITALIAN_VAT_ID = /^IT([0-9]{11})$/;

/** Any other VAT id: the country prefix and up to 28 characters (IdFiscaleType's IdCodice). */
const VAT_ID = /^([A-Z]{2})([A-Z0-9]{1,28})$/;

/** A codice fiscale: 16 characters for a person, the 11 digits of an entity (CodiceFiscaleType allows [A-Z0-9]{11,16}). */
export const CODICE_FISCALE = /^([A-Z0-9]{16}|[0-9]{11})$/;

export interface IdFiscale {
  IdPaese: string;
  IdCodice: string;
}

/** IdFiscaleIVA of a VAT id with its prefix, or undefined when it has not the shape of one. */
export function idFiscaleOf(vatId: string): IdFiscale | undefined {
  const match = VAT_ID.exec(normalizedId(vatId));
  return match ? { IdPaese: match[1], IdCodice: match[2] } : undefined;
}

/** The 11 digits of an Italian VAT id, or undefined. */
export function italianVatDigits(vatId: string | null): string | undefined {
  return vatId === null ? undefined : ITALIAN_VAT_ID.exec(normalizedId(vatId))?.[1];
}

/** IBANType: [a-zA-Z]{2}[0-9]{2}[a-zA-Z0-9]{11,30}. */
export const IBAN = /^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$/;

export const normalizedIban = (iban: string) => iban.replace(/\s+/g, '').toUpperCase();
