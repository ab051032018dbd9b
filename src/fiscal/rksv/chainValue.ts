import { createHash } from 'node:crypto';

/**
 * Field 12 (Sig-Voriger-Beleg): standard Base64 of the first 8 bytes of
 * SHA-256 over the previous receipt's whole compact JWS, or over the Kassen-ID
 * for the start receipt (reference §5).
 */
export function chainValue(previousJwsOrCashRegisterId: string): string {
  return createHash('sha256').update(previousJwsOrCashRegisterId, 'utf8').digest().subarray(0, 8).toString('base64');
}
