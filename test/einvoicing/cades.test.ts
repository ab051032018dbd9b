// The CAdES-BES signer: openssl verifies the signature and recovers the exact content; the
// signed attributes are those CAdES-BES requires; a tampered file does not verify.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signCades } from '../../src/einvoicing/cades/signCades.js';
import { signedContentOf } from '../../src/einvoicing/cades/signedContent.js';
import { makeCertificate } from '../support/certificates.js';
import { opensslCmsPrint, opensslVerifiedContent } from '../support/opensslCms.js';

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
