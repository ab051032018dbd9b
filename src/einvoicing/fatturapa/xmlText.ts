/**
 * What the XSD's string types accept. The Latin types (String60Latin, String1000Latin ...)
 * allow Basic Latin and Latin-1 Supplement, the plain ones (String10, String20 ...) Basic Latin
 * only; lengths count characters. Control characters other than tab, line feed and carriage
 * return cannot appear in XML 1.0 at all; those three become spaces (xs:normalizedString).
 */

/** Highest code point of each charset: U+00FF ends Latin-1 Supplement, U+007F Basic Latin. */
const LAST_CODE_POINT = { latin1: 0xff, ascii: 0x7f } as const;

export type Charset = keyof typeof LAST_CODE_POINT;

const isXmlCharacter = (code: number) => code >= 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;

const hex = (code: number) => `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;

/** Why `text` does not fit a string type of `charset` with at most `maxLength` characters, or undefined. */
export function textProblem(text: string, charset: Charset, maxLength: number): string | undefined {
  if (text.length === 0) return 'must not be empty';
  for (const character of text) {
    const code = character.codePointAt(0)!;
    if (!isXmlCharacter(code)) return `contains the control character ${hex(code)}`;
    if (code > LAST_CODE_POINT[charset]) {
      const allowed = charset === 'latin1' ? 'Latin-1 characters' : 'ASCII characters';
      return `contains "${character}" (${hex(code)}), but FatturaPA allows only ${allowed} here`;
    }
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
