import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';

export type TseSignatureAlgorithm = 'ecdsa-plain-SHA256' | 'ecdsa-plain-SHA384';

export interface TseKeyMaterial {
  privateKeyPem: string;
  /** Uncompressed EC point 04||X||Y. */
  publicKey: Buffer;
  /** Lowercase hex SHA-256 over publicKey (reference §5). */
  serialNumber: string;
  algorithm: TseSignatureAlgorithm;
}

interface AlgorithmParameters {
  /** JWK curve name, also accepted by generateKeyPairSync. */
  namedCurve: 'P-256' | 'P-384';
  /** Byte length of one coordinate, and of r and s in the plain signature. */
  coordinateLength: number;
  hash: 'sha256' | 'sha384';
  /** BSI arc 0.4.0.127.0.7.1.1.4.1.x (reference §3.3). */
  oid: string;
}

// Each hash is paired with the curve whose order has the same bit length,
// as the BSI simulator and the certified TSEs in the reference do.
export const TSE_SIGNATURE_ALGORITHMS: Readonly<Record<TseSignatureAlgorithm, AlgorithmParameters>> = {
  'ecdsa-plain-SHA256': { namedCurve: 'P-256', coordinateLength: 32, hash: 'sha256', oid: '0.4.0.127.0.7.1.1.4.1.3' },
  'ecdsa-plain-SHA384': { namedCurve: 'P-384', coordinateLength: 48, hash: 'sha384', oid: '0.4.0.127.0.7.1.1.4.1.4' },
};

export function isTseSignatureAlgorithm(value: string): value is TseSignatureAlgorithm {
  return Object.hasOwn(TSE_SIGNATURE_ALGORITHMS, value);
}

export function generateTseKeyMaterial(algorithm: TseSignatureAlgorithm = 'ecdsa-plain-SHA256'): TseKeyMaterial {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: TSE_SIGNATURE_ALGORITHMS[algorithm].namedCurve });
  const publicKey = uncompressedPointOf(privateKey);
  return {
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKey,
    serialNumber: tseSerialNumber(publicKey),
    algorithm,
  };
}

export function publicKeyFromPrivateKeyPem(pem: string): Buffer {
  return uncompressedPointOf(createPrivateKey(pem));
}

export function tseSerialNumber(publicKey: Buffer): string {
  return createHash('sha256').update(publicKey).digest('hex');
}

/** Node key object for an uncompressed point; the curve follows from the point length. */
export function publicKeyObjectFromPoint(publicKey: Buffer): KeyObject {
  const parameters = Object.values(TSE_SIGNATURE_ALGORITHMS).find(
    ({ coordinateLength }) => publicKey.length === 1 + 2 * coordinateLength,
  );
  if (!parameters || publicKey[0] !== 0x04) {
    throw new TypeError('public key must be an uncompressed P-256 or P-384 point (04||X||Y)');
  }
  const { namedCurve, coordinateLength } = parameters;
  return createPublicKey({
    key: {
      kty: 'EC',
      crv: namedCurve,
      x: publicKey.subarray(1, 1 + coordinateLength).toString('base64url'),
      y: publicKey.subarray(1 + coordinateLength).toString('base64url'),
    },
    format: 'jwk',
  });
}

/** The uncompressed point 04||X||Y of a P-256 or P-384 key (public, or the public half of a private one). */
export function uncompressedPointOf(key: KeyObject): Buffer {
  const jwk = (key.type === 'private' ? createPublicKey(key) : key).export({ format: 'jwk' });
  const parameters = Object.values(TSE_SIGNATURE_ALGORITHMS).find(({ namedCurve }) => namedCurve === jwk.crv);
  if (!parameters || jwk.x === undefined || jwk.y === undefined) {
    throw new TypeError(`unsupported TSE key: curve ${jwk.crv ?? jwk.kty}, expected P-256 or P-384`);
  }
  const x = Buffer.from(jwk.x, 'base64url');
  const y = Buffer.from(jwk.y, 'base64url');
  // JWK coordinates are full length per RFC 7518; checked because the point layout depends on it.
  if (x.length !== parameters.coordinateLength || y.length !== parameters.coordinateLength) {
    throw new TypeError('unexpected EC coordinate length');
  }
  return Buffer.concat([Buffer.from([0x04]), x, y]);
}
