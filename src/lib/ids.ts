import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** Random base62 text with rejection sampling, so every character is uniform. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

export type IdPrefix =
  | 'ten' | 'key' | 'mer' | 'loc' | 'reg' | 'tse' | 'ttx' | 'ses' | 'op' | 'rcp' | 'idk' | 'exp'
  | 'li' | 'tax' | 'dis' | 'pay';

/** Resource ids carry a type prefix (Stripe style) and 20 random base62 characters (~119 bits). */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase62(20)}`;
}
