import { createHash } from 'node:crypto';

/**
 * The check value FinanzOnline asks for with a manually entered AES key: the
 * first 3 bytes of SHA-256 over the key's Base64 text, in Base64 without
 * padding (reference §4).
 */
export function aesKeyCheckValue(base64AesKey: string): string {
  return createHash('sha256').update(base64AesKey, 'ascii').digest().subarray(0, 3).toString('base64').replace(/=+$/, '');
}
