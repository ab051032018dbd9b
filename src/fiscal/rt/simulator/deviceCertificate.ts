import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { DAY_MS } from '../../../domain/dayLength.js';
import type { SecretBox } from '../../../lib/secretBox.js';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

const ALGORITHM = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256', publicExponent: new Uint8Array([1, 0, 1]), modulusLength: 2048 };
const VALID_YEARS = 10;

/** A device's signing identity: its certificate (PEM) and private key (PKCS#8 PEM). */
export interface DeviceKeyPair {
  certificatePem: string;
  privateKeyPem: string;
}

const pem = (label: string, der: ArrayBuffer) =>
  `-----BEGIN ${label}-----\n${Buffer.from(der).toString('base64').replace(/.{64}/g, '$&\n').replace(/\n$/, '')}\n-----END ${label}-----\n`;

/**
 * The simulator's sandbox device certificate: self-signed for its matricola.
 * A real RT's certificate is issued by the Agenzia delle Entrate at activation;
 * the simulator's only has to let its COR10 files be verified (xmlsec1, xml-crypto).
 */
export async function createSandboxDeviceCertificate(serial: string, now: Date): Promise<DeviceKeyPair> {
  const keys = await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify']);
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: Buffer.from(webcrypto.getRandomValues(new Uint8Array(8))).toString('hex').replace(/^[89a-f]/, '1'),
    name: `CN=${serial}, O=Sandbox RT simulator, C=IT`,
    notBefore: now,
    notAfter: new Date(now.getTime() + VALID_YEARS * 365 * DAY_MS),
    signingAlgorithm: ALGORITHM,
    keys,
  });
  return { certificatePem: certificate.toString('pem'), privateKeyPem: pem('PRIVATE KEY', await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)) };
}

/** The columns rt_devices stores it in: the certificate as it is, the private key sealed. */
export const sealDeviceKeyPair = (secrets: SecretBox, pair: DeviceKeyPair) => ({ certificate: pair.certificatePem, sealedPrivateKey: secrets.seal(pair.privateKeyPem) });
