import { sign, type KeyObject } from 'node:crypto';

/** The one protected header suite R1 allows, base64url of `{"alg":"ES256"}` (reference §3.2). */
export const JWS_HEADER = Buffer.from('{"alg":"ES256"}', 'utf8').toString('base64url');

/** The signature segment of a receipt whose signature device failed (reference §6.1). */
export const FAILED_SIGNATURE = Buffer.from('Sicherheitseinrichtung ausgefallen', 'ascii').toString('base64url');

/** `header.payload`, the bytes an ES256 signature covers. */
export function signingInput(payload: string): string {
  return `${JWS_HEADER}.${Buffer.from(payload, 'utf8').toString('base64url')}`;
}

/** ES256 over the signing input, as JWS wants it: raw R‖S (64 bytes), base64url. */
export function es256Signature(input: string, privateKey: KeyObject): string {
  return sign('sha256', Buffer.from(input, 'ascii'), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url');
}

/** The compact JWS as the DEP stores it. */
export const compactJws = (input: string, signature: string): string => `${input}.${signature}`;
