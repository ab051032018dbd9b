import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  generateTseKeyMaterial,
  publicKeyFromPrivateKeyPem,
  publicKeyObjectFromPoint,
  tseSerialNumber,
} from '../../src/fiscal/kassensichv/tseKeys.js';

describe.each([
  { algorithm: 'ecdsa-plain-SHA256' as const, curve: 'prime256v1', pointLength: 65 },
  { algorithm: 'ecdsa-plain-SHA384' as const, curve: 'secp384r1', pointLength: 97 },
])('generateTseKeyMaterial($algorithm)', ({ algorithm, curve, pointLength }) => {
  const key = generateTseKeyMaterial(algorithm);

  it('uses the curve that matches the hash and exposes the uncompressed point', () => {
    expect(key.algorithm).toBe(algorithm);
    expect(createPrivateKey(key.privateKeyPem).asymmetricKeyDetails?.namedCurve).toBe(curve);
    expect(key.publicKey).toHaveLength(pointLength);
    expect(key.publicKey[0]).toBe(0x04);
    expect(publicKeyFromPrivateKeyPem(key.privateKeyPem).equals(key.publicKey)).toBe(true);
  });

  it('derives the serial as SHA-256 over the point, which is the tail of the SPKI (reference §5)', () => {
    const spki = createPublicKey(key.privateKeyPem).export({ format: 'der', type: 'spki' });
    const point = spki.subarray(-pointLength);
    expect(point.equals(key.publicKey)).toBe(true);
    expect(key.serialNumber).toBe(createHash('sha256').update(point).digest('hex'));
    expect(key.serialNumber).toBe(tseSerialNumber(key.publicKey));
    expect(key.serialNumber).not.toBe(createHash('sha256').update(spki).digest('hex'));
  });

  it('turns the point back into the same public key', () => {
    const spki = createPublicKey(key.privateKeyPem).export({ format: 'der', type: 'spki' });
    expect(publicKeyObjectFromPoint(key.publicKey).export({ format: 'der', type: 'spki' }).equals(spki)).toBe(true);
  });
});

describe('tseKeys input checks', () => {
  it('defaults to P-256 with ecdsa-plain-SHA256', () => {
    expect(generateTseKeyMaterial().algorithm).toBe('ecdsa-plain-SHA256');
  });

  it('rejects keys and points it cannot use', () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'secp256k1' });
    const secp256k1Pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    expect(() => publicKeyFromPrivateKeyPem(secp256k1Pem)).toThrow(/unsupported TSE key/);

    const point = generateTseKeyMaterial().publicKey;
    const compressed = Buffer.concat([Buffer.from([0x02 + (point[64] & 1)]), point.subarray(1, 33)]);
    expect(() => publicKeyObjectFromPoint(compressed)).toThrow(/uncompressed/);
    expect(() => publicKeyObjectFromPoint(Buffer.concat([Buffer.from([0x05]), point.subarray(1)]))).toThrow(
      /uncompressed/,
    );
  });
});
