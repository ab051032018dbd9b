// Test-only rebuild of the TR-03151 DTBS and key encodings, written from the
// reference without importing the production encoders, so a shared mistake
// cannot make both sides agree.
import { createHash } from 'node:crypto';

const TRANSACTION_LOG_OID_TLV = '060904007f000703070101';
const ALGORITHM_OID_TLV: Record<string, string> = {
  'ecdsa-plain-SHA256': '060a04007f00070101040103',
  'ecdsa-plain-SHA384': '060a04007f00070101040104',
};
// SubjectPublicKeyInfo header up to the BIT STRING's unused-bits byte (RFC 5480).
const SPKI_PREFIX_BY_POINT_LENGTH: Record<number, string> = {
  65: '3059301306072a8648ce3d020106082a8648ce3d030107034200',
  97: '3076301006072a8648ce3d020106052b81040022036200',
};

export function tlv(tag: number, value: Buffer): Buffer {
  const n = value.length;
  let length: Buffer;
  if (n < 128) length = Buffer.from([n]);
  else if (n < 256) length = Buffer.from([0x81, n]);
  else if (n < 65536) length = Buffer.from([0x82, n >> 8, n & 0xff]);
  else throw new Error('test helper supports lengths below 65536');
  return Buffer.concat([Buffer.from([tag]), length, value]);
}

export function integerValue(n: number): Buffer {
  let hex = n.toString(16);
  if (hex.length % 2) hex = '0' + hex;
  if (parseInt(hex.slice(0, 2), 16) >= 0x80) hex = '00' + hex;
  return Buffer.from(hex, 'hex');
}

export interface DtbsInput {
  operationType: string;
  clientId: string;
  processData: string;
  processType: string;
  transactionNumber: number;
  publicKey: Buffer;
  algorithm: string;
  signatureCounter: number;
  logTimeSeconds: number;
}

export function rebuildDtbs(input: DtbsInput): Buffer {
  return Buffer.concat([
    Buffer.from('020102', 'hex'),
    Buffer.from(TRANSACTION_LOG_OID_TLV, 'hex'),
    tlv(0x80, Buffer.from(input.operationType, 'latin1')),
    tlv(0x81, Buffer.from(input.clientId, 'latin1')),
    tlv(0x82, Buffer.from(input.processData, 'utf8')),
    tlv(0x83, Buffer.from(input.processType, 'latin1')),
    tlv(0x85, integerValue(input.transactionNumber)),
    tlv(0x04, createHash('sha256').update(input.publicKey).digest()),
    tlv(0x30, Buffer.from(ALGORITHM_OID_TLV[input.algorithm], 'hex')),
    tlv(0x02, integerValue(input.signatureCounter)),
    tlv(0x02, integerValue(input.logTimeSeconds)),
  ]);
}

export function spkiDerFromPoint(point: Buffer): Buffer {
  return Buffer.concat([Buffer.from(SPKI_PREFIX_BY_POINT_LENGTH[point.length], 'hex'), point]);
}

export function spkiPemFromPoint(point: Buffer): string {
  const base64 = spkiDerFromPoint(point).toString('base64');
  return `-----BEGIN PUBLIC KEY-----\n${base64.match(/.{1,64}/g)!.join('\n')}\n-----END PUBLIC KEY-----\n`;
}
