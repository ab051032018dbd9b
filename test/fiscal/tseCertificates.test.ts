import 'reflect-metadata';
import { createHash, X509Certificate } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { describe, expect, it } from 'vitest';
import { issueTseCertificates } from '../../src/fiscal/kassensichv/tseCertificates.js';
import { generateTseKeyMaterial } from '../../src/fiscal/kassensichv/tseKeys.js';
import { spkiDerFromPoint } from './independentDtbs.js';

describe.each(['ecdsa-plain-SHA256', 'ecdsa-plain-SHA384'] as const)('issueTseCertificates with %s', (algorithm) => {
  it('certifies the TSE key under a root made for it: CN the serial, digitalSignature only, marked as a sandbox TSE', async () => {
    const keys = generateTseKeyMaterial(algorithm);
    const notBefore = new Date('2026-12-04T01:00:00Z');
    const { certificate, rootCertificate } = await issueTseCertificates(keys, notBefore);
    const leaf = new X509Certificate(certificate);
    const root = new X509Certificate(rootCertificate);

    expect(leaf.publicKey.export({ format: 'der', type: 'spki' }).equals(spkiDerFromPoint(keys.publicKey))).toBe(true);
    expect(leaf.subject).toContain(`CN=${keys.serialNumber}`);
    expect(leaf.subject).toContain('OU=Sandbox software TSE - not certified');
    expect(createHash('sha256').update(keys.publicKey).digest('hex')).toBe(keys.serialNumber);
    expect(new Date(leaf.validFrom)).toEqual(notBefore);
    expect(leaf.checkIssued(root) && leaf.verify(root.publicKey)).toBe(true);
    expect(root.checkIssued(root) && root.verify(root.publicKey)).toBe(true);
    expect([leaf.ca, root.ca]).toEqual([false, true]);

    const usages = (pem: string) => new x509.X509Certificate(pem).getExtension(x509.KeyUsagesExtension)!.usages;
    expect(usages(certificate)).toBe(x509.KeyUsageFlags.digitalSignature);
    expect(usages(rootCertificate) & x509.KeyUsageFlags.keyCertSign).toBeTruthy();
    // The signature algorithm follows the curve: SHA-384 with P-384.
    expect(new x509.X509Certificate(certificate).signatureAlgorithm.hash.name).toBe(algorithm === 'ecdsa-plain-SHA256' ? 'SHA-256' : 'SHA-384');
  });
});
