const WIDTH = 5;
const RADIX = 36;

/** The largest sequence five base-36 digits hold: 36^5 - 1 = 60,466,175 files per transmitter. */
export const MAX_TRANSMISSION_SEQUENCE = RADIX ** WIDTH - 1;

/**
 * The file name's progressivo (and ProgressivoInvio) for the organization's transmission
 * sequence: at most five characters of [A-Za-z0-9], unique per transmitter (reference §9.3).
 * Base 36, upper case, zero-padded: 1 -> 00001, 36 -> 00010, 46655 -> 00ZZZ. The padding keeps
 * every name the same length, so file names sort in sending order.
 */
export function progressivoOf(transmissionSequence: number): string {
  if (!Number.isSafeInteger(transmissionSequence) || transmissionSequence < 1 || transmissionSequence > MAX_TRANSMISSION_SEQUENCE) {
    throw new RangeError(`transmission sequence ${transmissionSequence} is outside 1 ... ${MAX_TRANSMISSION_SEQUENCE}`);
  }
  return transmissionSequence.toString(RADIX).toUpperCase().padStart(WIDTH, '0');
}
