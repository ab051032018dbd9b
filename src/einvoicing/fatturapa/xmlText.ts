/**
 * What the XSD's string types accept. The Latin types (String60Latin, String1000Latin ...)
 * allow Basic Latin and Latin-1 Supplement, the plain ones (String10, String20 ...) Basic Latin
 * only; lengths count characters. Control characters other than tab, line feed and carriage
 * return cannot appear in XML 1.0 at all; those three become spaces (xs:normalizedString).
 */
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F]/;
const OUTSIDE_LATIN_1 = /[^\u0000-\u00FF]/u;
const OUTSIDE_BASIC_LATIN = /[^\u0000-\u007F]/u;

export type Charset = 'latin1' | 'ascii';

/** Why `text` does not fit a string type of `charset` with at most `maxLength` characters, or undefined. */
export function textProblem(text: string, charset: Charset, maxLength: number): string | undefined {
  if (text.length === 0) return 'must not be empty';
  const control = NOT_XML.exec(text);
  if (control) return `contains the control character U+${control[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
  const foreign = (charset === 'latin1' ? OUTSIDE_LATIN_1 : OUTSIDE_BASIC_LATIN).exec(text);
  if (foreign) {
    const allowed = charset === 'latin1' ? 'Latin-1 characters' : 'ASCII characters';
    return `contains "${foreign[0]}", but FatturaPA allows only ${allowed} here`;
  }
  if (text.length > maxLength) return `must be at most ${maxLength} characters for FatturaPA (it has ${text.length})`;
  return undefined;
}

/** Splits a text into pieces of at most `size` characters (Causale is String200Latin, repeatable). */
export function chunks(text: string, size: number): string[] {
  const pieces: string[] = [];
  for (let start = 0; start < text.length; start += size) pieces.push(text.slice(start, start + size));
  return pieces;
}
