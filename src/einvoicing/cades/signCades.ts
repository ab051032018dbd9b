import { createHash, createPrivateKey, webcrypto } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { arrayBufferOf, cryptoEngine, SIGNING_CERTIFICATE_V2_OID } from './cms.js';

const OID = {
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingTime: '1.2.840.113549.1.9.5',
  signingCertificateV2: SIGNING_CERTIFICATE_V2_OID,
  data: '1.2.840.113549.1.7.1',
  signedData: '1.2.840.113549.1.7.2',
} as const;

/** Web Crypto's name for the curves a signing key may use. */
const WEB_CRYPTO_CURVES: Record<string, string> = { prime256v1: 'P-256', secp384r1: 'P-384', secp521r1: 'P-521' };

type SigningKey = Parameters<pkijs.SignedData['sign']>[0];

/** The PKCS#8 PEM key as a Web Crypto signing key for SHA-256 (RSA PKCS#1 v1.5 or ECDSA). */
async function signingKeyOf(privateKeyPem: string): Promise<SigningKey> {
  const key = createPrivateKey(privateKeyPem);
  const pkcs8 = key.export({ format: 'der', type: 'pkcs8' });
  if (key.asymmetricKeyType === 'rsa') {
    return webcrypto.subtle.importKey('pkcs8', pkcs8, { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, false, ['sign']) as Promise<SigningKey>;
  }
  const namedCurve = WEB_CRYPTO_CURVES[key.asymmetricKeyDetails?.namedCurve ?? ''];
  if (key.asymmetricKeyType === 'ec' && namedCurve) {
    return webcrypto.subtle.importKey('pkcs8', pkcs8, { name: 'ECDSA', namedCurve }, false, ['sign']) as Promise<SigningKey>;
  }
  throw new Error(`CAdES signing supports RSA and ECDSA (P-256, P-384, P-521) keys, not ${key.asymmetricKeyType}`);
}

/**
 * ESS signing-certificate-v2 (RFC 5035): the SHA-256 hash of the signer's certificate and its
 * issuer and serial number, binding the signature to that certificate (what makes CMS CAdES-BES).
 * The hash algorithm is left out because SHA-256 is its default.
 */
function signingCertificateV2(certificateDer: Buffer, certificate: pkijs.Certificate): pkijs.Attribute {
  const issuerSerial = new asn1js.Sequence({
    value: [
      new asn1js.Sequence({ value: [new asn1js.Constructed({ idBlock: { tagClass: 3, tagNumber: 4 }, value: [certificate.issuer.toSchema()] })] }),
      certificate.serialNumber,
    ],
  });
  const essCertIdV2 = new asn1js.Sequence({
    value: [new asn1js.OctetString({ valueHex: arrayBufferOf(createHash('sha256').update(certificateDer).digest()) }), issuerSerial],
  });
  return new pkijs.Attribute({
    type: OID.signingCertificateV2,
    values: [new asn1js.Sequence({ value: [new asn1js.Sequence({ value: [essCertIdV2] })] })],
  });
}

/**
 * Signs `content` as CAdES-BES: a CMS SignedData (RFC 5652) that encloses the content
 * (attached, as `.p7m` files are), SHA-256, with the signer's certificate and the signed
 * attributes content-type, message-digest, signing-time and signing-certificate-v2. Returns the
 * DER of the ContentInfo. `certificateDer` must be the certificate of `privateKeyPem` (PKCS#8).
 */
export async function signCades(input: { certificateDer: Buffer; privateKeyPem: string; content: Uint8Array; signedAt: Date }): Promise<Buffer<ArrayBuffer>> {
  const certificate = pkijs.Certificate.fromBER(arrayBufferOf(input.certificateDer));
  const signedData = new pkijs.SignedData({
    version: 1,
    encapContentInfo: new pkijs.EncapsulatedContentInfo({ eContentType: OID.data }),
    signerInfos: [
      new pkijs.SignerInfo({
        version: 1,
        sid: new pkijs.IssuerAndSerialNumber({ issuer: certificate.issuer, serialNumber: certificate.serialNumber }),
        signedAttrs: new pkijs.SignedAndUnsignedAttributes({
          type: 0,
          attributes: [
            new pkijs.Attribute({ type: OID.contentType, values: [new asn1js.ObjectIdentifier({ value: OID.data })] }),
            new pkijs.Attribute({ type: OID.signingTime, values: [new asn1js.UTCTime({ valueDate: input.signedAt })] }),
            new pkijs.Attribute({
              type: OID.messageDigest,
              values: [new asn1js.OctetString({ valueHex: arrayBufferOf(createHash('sha256').update(input.content).digest()) })],
            }),
            signingCertificateV2(input.certificateDer, certificate),
          ],
        }),
      }),
    ],
    certificates: [certificate],
  });
  // Set after construction: the constructor would split the content into a constructed (BER) string.
  signedData.encapContentInfo.eContent = new asn1js.OctetString({ valueHex: arrayBufferOf(input.content) });
  await signedData.sign(await signingKeyOf(input.privateKeyPem), 0, 'SHA-256', undefined, cryptoEngine);
  const contentInfo = new pkijs.ContentInfo({ contentType: OID.signedData, content: signedData.toSchema(true) });
  return Buffer.from(contentInfo.toSchema().toBER());
}
