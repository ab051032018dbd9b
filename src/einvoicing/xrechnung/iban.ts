/**
 * An IBAN's form and ISO 13616 check digits (mod 97 = 1), as XRechnung checks BT-84
 * (BR-DE-19). Spaces are ignored, as IBANs are often written in groups of four.
 */
export function isValidIban(value: string): boolean {
  const iban = value.replace(/\s+/g, '').toUpperCase();
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(iban)) return false;
  const digits = [...iban.slice(4) + iban.slice(0, 4)].map((char) => parseInt(char, 36).toString()).join('');
  let remainder = 0;
  for (const digit of digits) remainder = (remainder * 10 + Number(digit)) % 97;
  return remainder === 1;
}
