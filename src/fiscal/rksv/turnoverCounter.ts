import { createCipheriv, createHash } from 'node:crypto';

/** Bytes of the encrypted turnover counter (DESIGN: turnover_counter_size 8, the reference's default). */
export const TURNOVER_COUNTER_SIZE = 8;

/** Field 10 of a Stornobeleg and a Trainingsbeleg instead of the encrypted counter (reference §4). */
export const STORNO_MARKER = 'U1RP';
export const TRAINING_MARKER = 'VFJB';

/** The counter block: the first 16 bytes of SHA-256 over the Kassen-ID followed by the Belegnummer (reference §4). */
export function turnoverCounterIv(cashRegisterId: string, receiptNumber: string): Buffer {
  return createHash('sha256').update(cashRegisterId + receiptNumber, 'utf8').digest().subarray(0, 16);
}

/**
 * Field 10 of a receipt: the running total in cents as a big-endian two's
 * complement of `size` bytes, XORed with the AES-256 keystream (ICM/CTR) of
 * the receipt's counter block, in standard Base64.
 */
export function encryptTurnoverCounter(input: {
  cashRegisterId: string;
  receiptNumber: string;
  counterCents: bigint;
  aesKey: Buffer;
  size?: number;
}): string {
  const size = input.size ?? TURNOVER_COUNTER_SIZE;
  const plaintext = Buffer.alloc(size);
  let value = BigInt.asUintN(size * 8, input.counterCents);
  for (let index = size - 1; index >= 0; index -= 1) {
    plaintext[index] = Number(value & 0xffn);
    value >>= 8n;
  }
  const cipher = createCipheriv('aes-256-ctr', input.aesKey, turnoverCounterIv(input.cashRegisterId, input.receiptNumber));
  return Buffer.concat([cipher.update(plaintext), cipher.final()]).toString('base64');
}
