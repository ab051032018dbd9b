import { AsnConvert } from '@peculiar/asn1-schema';
import type { AttributeTypeAndValue, Name } from '@peculiar/asn1-x509';

/**
 * Short names (RFC 4514 section 3 and the LDAP descriptors registered for the other attribute
 * types certificates carry, RFC 4519 and RFC 2985); any other type is written as its OID.
 */
const SHORT_NAMES: ReadonlyMap<string, string> = new Map([
  ['2.5.4.3', 'CN'],
  ['2.5.4.7', 'L'],
  ['2.5.4.8', 'ST'],
  ['2.5.4.10', 'O'],
  ['2.5.4.11', 'OU'],
  ['2.5.4.6', 'C'],
  ['2.5.4.9', 'STREET'],
  ['0.9.2342.19200300.100.1.25', 'DC'],
  ['0.9.2342.19200300.100.1.1', 'UID'],
  ['2.5.4.4', 'SN'],
  ['2.5.4.5', 'serialNumber'],
  ['2.5.4.12', 'title'],
  ['2.5.4.42', 'givenName'],
  ['2.5.4.43', 'initials'],
  ['2.5.4.44', 'generationQualifier'],
  ['2.5.4.46', 'dnQualifier'],
  ['2.5.4.65', 'pseudonym'],
  ['2.5.4.97', 'organizationIdentifier'],
  ['2.5.4.17', 'postalCode'],
  ['2.5.4.15', 'businessCategory'],
  ['1.2.840.113549.1.9.1', 'emailAddress'],
]);

/** RFC 4514 section 2.4: the characters escaped anywhere, and where a space or '#' must be. */
function escapeValue(value: string): string {
  return value
    .replace(/[\\"+,;<>]/g, (character) => `\\${character}`)
    .replace(/\0/g, '\\00')
    .replace(/^[ #]/, (character) => `\\${character}`)
    .replace(/ $/, '\\ ');
}

/** The string form of a value, or null when it is not one of the string types (then it is written as BER hex). */
function stringValue(attribute: AttributeTypeAndValue): string | null {
  const value = attribute.value;
  if (value.anyValue) return null;
  return value.utf8String ?? value.printableString ?? value.ia5String ?? value.bmpString ?? value.universalString ?? value.teletexString ?? null;
}

function attributeText(attribute: AttributeTypeAndValue): string {
  const shortName = SHORT_NAMES.get(attribute.type);
  const text = shortName ? stringValue(attribute) : null;
  // A type without a short name, or a value that is no string, is written as '#' and the hex of its BER encoding.
  const value = text === null ? `#${Buffer.from(AsnConvert.serialize(attribute.value)).toString('hex')}` : escapeValue(text);
  return `${shortName ?? attribute.type}=${value}`;
}

/**
 * A distinguished name as an RFC 4514 string: the most specific RDN first (the reverse of the
 * encoded order), RDNs separated by ',', the values of a multi-valued RDN by '+'.
 */
export function rfc4514(name: Name): string {
  return [...name]
    .reverse()
    .map((rdn) => rdn.map(attributeText).join('+'))
    .join(',');
}
