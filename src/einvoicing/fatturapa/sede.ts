import type { InvoiceAddress } from '../invoiceDocument.js';

/** CAPType: five digits, for every address. */
export const CAP = /^[0-9]{5}$/;

/** ProvinciaType: the two-letter sigla of an Italian province. */
export const PROVINCIA = /^[A-Z]{2}$/;

/** The CAP the SdI expects of a foreign address whose postal code is not five digits. */
export const FOREIGN_CAP = '00000';

export interface Sede {
  Indirizzo: string;
  CAP: string;
  Comune: string;
  Provincia?: string;
  Nazione: string;
}

/** Indirizzo holds both address lines (String60Latin); NumeroCivico stays empty, the number being part of the line. */
export const indirizzoOf = (address: InvoiceAddress) => (address.line2 ? `${address.line1}, ${address.line2}` : address.line1);

export const provinciaOf = (address: InvoiceAddress) => address.state?.trim().toUpperCase() || undefined;

/**
 * A party's Sede. An Italian address writes its CAP and provincia as given (the validation
 * rules check their patterns). A foreign address has no provincia and keeps a five-digit
 * postal code (many EU countries use one); any other is written as 00000, the SdI's
 * convention for a foreign address, since CAPType admits nothing else.
 */
export function sedeOf(address: InvoiceAddress): Sede {
  const italian = address.country === 'IT';
  const postalCode = address.postalCode.trim();
  const provincia = italian ? provinciaOf(address) : undefined;
  return {
    Indirizzo: indirizzoOf(address),
    CAP: italian || CAP.test(postalCode) ? postalCode : FOREIGN_CAP,
    Comune: address.city,
    ...(provincia ? { Provincia: provincia } : {}),
    Nazione: address.country,
  };
}
