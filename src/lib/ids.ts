import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

// Random bytes are drawn from the CSPRNG in blocks and handed out once each:
// one call per block instead of one per id (the way crypto.randomUUID batches).
const POOL_SIZE = 4096;
let pool = randomBytes(POOL_SIZE);
let offset = 0;

function randomByte(): number {
  if (offset === POOL_SIZE) {
    pool = randomBytes(POOL_SIZE);
    offset = 0;
  }
  return pool[offset++];
}

/** Random base62 text with rejection sampling, so every character is uniform. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    if (byte < 248) out += ALPHABET[byte % 62];
  }
  return out;
}

export type IdPrefix =
  | 'ten' | 'key' | 'mer' | 'loc' | 'reg' | 'tse' | 'ttx' | 'ses' | 'op' | 'rcp' | 'exp'
  | 'li' | 'tax' | 'dis' | 'pay' | 'rkv' | 'rkb' | 'rtv' | 'rtd' | 'dcl' | 'rtx' | 'evt' | 'we' | 'inv' | 'itx'
  | 'fcert' | 'fpc' | 'fos' | 'ichc';

/** Resource ids carry a type prefix (Stripe style) and 20 random base62 characters (~119 bits). */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase62(20)}`;
}
