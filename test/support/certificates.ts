import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

const EC = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
const RSA = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256', publicExponent: new Uint8Array([1, 0, 1]), modulusLength: 2048 };
const DAY_MS = 24 * 60 * 60 * 1000;

/** A test certificate: PEM, base64 DER, and its private key as PKCS#8 PEM. */
export interface TestCertificate {
  pem: string;
  derBase64: string;
  der: Buffer;
  keyPem: string;
  notBefore: Date;
  notAfter: Date;
}

const pem = (label: string, der: ArrayBuffer) =>
  `-----BEGIN ${label}-----\n${Buffer.from(der).toString('base64').replace(/.{64}/g, '$&\n').replace(/\n$/, '')}\n-----END ${label}-----\n`;

export interface CertificateOptions {
  /** The subject as @peculiar/x509 JSON: one object per RDN in encoded order (most general first). */
  subject?: x509.JsonNameParams;
  issuer?: x509.JsonNameParams;
  serialNumber?: string;
  notBefore?: Date;
  notAfter?: Date;
  /** Days from now to notAfter, when notAfter is not given. */
  validDays?: number;
  /** The key's algorithm: ECDSA P-256 unless `rsa` (2048 bits). */
  keyType?: 'ec' | 'rsa';
}

/** A self-signed (or, with `issuer`, issuer-named) ECDSA P-256 (or RSA) certificate made here. */
export async function makeCertificate(options: CertificateOptions = {}): Promise<TestCertificate> {
  const algorithm = options.keyType === 'rsa' ? RSA : EC;
  const keys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
  const notBefore = options.notBefore ?? new Date(Date.now() - DAY_MS);
  const notAfter = options.notAfter ?? new Date(Date.now() + (options.validDays ?? 365) * DAY_MS);
  const subject = options.subject ?? [{ C: ['IT'] }, { O: ['Pasticceria Roma Srl'] }, { CN: ['Firma fatture'] }];
  const certificate = await x509.X509CertificateGenerator.create({
    serialNumber: options.serialNumber ?? Buffer.from(webcrypto.getRandomValues(new Uint8Array(8))).toString('hex').replace(/^[89a-f]/, '1'),
    subject: new x509.Name(subject),
    issuer: new x509.Name(options.issuer ?? subject),
    notBefore,
    notAfter,
    signingAlgorithm: algorithm,
    publicKey: keys.publicKey,
    signingKey: keys.privateKey,
  });
  const der = Buffer.from(certificate.rawData);
  return {
    pem: certificate.toString('pem'),
    derBase64: der.toString('base64'),
    der,
    keyPem: pem('PRIVATE KEY', await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)),
    notBefore: certificate.notBefore,
    notAfter: certificate.notAfter,
  };
}
