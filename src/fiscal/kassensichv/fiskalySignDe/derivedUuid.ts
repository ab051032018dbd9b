import { createHash } from 'node:crypto';

/**
 * A UUID derived from `parts`, not drawn at random: fiskaly's resource ids are
 * the caller's choice, and deriving them lets a repeated attempt reach what an
 * earlier one created. The version nibble says 4, the form fiskaly asks for.
 */
export function derivedUuid(parts: readonly unknown[]): string {
  const bytes = createHash('sha256').update(JSON.stringify(parts)).digest().subarray(0, 16);
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
