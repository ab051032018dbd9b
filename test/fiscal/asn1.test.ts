import { describe, expect, it } from 'vitest';
import {
  derContextPrimitive,
  derInteger,
  derObjectIdentifier,
  derOctetString,
  derSequence,
  encodeDerLength,
} from '../../src/fiscal/kassensichv/asn1.js';

const hex = (buffer: Buffer) => buffer.toString('hex');

describe('DER helpers', () => {
  it('encodes lengths in short and long form', () => {
    expect(hex(encodeDerLength(0))).toBe('00');
    expect(hex(encodeDerLength(127))).toBe('7f');
    expect(hex(encodeDerLength(128))).toBe('8180');
    expect(hex(encodeDerLength(227))).toBe('81e3');
    expect(hex(encodeDerLength(256))).toBe('820100');
    expect(hex(encodeDerLength(70000))).toBe('83011170');
    expect(() => encodeDerLength(-1)).toThrow(RangeError);
  });

  it('encodes non-negative INTEGERs minimally, with a zero byte before a set high bit', () => {
    expect(hex(derInteger(0))).toBe('020100');
    expect(hex(derInteger(2))).toBe('020102');
    expect(hex(derInteger(127))).toBe('02017f');
    expect(hex(derInteger(128))).toBe('02020080');
    expect(hex(derInteger(255))).toBe('020200ff');
    expect(hex(derInteger(256))).toBe('02020100');
    expect(hex(derInteger(1629729393))).toBe('02046123b271');
    expect(hex(derInteger(Number.MAX_SAFE_INTEGER))).toBe('02071fffffffffffff');
    expect(hex(derInteger(2n ** 64n))).toBe('0209010000000000000000');
    expect(() => derInteger(-1)).toThrow(RangeError);
    expect(() => derInteger(1.5)).toThrow(RangeError);
    expect(() => derInteger(2 ** 53)).toThrow(RangeError);
  });

  it('encodes OIDs from dotted strings, including multi-byte arcs', () => {
    expect(hex(derObjectIdentifier('0.4.0.127.0.7.3.7.1.1'))).toBe('060904007f000703070101');
    expect(hex(derObjectIdentifier('0.4.0.127.0.7.1.1.4.1.3'))).toBe('060a04007f00070101040103');
    expect(hex(derObjectIdentifier('1.2.840.10045.3.1.7'))).toBe('06082a8648ce3d030107');
    expect(hex(derObjectIdentifier('2.999.3'))).toBe('0603883703');
    expect(() => derObjectIdentifier('1.40')).toThrow(TypeError);
    expect(() => derObjectIdentifier('1')).toThrow(TypeError);
  });

  it('encodes OCTET STRING, SEQUENCE and implicit context-tagged primitives', () => {
    expect(hex(derOctetString(Buffer.alloc(0)))).toBe('0400');
    expect(hex(derOctetString(Buffer.alloc(200)))).toBe('0481c8' + '00'.repeat(200));
    expect(hex(derSequence(derInteger(1), derInteger(2)))).toBe('3006020101020102');
    expect(hex(derContextPrimitive(0, Buffer.from('ab')))).toBe('80026162');
    expect(hex(derContextPrimitive(5, Buffer.from([1])))).toBe('850101');
    expect(() => derContextPrimitive(31, Buffer.alloc(0))).toThrow(RangeError);
  });
});
