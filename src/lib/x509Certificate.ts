import { createHash, createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { AsnConvert } from '@peculiar/asn1-schema';
import { Certificate } from '@peculiar/asn1-x509';
import { rfc4514 } from './rfc4514.js';

/** What the service records of an X.509 certificate, read from the certificate itself. */
export interface CertificateFacts {
  der: Buffer;
  /** RFC 4514 distinguished names. */
  subject: string;
  issuer: string;
  /** Lowercase hex. */
  serialNumber: string;
  /** Lowercase hex SHA-256 of the DER. */
  fingerprint: string;
  validFrom: Date;
  validUntil: Date;
  /** For checking a private key against it. */
  x509: X509Certificate;
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----/g;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** The DER of one certificate given as PEM or base64 DER; null when the text is neither. */
function derOf(text: string): Buffer | null {
  const trimmed = text.trim();
  if (trimmed.startsWith('-----BEGIN')) {
    const labels = [...trimmed.matchAll(PEM_BLOCK)].map((match) => match[1]);
    if (labels.length !== 1 || labels[0] !== 'CERTIFICATE') return null;
    const body = /-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/.exec(trimmed)?.[1].replace(/\s/g, '');
    return body && BASE64.test(body) ? Buffer.from(body, 'base64') : null;
  }
  const compact = trimmed.replace(/\s/g, '');
  return compact && BASE64.test(compact) ? Buffer.from(compact, 'base64') : null;
}

/**
 * Parses one X.509 certificate (PEM or base64 DER) with node:crypto; the distinguished names
 * come from its ASN.1 structure (@peculiar/asn1-x509), which node:crypto does not expose.
 * Null when the text is not exactly one certificate.
 */
export function parseCertificate(text: string): CertificateFacts | null {
  const der = derOf(text);
  if (!der) return null;
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(der);
  } catch {
    return null;
  }
  // node:crypto reads the first certificate of the bytes; anything after it is not part of one.
  if (!x509.raw.equals(der)) return null;
  const structure = AsnConvert.parse(x509.raw, Certificate).tbsCertificate;
  return {
    der: x509.raw,
    subject: rfc4514(structure.subject),
    issuer: rfc4514(structure.issuer),
    serialNumber: x509.serialNumber.toLowerCase(),
    fingerprint: createHash('sha256').update(x509.raw).digest('hex'),
    validFrom: new Date(x509.validFrom),
    validUntil: new Date(x509.validTo),
    x509,
  };
}

/** An unencrypted PEM private key, or null when the text is not one. */
export function parsePrivateKey(pem: string): KeyObject | null {
  if (!/^-----BEGIN (RSA |EC |)PRIVATE KEY-----/.test(pem.trim())) return null;
  try {
    return createPrivateKey({ key: pem, format: 'pem' });
  } catch {
    return null;
  }
}

/** The key as stored: PKCS#8 PEM, whatever PEM form it came in. */
export const pkcs8Pem = (key: KeyObject): string => key.export({ type: 'pkcs8', format: 'pem' }).toString();
