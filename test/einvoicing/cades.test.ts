// The CAdES-BES signer: openssl verifies the signature and recovers the exact content; the
// signed attributes are those CAdES-BES requires; a tampered file does not verify. The verifier
// (the sandbox SdI's check) accepts what the signer makes and refuses what a receiver refuses.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signCades } from '../../src/einvoicing/cades/signCades.js';
import { signedContentOf } from '../../src/einvoicing/cades/signedContent.js';
import { cadesFault } from '../../src/einvoicing/cades/verifyCades.js';
import { makeCertificate } from '../support/certificates.js';
import { opensslCmsPrint, opensslSignedCms, opensslVerifiedContent } from '../support/opensslCms.js';

const xml = Buffer.from('<?xml version="1.0" encoding="UTF-8"?>\n<p:FatturaElettronica versione="FPR12">è€</p:FatturaElettronica>\n', 'utf8');
const signedAt = new Date('2026-03-04T10:11:12Z');

describe('signCades', () => {
  it('signs attached, SHA-256, with content-type, message-digest, signing-time and signing-certificate-v2', async () => {
    const certificate = await makeCertificate();
    const p7m = await signCades({ certificateDer: certificate.der, privateKeyPem: certificate.keyPem, content: xml, signedAt });

    expect(opensslVerifiedContent(p7m).equals(xml)).toBe(true);
    expect(signedContentOf(p7m).equals(xml)).toBe(true);
    const printed = opensslCmsPrint(p7m);
    expect(printed).toContain('contentType: pkcs7-signedData');
    expect(printed).toMatch(/digestAlgorithm:\s*\n\s*algorithm: sha256/);
    for (const attribute of ['contentType', 'messageDigest', 'signingTime', 'id-smime-aa-signingCertificateV2']) expect(printed).toContain(`object: ${attribute}`);
    // The signing certificate's SHA-256 hash, as ESSCertIDv2 carries it.
    expect(p7m.includes(createHash('sha256').update(certificate.der).digest())).toBe(true);
  });

  it('signs with an RSA key too', async () => {
    const certificate = await makeCertificate({ keyType: 'rsa' });
    const p7m = await signCades({ certificateDer: certificate.der, privateKeyPem: certificate.keyPem, content: xml, signedAt });
    expect(opensslVerifiedContent(p7m).equals(xml)).toBe(true);
  });

  it('a file whose content was altered does not verify', async () => {
    const certificate = await makeCertificate();
    const p7m = await signCades({ certificateDer: certificate.der, privateKeyPem: certificate.keyPem, content: xml, signedAt });
    const tampered = Buffer.from(p7m);
    const at = tampered.indexOf(Buffer.from('FPR12'));
    tampered.write('FPA12', at);
    expect(() => opensslVerifiedContent(tampered)).toThrow();
  });
});

describe('cadesFault', () => {
  const DAY_MS = 24 * 60 * 60 * 1000;
  const signedWith = async (options: Parameters<typeof makeCertificate>[0] = {}) => {
    const certificate = await makeCertificate(options);
    return signCades({ certificateDer: certificate.der, privateKeyPem: certificate.keyPem, content: xml, signedAt });
  };

  it('finds nothing wrong with what signCades makes, ECDSA or RSA, while the certificate is valid', async () => {
    expect(await cadesFault(await signedWith(), new Date())).toBeNull();
    expect(await cadesFault(await signedWith({ keyType: 'rsa' }), new Date())).toBeNull();
  });

  it('refuses altered content, an altered signature, and bytes that are no SignedData', async () => {
    const p7m = await signedWith();
    const alteredContent = Buffer.from(p7m);
    alteredContent.write('FPA12', alteredContent.indexOf(Buffer.from('FPR12')));
    expect(await cadesFault(alteredContent, new Date())).toEqual({ fault: 'signature_invalid', detail: expect.stringContaining('Message digest') });
    const alteredSignature = Buffer.from(p7m);
    alteredSignature[alteredSignature.length - 5] ^= 0x01;
    expect((await cadesFault(alteredSignature, new Date()))?.fault).toBe('signature_invalid');
    expect(await cadesFault(xml, new Date())).toEqual({ fault: 'signature_invalid', detail: 'the file is not a CMS SignedData' });
  });

  it("accepts openssl's CAdES-BES (SHA-256 and SHA-512), and refuses its plain CMS (no signing-certificate-v2), which openssl itself verifies", async () => {
    const certificate = await makeCertificate();
    for (const md of ['sha256', 'sha512']) expect(await cadesFault(opensslSignedCms(xml, certificate.pem, certificate.keyPem, { md, cades: true }), new Date())).toBeNull();
    const plain = opensslSignedCms(xml, certificate.pem, certificate.keyPem);
    expect(opensslVerifiedContent(plain).equals(xml)).toBe(true);
    expect(await cadesFault(plain, new Date())).toEqual({ fault: 'signature_invalid', detail: expect.stringContaining('signing-certificate-v2') });
  });

  it('judges the certificate at the time the file is received: expired, or not yet valid', async () => {
    const certificate = await makeCertificate({ notBefore: new Date(Date.now() - 10 * DAY_MS), notAfter: new Date(Date.now() + DAY_MS) });
    const p7m = await signCades({ certificateDer: certificate.der, privateKeyPem: certificate.keyPem, content: xml, signedAt });
    expect(await cadesFault(p7m, new Date(Date.now() + 2 * DAY_MS))).toEqual({ fault: 'certificate_expired', detail: expect.stringContaining('expired on') });
    expect(await cadesFault(p7m, new Date(Date.now() - 11 * DAY_MS))).toEqual({ fault: 'signature_invalid', detail: expect.stringContaining('valid only from') });
    expect(await cadesFault(p7m, new Date())).toBeNull();
  });
});
