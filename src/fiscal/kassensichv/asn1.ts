// Minimal DER encoders for the TR-03151 log message: only what a transaction
// log needs, always definite-length DER (never BER).

const DER_TAG = {
  integer: 0x02,
  octetString: 0x04,
  objectIdentifier: 0x06,
  sequence: 0x30,
} as const;

export function encodeDerLength(length: number): Buffer {
  if (!Number.isSafeInteger(length) || length < 0) {
    throw new RangeError(`invalid DER length ${length}`);
  }
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) {
    bytes.unshift(rest % 256);
  }
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

export function derTlv(tag: number, content: Buffer): Buffer {
  return Buffer.concat([Buffer.from([tag]), encodeDerLength(content.length), content]);
}

/** Minimal two's-complement content of a non-negative integer. */
export function derIntegerContent(value: number | bigint): Buffer {
  if (typeof value === 'number' && !Number.isSafeInteger(value)) {
    throw new RangeError(`INTEGER value ${value} is not a safe integer`);
  }
  const big = BigInt(value);
  if (big < 0n) throw new RangeError(`INTEGER value ${value} is negative`);
  let hex = big.toString(16);
  if (hex.length % 2 === 1) hex = `0${hex}`;
  const magnitude = Buffer.from(hex, 'hex');
  // A set high bit would read as negative, so DER prepends one zero byte.
  return magnitude[0] & 0x80 ? Buffer.concat([Buffer.from([0]), magnitude]) : magnitude;
}

export function derInteger(value: number | bigint): Buffer {
  return derTlv(DER_TAG.integer, derIntegerContent(value));
}

export function derOctetString(content: Buffer): Buffer {
  return derTlv(DER_TAG.octetString, content);
}

export function derSequence(...elements: Buffer[]): Buffer {
  return derTlv(DER_TAG.sequence, Buffer.concat(elements));
}

export function derObjectIdentifier(dotted: string): Buffer {
  if (!/^\d+(\.\d+)+$/.test(dotted)) throw new TypeError(`invalid OID ${dotted}`);
  const arcs = dotted.split('.').map((arc) => BigInt(arc));
  const [first, second, ...rest] = arcs;
  if (first > 2n || (first < 2n && second > 39n)) throw new TypeError(`invalid OID ${dotted}`);
  const subidentifiers = [first * 40n + second, ...rest];
  return derTlv(DER_TAG.objectIdentifier, Buffer.concat(subidentifiers.map(encodeBase128)));
}

/** Base-128, most significant group first, continuation bit on all but the last byte. */
function encodeBase128(value: bigint): Buffer {
  const bytes = [Number(value & 0x7fn)];
  for (let rest = value >> 7n; rest > 0n; rest >>= 7n) {
    bytes.unshift(Number(rest & 0x7fn) | 0x80);
  }
  return Buffer.from(bytes);
}

/**
 * IMPLICIT [tagNumber] of a primitive type: the context tag replaces the
 * universal one, so the content bytes stay exactly those of the underlying type.
 */
export function derContextPrimitive(tagNumber: number, content: Buffer): Buffer {
  if (!Number.isInteger(tagNumber) || tagNumber < 0 || tagNumber > 30) {
    throw new RangeError(`context tag number ${tagNumber} needs the low-tag form (0..30)`);
  }
  return derTlv(0x80 | tagNumber, content);
}
