import { webcrypto } from 'node:crypto';
import * as pkijs from 'pkijs';

/** ESS signing-certificate-v2 (RFC 5035), the signed attribute that makes a CMS signature CAdES-BES. */
export const SIGNING_CERTIFICATE_V2_OID = '1.2.840.113549.1.9.16.2.47';

/** pkijs on Node's Web Crypto, for signing and verifying. */
export const cryptoEngine = new pkijs.CryptoEngine({ name: 'node', crypto: webcrypto as unknown as ConstructorParameters<typeof pkijs.CryptoEngine>[0]['crypto'] });

/** The bytes as the ArrayBuffer of their own that pkijs and asn1js read. */
export const arrayBufferOf = (bytes: Uint8Array): ArrayBuffer => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;

/** The CMS SignedData a `.p7m` file is; throws when the bytes are not one. */
export function signedDataOf(p7m: Uint8Array): pkijs.SignedData {
  const contentInfo = pkijs.ContentInfo.fromBER(arrayBufferOf(p7m));
  if (contentInfo.contentType !== pkijs.ContentInfo.SIGNED_DATA) throw new Error('not a CMS SignedData');
  return new pkijs.SignedData({ schema: contentInfo.content });
}
