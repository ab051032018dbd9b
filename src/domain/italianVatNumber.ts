/**
 * The Italian partita IVA: 11 digits, the last a check digit over the first ten (Luhn's
 * scheme: digits in odd positions count as they are, digits in even positions doubled,
 * less 9 when the double exceeds 9; the check digit brings the sum to a multiple of 10).
 */
export function italianVatCheckDigit(firstTen: string): number {
  if (!/^\d{10}$/.test(firstTen)) throw new RangeError(`not ten digits: ${JSON.stringify(firstTen)}`);
  let sum = 0;
  for (let i = 0; i < 10; i += 1) {
    const digit = Number(firstTen[i]);
    if (i % 2 === 0) sum += digit;
    else sum += digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
  }
  return (10 - (sum % 10)) % 10;
}

/** Whether `value` is 11 digits whose last is the check digit of the first ten. */
export function isValidItalianVatNumber(value: string): boolean {
  return /^\d{11}$/.test(value) && italianVatCheckDigit(value.slice(0, 10)) === Number(value[10]);
}
