// Test-only rebuild of the TR-03151 DTBS and key encodings, written from the
// reference without importing the production encoders, so a shared mistake
// cannot make both sides agree. Every test that checks a TSE signature checks it here.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash, createPublicKey, verify } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const TRANSACTION_LOG_OID_TLV = '060904007f000703070101';
const ALGORITHM_OID_TLV: Record<string, string> = {
  'ecdsa-plain-SHA256': '060a04007f00070101040103',
  'ecdsa-plain-SHA384': '060a04007f00070101040104',
};
const HASH_OF_ALGORITHM: Record<string, string> = {
  'ecdsa-plain-SHA256': 'sha256',
  'ecdsa-plain-SHA384': 'sha384',
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

/** A plain r||s ECDSA signature (BSI TR-03111) over `data`, checked with the TSE's raw public key point. */
export function verifiesPlainSignature(data: Buffer, signature: Buffer, publicKey: Buffer, algorithm: string): boolean {
  const hash = HASH_OF_ALGORITHM[algorithm];
  if (!hash) throw new Error(`no hash known for signature algorithm ${algorithm}`);
  const key = createPublicKey({ key: spkiDerFromPoint(publicKey), format: 'der', type: 'spki' });
  return verify(hash, data, { key, dsaEncoding: 'ieee-p1363' }, signature);
}

/**
 * The same check by the openssl CLI (reference §10.2): r||s to X9.62 DER with
 * `asn1parse -genconf`, then `dgst -verify`. False only when openssl reports a
 * verification failure; any other openssl error throws.
 */
export function opensslVerifies(data: Buffer, signature: Buffer, publicKey: Buffer, algorithm: string): boolean {
  const hash = HASH_OF_ALGORITHM[algorithm];
  if (!hash) throw new Error(`no hash known for signature algorithm ${algorithm}`);
  const dir = mkdtempSync(join(tmpdir(), 'tse-openssl-'));
  try {
    const half = signature.length / 2;
    const r = signature.subarray(0, half).toString('hex');
    const s = signature.subarray(half).toString('hex');
    writeFileSync(join(dir, 'sig.cnf'), `asn1=SEQUENCE:s\n[s]\nr=INTEGER:0x${r}\ns=INTEGER:0x${s}\n`);
    execFileSync('openssl', ['asn1parse', '-genconf', 'sig.cnf', '-out', 'sig.der', '-noout'], { cwd: dir, stdio: 'ignore' });
    writeFileSync(join(dir, 'pub.pem'), spkiPemFromPoint(publicKey));
    writeFileSync(join(dir, 'data.bin'), data);
    const result = spawnSync('openssl', ['dgst', `-${hash}`, '-verify', 'pub.pem', '-signature', 'sig.der', 'data.bin'], { cwd: dir, encoding: 'utf8' });
    if (result.error) throw result.error;
    const output = result.stdout + result.stderr;
    if (result.status === 0 && result.stdout.trim() === 'Verified OK') return true;
    if (result.status !== 0 && output.includes('Verification failure')) return false;
    throw new Error(`openssl dgst -verify neither verified nor refused the signature (status ${result.status}):\n${output}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Reference §10.3, from the receipt QR string alone: split on ';' (processData is
 * whatever lies between field 3 and the last 8 fields), rebuild the Finish DTBS
 * and check field 11 against field 12.
 */
export function verifiesQrData(qr: string): boolean {
  const parts = qr.split(';');
  const [, clientId, processType] = parts;
  const processData = parts.slice(3, -8).join(';');
  const [transactionNumber, signatureCounter, , logTime, algorithm, timeFormat, signature, publicKey] = parts.slice(-8);
  if (timeFormat !== 'unixTime') throw new Error(`only unixTime QR codes are rebuilt, not ${timeFormat}`);
  const point = Buffer.from(publicKey, 'base64');
  const dtbs = rebuildDtbs({
    operationType: 'FinishTransaction',
    clientId,
    processData,
    processType,
    transactionNumber: Number(transactionNumber),
    publicKey: point,
    algorithm,
    signatureCounter: Number(signatureCounter),
    logTimeSeconds: Math.floor(Date.parse(logTime) / 1000),
  });
  return verifiesPlainSignature(dtbs, Buffer.from(signature, 'base64'), point, algorithm);
}

/** One signed event as the API publishes it (contract 2.2 end_event, 2.8 start_event and end_event). */
export interface PublishedEvent {
  signed_at: string;
  transaction_counter: number;
  signature_counter: number;
  signature: string;
  process_type: string;
  process_data: string;
}

/** What the event's surroundings say about who signed it and how. */
export interface EventSigner {
  operationType: 'StartTransaction' | 'FinishTransaction';
  clientId: string;
  algorithm: string;
  /** The uncompressed point, base64, as the end event publishes it. */
  publicKey: string;
}

/** A TSE's unixTime is whole seconds, so a published time with milliseconds cannot be the signed one (reference §8). */
function unixSecondsOf(signedAt: string): number {
  const milliseconds = Date.parse(signedAt);
  if (!Number.isInteger(milliseconds / 1000)) throw new Error(`signed_at ${signedAt} is not a whole second`);
  return milliseconds / 1000;
}

/** The DTBS a published event's signature covers. */
export function eventDtbs(event: PublishedEvent, signer: EventSigner): Buffer {
  return rebuildDtbs({
    operationType: signer.operationType,
    clientId: signer.clientId,
    processData: event.process_data,
    processType: event.process_type,
    transactionNumber: event.transaction_counter,
    publicKey: Buffer.from(signer.publicKey, 'base64'),
    algorithm: signer.algorithm,
    signatureCounter: event.signature_counter,
    logTimeSeconds: unixSecondsOf(event.signed_at),
  });
}

/** Rebuilds the log message of a published event and checks its signature. */
export function verifiesEvent(event: PublishedEvent, signer: EventSigner): boolean {
  return verifiesPlainSignature(eventDtbs(event, signer), Buffer.from(event.signature, 'base64'), Buffer.from(signer.publicKey, 'base64'), signer.algorithm);
}

/** Style M's fiscal_information (contract 2.2); its end_event is the Finish of the published key. */
export interface FiscalInformation {
  pos_client_serial_number: string;
  signature_algorithm: string;
  end_event: PublishedEvent & { public_key: string };
}

export function finishSignerOf(fiscal: FiscalInformation): EventSigner {
  return {
    operationType: 'FinishTransaction',
    clientId: fiscal.pos_client_serial_number,
    algorithm: fiscal.signature_algorithm,
    publicKey: fiscal.end_event.public_key,
  };
}

/** The Finish signature of a Style M fiscal_information's end_event. */
export function verifiesFiscalInformation(fiscal: FiscalInformation): boolean {
  return verifiesEvent(fiscal.end_event, finishSignerOf(fiscal));
}

/** One event of Style O's fiscal block (contract 2.8), checked with the key its end_event publishes. */
export function verifiesFiscalEvent(
  fiscal: { client_id: string; signature_algorithm: string; start_event: PublishedEvent; end_event: PublishedEvent & { public_key: string } },
  which: 'start_event' | 'end_event',
): boolean {
  return verifiesEvent(fiscal[which], {
    operationType: which === 'start_event' ? 'StartTransaction' : 'FinishTransaction',
    clientId: fiscal.client_id,
    algorithm: fiscal.signature_algorithm,
    publicKey: fiscal.end_event.public_key,
  });
}
