import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import type { SqlClient } from '../../db/sql.js';
import { DAY_MS } from '../../domain/dayLength.js';
import { TSE_SIGNATURE_ALGORITHMS, type TseSignatureAlgorithm } from './tseKeys.js';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

const VALID_YEARS = 10;
const ORGANIZATION = 'O=Fiscalization Service, OU=Sandbox software TSE - not certified, C=DE';

/** A software TSE's certificate chain, both PEM. */
export interface TseCertificates {
  /** Issued for the TSE's own key: subject CN is the serial, key usage digitalSignature only. */
  certificate: string;
  /** Self-signed, keyCertSign: the trust anchor a verifier is given, made for this TSE alone. */
  rootCertificate: string;
}

export interface CertifiedTse {
  /** Uncompressed point 04||X||Y. */
  publicKey: Buffer;
  /** Lowercase hex SHA-256 of publicKey (reference §5). */
  serialNumber: string;
  algorithm: TseSignatureAlgorithm;
}

const positiveSerial = () => Buffer.from(webcrypto.getRandomValues(new Uint8Array(16))).toString('hex').replace(/^[89a-f]/, '1');

/**
 * A sandbox chain for a software TSE (no certification body issues one): a
 * root CA generated on the TSE's curve signs the TSE's certificate, and its
 * private key, never extractable, goes out of scope here, so nothing can issue
 * under that root again. TTC and other TR-03153 verifiers find the certificate
 * by its subject CN and by SHA-256 of its point, both the TSE serial.
 */
export async function issueTseCertificates(tse: CertifiedTse, notBefore: Date): Promise<TseCertificates> {
  const { namedCurve, hash } = TSE_SIGNATURE_ALGORITHMS[tse.algorithm];
  const signingAlgorithm = { name: 'ECDSA', hash: hash === 'sha256' ? 'SHA-256' : 'SHA-384' };
  const notAfter = new Date(notBefore.getTime() + VALID_YEARS * 365 * DAY_MS);
  const rootKeys = await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve }, false, ['sign', 'verify']);
  const root = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: positiveSerial(),
    name: `CN=Sandbox software TSE root CA ${tse.serialNumber.slice(0, 16)}, ${ORGANIZATION}`,
    notBefore,
    notAfter,
    keys: rootKeys,
    signingAlgorithm,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(rootKeys.publicKey),
    ],
  });
  const tseKey = await webcrypto.subtle.importKey('raw', tse.publicKey, { name: 'ECDSA', namedCurve }, true, ['verify']);
  const leaf = await x509.X509CertificateGenerator.create({
    serialNumber: positiveSerial(),
    subject: `CN=${tse.serialNumber}, ${ORGANIZATION}`,
    issuer: root.subject,
    notBefore,
    notAfter,
    publicKey: tseKey,
    signingKey: rootKeys.privateKey,
    signingAlgorithm,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      await x509.SubjectKeyIdentifierExtension.create(tseKey),
      await x509.AuthorityKeyIdentifierExtension.create(rootKeys.publicKey),
    ],
  });
  return { certificate: leaf.toString('pem'), rootCertificate: root.toString('pem') };
}

interface StoredTse {
  serial_number: string;
  public_key: string;
  algorithm: string;
  created_at: Date;
  certificate: string | null;
  root_certificate: string | null;
}

const SELECT_TSE = 'SELECT serial_number, public_key, algorithm, created_at, certificate, root_certificate FROM tse_devices WHERE id = $1';

/** Only the first writer's chain is kept; a concurrent export re-reads it. */
const STORE_CERTIFICATES = 'UPDATE tse_devices SET certificate = $2, root_certificate = $3 WHERE id = $1 AND certificate IS NULL';

/**
 * The software TSE's chain. TSEs provisioned before certificates existed get
 * theirs here, once, valid from the TSE's creation so it covers every log.
 */
export async function tseCertificatesOf(sql: SqlClient, tseId: string): Promise<TseCertificates> {
  const [stored] = await sql.query<StoredTse>(SELECT_TSE, [tseId]);
  if (!stored) throw new Error(`TSE ${tseId} does not exist`);
  if (stored.certificate && stored.root_certificate) return { certificate: stored.certificate, rootCertificate: stored.root_certificate };
  const issued = await issueTseCertificates(
    { publicKey: Buffer.from(stored.public_key, 'base64'), serialNumber: stored.serial_number, algorithm: stored.algorithm as TseSignatureAlgorithm },
    new Date(Math.floor(new Date(stored.created_at).getTime() / 1000) * 1000),
  );
  await sql.query(STORE_CERTIFICATES, [tseId, issued.certificate, issued.rootCertificate]);
  const [kept] = await sql.query<StoredTse>(SELECT_TSE, [tseId]);
  return { certificate: kept.certificate!, rootCertificate: kept.root_certificate! };
}
