// Test-only, third-party style verifier of RKSV receipts and DEP7 exports (Austria),
// written from reference/rksv.md and node:crypto alone. It shares no code with
// src/fiscal/rksv, so a mistake in the signer cannot make both sides agree. The
// checks follow what the reference reports of the BMF verifier and ztp-at/RKSV.
//
// Exports:
// - decodeCompactJws(jws): header, payload, its 13 '_' segments and named fields,
//   signature bytes, signing input; throws on padding, a header other than
//   {"alg":"ES256"}, a wrong field count or a payload not starting with '_'.
// - receiptFieldErrors(fields, system?): format problems of the 12 payload fields, for a closed
//   system (R1-AT0, field 11 an Ordnungsbegriff) or an open one (R1-<ZDA>, field 11 the serial of
//   the signing certificate, hex or decimal).
// - qrFromJws, jwsFromQr, ocrFromJws: the printed representations of §3.3.
// - turnoverCounterIv, counterPlaintext, encryptTurnoverCounter (for building
//   test receipts), decryptTurnoverCounter: the counter of §4, in cents as bigint.
// - chainValue(previousJwsOrKassenId), aesKeyCheckValue(base64Key).
// - verifyDep(depExport, cryptographicMaterialContainer, options?): every check
//   of §5-§7 over a whole export, one readable error string per violation. A container
//   whose device is a CERTIFICATE makes the export an open system: its receipts are
//   checked against the certificate's key and serial, and so is the group's
//   Signaturzertifikat when it has one.
// - verifyReceiptQr(qr, publicKeyBase64Spki, aesKeyBase64, expectedCounterCents?, system?).
// - JWS_HEADER_SEGMENT, SIGNATURE_FAILED_BYTES, STORNO_MARKER, TRAINING_MARKER:
//   the fixed values of §3.2, §6.1 and §4.
//
// Collective receipt after a device failure (§6.2): consecutive failed receipts
// form one outage; the first signed receipt after it may be any receipt, but if
// it is not a signed null receipt, the receipt after it must be one (ztp rule).
// After a wrong counter the check goes on from the decrypted value, so one slip
// is one error. A U: Ordnungsbegriff must be an Austrian UID (ATU + 8 digits).
import { createCipheriv, createHash, createPublicKey, verify, X509Certificate, type KeyObject } from 'node:crypto';

const JWS_HEADER = '{"alg":"ES256"}';
export const JWS_HEADER_SEGMENT = Buffer.from(JWS_HEADER, 'utf8').toString('base64url');
export const SIGNATURE_FAILED_BYTES = Buffer.from('Sicherheitseinrichtung ausgefallen', 'ascii');
export const STORNO_MARKER = Buffer.from('STO', 'ascii').toString('base64');
export const TRAINING_MARKER = Buffer.from('TRA', 'ascii').toString('base64');
const CLOSED_SYSTEM_SUITE = 'R1-AT0';

const PAYLOAD_SEGMENTS = 13;
const QR_SEGMENTS = 14;
const MIN_COUNTER_BYTES = 5;
const MAX_COUNTER_BYTES = 16;
const CHAIN_BYTES = 8;
const SUITE_PATTERN = /^R[1-9]\d*-([A-Z][A-Z][1-9]\d*|AT0)$/;
const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})$/;
const AMOUNT_PATTERN = /^-?([1-9]\d+|\d),\d\d$/;
const KEY_ID_PATTERN = /^(S:\d{9}|U:ATU\d{8}|G:\d{13})(-[A-Za-z0-9]+)?$/;
const CERTIFICATE_SERIAL_PATTERN = /^[0-9A-Fa-f]+$/;
const BASE64_PATTERN = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const BASE64URL_PATTERN = /^[A-Za-z0-9_-]*$/;
const BASE32_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

export interface ReceiptFields {
  suite: string;
  cashRegisterId: string;
  receiptNumber: string;
  date: string;
  /** Normal (20 %), Ermaessigt-1 (10 %), Ermaessigt-2 (13 %), Null (0 %), Besonders (19 %). */
  amounts: string[];
  turnoverCounter: string;
  keyId: string;
  chainValue: string;
}

export interface DecodedJws {
  header: string;
  payload: string;
  /** The payload split on '_': 13 segments, the first one empty. */
  segments: string[];
  fields: ReceiptFields;
  signature: Buffer;
  signatureFailed: boolean;
  signingInput: string;
}

export type ReceiptKind = 'start' | 'standard' | 'null' | 'storno' | 'training';

export interface VerifiedReceipt {
  receiptNumber: string;
  date: string;
  amountsCents: bigint[];
  /** The decrypted counter, null when field 10 holds the STO or TRA marker. */
  counterCents: bigint | null;
  signatureFailed: boolean;
  kind: ReceiptKind;
  jws: string;
}

export interface DepVerification {
  receipts: VerifiedReceipt[];
  errors: string[];
}

export interface DepVerifyOptions {
  /** The counter size N the register is configured with; every counter must have it. */
  counterBytes?: number;
  /** For an export that starts after the Startbeleg: the receipt before it and the counter after that receipt. */
  continuesFrom?: { jws: string; counterCents: bigint };
}

export interface ReceiptQrVerification {
  jws: string;
  fields: ReceiptFields | null;
  signatureFailed: boolean;
  counterCents: bigint | null;
  errors: string[];
}

function decodeBase64Url(segment: string, what: string): Buffer {
  if (segment.includes('=')) throw new Error(`${what} segment carries base64 padding '='`);
  if (!BASE64URL_PATTERN.test(segment)) throw new Error(`${what} segment is not base64url`);
  const bytes = Buffer.from(segment, 'base64url');
  if (bytes.toString('base64url') !== segment) throw new Error(`${what} segment is not canonical base64url`);
  return bytes;
}

function decodeBase64(text: string, what: string): Buffer {
  if (!BASE64_PATTERN.test(text)) throw new Error(`${what} is not padded standard base64: ${JSON.stringify(text)}`);
  const bytes = Buffer.from(text, 'base64');
  if (bytes.toString('base64') !== text) throw new Error(`${what} is not canonical base64: ${JSON.stringify(text)}`);
  return bytes;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function decodeCompactJws(jws: string): DecodedJws {
  const parts = jws.split('.');
  if (parts.length !== 3) throw new Error(`a compact JWS has 3 '.'-separated segments, not ${parts.length}`);
  const [headerSegment, payloadSegment, signatureSegment] = parts;
  const header = STRICT_UTF8.decode(decodeBase64Url(headerSegment, 'header'));
  if (header !== JWS_HEADER) throw new Error(`header must be exactly ${JWS_HEADER}, not ${header}`);
  let payload: string;
  try {
    payload = STRICT_UTF8.decode(decodeBase64Url(payloadSegment, 'payload'));
  } catch (error) {
    throw new Error(`payload: ${errorMessage(error)}`);
  }
  if (!payload.startsWith('_')) throw new Error(`payload does not start with '_'`);
  const segments = payload.split('_');
  if (segments.length !== PAYLOAD_SEGMENTS) {
    throw new Error(`payload has ${segments.length - 1} fields, not ${PAYLOAD_SEGMENTS - 1}`);
  }
  const signature = decodeBase64Url(signatureSegment, 'signature');
  const signatureFailed = signature.equals(SIGNATURE_FAILED_BYTES);
  if (!signatureFailed && signature.length !== 64) {
    throw new Error(`signature is ${signature.length} bytes, neither a raw 64-byte R||S nor the failure marker`);
  }
  const [, suite, cashRegisterId, receiptNumber, date, a1, a2, a3, a4, a5, turnoverCounter, keyId, chain] = segments;
  return {
    header,
    payload,
    segments,
    fields: {
      suite,
      cashRegisterId,
      receiptNumber,
      date,
      amounts: [a1, a2, a3, a4, a5],
      turnoverCounter,
      keyId,
      chainValue: chain,
    },
    signature,
    signatureFailed,
    signingInput: `${headerSegment}.${payloadSegment}`,
  };
}

function isValidDate(date: string): boolean {
  const match = DATE_PATTERN.exec(date);
  if (!match) return false;
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number);
  const time = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  return (
    time.getUTCFullYear() === year &&
    time.getUTCMonth() === month - 1 &&
    time.getUTCDate() === day &&
    time.getUTCHours() === hour &&
    time.getUTCMinutes() === minute &&
    time.getUTCSeconds() === second
  );
}

function isCounterMarker(turnoverCounter: string): boolean {
  return turnoverCounter === STORNO_MARKER || turnoverCounter === TRAINING_MARKER;
}

function encryptedCounterError(turnoverCounter: string): string | null {
  try {
    const size = decodeBase64(turnoverCounter, 'turnover counter').length;
    if (size < MIN_COUNTER_BYTES || size > MAX_COUNTER_BYTES) {
      return `turnover counter is ${size} bytes, outside ${MIN_COUNTER_BYTES}-${MAX_COUNTER_BYTES}`;
    }
    return null;
  } catch (error) {
    return errorMessage(error);
  }
}

/** A closed system (R1-AT0, public keys) or an open one (a ZDA's certificate). */
export type SignatureSystem = 'closed' | 'open';

/** Format problems of the payload fields of a receipt of a closed (R1-AT0) or open system. */
export function receiptFieldErrors(fields: ReceiptFields, system: SignatureSystem = 'closed'): string[] {
  const errors: string[] = [];
  if (!SUITE_PATTERN.test(fields.suite)) errors.push(`suite ${JSON.stringify(fields.suite)} is malformed`);
  else if (system === 'closed' && fields.suite !== CLOSED_SYSTEM_SUITE) errors.push(`suite ${fields.suite} is not the closed system ${CLOSED_SYSTEM_SUITE}`);
  else if (system === 'open' && fields.suite === CLOSED_SYSTEM_SUITE) errors.push(`suite ${fields.suite} is the closed system's, but the device is a certificate`);
  if (fields.cashRegisterId === '') errors.push('Kassen-ID is empty');
  if (fields.receiptNumber === '') errors.push('receipt number is empty');
  if (!isValidDate(fields.date)) errors.push(`date ${JSON.stringify(fields.date)} is not a valid yyyy-MM-ddTHH:mm:ss`);
  fields.amounts.forEach((amount, i) => {
    if (!AMOUNT_PATTERN.test(amount)) errors.push(`amount ${i + 1} ${JSON.stringify(amount)} is malformed`);
  });
  if (!isCounterMarker(fields.turnoverCounter)) {
    const counterError = encryptedCounterError(fields.turnoverCounter);
    if (counterError !== null) errors.push(counterError);
  }
  if (system === 'closed' && !KEY_ID_PATTERN.test(fields.keyId)) {
    errors.push(`field 11 ${JSON.stringify(fields.keyId)} is not an Ordnungsbegriff (S:, U:, G:) with an optional key id`);
  }
  if (system === 'open' && !CERTIFICATE_SERIAL_PATTERN.test(fields.keyId)) {
    errors.push(`field 11 ${JSON.stringify(fields.keyId)} is not a certificate serial (hex or decimal)`);
  }
  try {
    const size = decodeBase64(fields.chainValue, 'chain value').length;
    if (size !== CHAIN_BYTES) errors.push(`chain value is ${size} bytes, not ${CHAIN_BYTES}`);
  } catch (error) {
    errors.push(errorMessage(error));
  }
  return errors;
}

/** Payload, '_', and the signature in padded standard base64 (14 segments, the first empty). */
export function qrFromJws(jws: string): string {
  const decoded = decodeCompactJws(jws);
  return `${decoded.payload}_${decoded.signature.toString('base64')}`;
}

export function jwsFromQr(qr: string): string {
  const segments = qr.split('_');
  if (segments.length !== QR_SEGMENTS || segments[0] !== '') {
    throw new Error(`a QR code has ${QR_SEGMENTS} '_'-separated segments, the first empty`);
  }
  const payload = segments.slice(0, PAYLOAD_SEGMENTS).join('_');
  const signature = decodeBase64(segments[PAYLOAD_SEGMENTS], 'QR signature');
  return [JWS_HEADER_SEGMENT, Buffer.from(payload, 'utf8').toString('base64url'), signature.toString('base64url')].join('.');
}

function base32(bytes: Buffer): string {
  let out = '';
  let value = 0;
  let bits = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32_ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
  }
  if (bits > 0) out += BASE32_ALPHABET[(value << (5 - bits)) & 31];
  while (out.length % 8 !== 0) out += '=';
  return out;
}

/** The QR code with the counter (10), chain value (12) and signature (13) in padded base32. */
export function ocrFromJws(jws: string): string {
  const segments = qrFromJws(jws).split('_');
  for (const index of [10, 12, 13]) segments[index] = base32(decodeBase64(segments[index], `QR field ${index}`));
  return segments.join('_');
}

export function chainValue(previousJwsOrKassenId: string): string {
  return createHash('sha256').update(previousJwsOrKassenId, 'utf8').digest().subarray(0, CHAIN_BYTES).toString('base64');
}

export function aesKeyCheckValue(base64Key: string): string {
  return createHash('sha256').update(base64Key, 'ascii').digest().subarray(0, 3).toString('base64').replace(/=+$/, '');
}

export function turnoverCounterIv(cashRegisterId: string, receiptNumber: string): Buffer {
  return createHash('sha256').update(cashRegisterId + receiptNumber, 'utf8').digest().subarray(0, 16);
}

/** Big-endian two's complement in `sizeBytes` bytes. */
export function counterPlaintext(counterCents: bigint, sizeBytes: number): Buffer {
  const bits = BigInt(sizeBytes * 8);
  const limit = 1n << (bits - 1n);
  if (counterCents < -limit || counterCents >= limit) throw new Error(`counter ${counterCents} does not fit in ${sizeBytes} bytes`);
  return Buffer.from(BigInt.asUintN(Number(bits), counterCents).toString(16).padStart(sizeBytes * 2, '0'), 'hex');
}

function aesCtr(aesKeyBase64: string, iv: Buffer, data: Buffer): Buffer {
  const key = decodeBase64(aesKeyBase64, 'AES key');
  if (key.length !== 32) throw new Error(`AES key is ${key.length} bytes, not 32`);
  const cipher = createCipheriv('aes-256-ctr', key, iv);
  return Buffer.concat([cipher.update(data), cipher.final()]);
}

export function encryptTurnoverCounter(input: {
  cashRegisterId: string;
  receiptNumber: string;
  counterCents: bigint;
  aesKeyBase64: string;
  sizeBytes: number;
}): string {
  const iv = turnoverCounterIv(input.cashRegisterId, input.receiptNumber);
  return aesCtr(input.aesKeyBase64, iv, counterPlaintext(input.counterCents, input.sizeBytes)).toString('base64');
}

export function decryptTurnoverCounter(input: {
  cashRegisterId: string;
  receiptNumber: string;
  encryptedBase64: string;
  aesKeyBase64: string;
}): bigint {
  const ciphertext = decodeBase64(input.encryptedBase64, 'turnover counter');
  if (ciphertext.length === 0) throw new Error('turnover counter is empty');
  const plaintext = aesCtr(input.aesKeyBase64, turnoverCounterIv(input.cashRegisterId, input.receiptNumber), ciphertext);
  return BigInt.asIntN(plaintext.length * 8, BigInt(`0x${plaintext.toString('hex')}`));
}

function amountCents(amount: string): bigint {
  const negative = amount.startsWith('-');
  const [euros, cents] = amount.replace('-', '').split(',');
  const value = BigInt(euros) * 100n + BigInt(cents);
  return negative ? -value : value;
}

function signatureVerifies(decoded: DecodedJws, key: KeyObject): boolean {
  return verify('sha256', Buffer.from(decoded.signingInput, 'ascii'), { key, dsaEncoding: 'ieee-p1363' }, decoded.signature);
}

function isP256(key: KeyObject): boolean {
  return key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1';
}

function parseJson(input: unknown, what: string, errors: string[]): unknown {
  if (typeof input !== 'string') return input;
  try {
    return JSON.parse(input);
  } catch (error) {
    errors.push(`${what} is not JSON: ${errorMessage(error)}`);
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function unexpectedMembers(value: Record<string, unknown>, allowed: string[], where: string, errors: string[]): void {
  for (const name of Object.keys(value)) {
    if (!allowed.includes(name)) errors.push(`${where} has an unexpected member ${JSON.stringify(name)}`);
  }
}

function checkBase64Member(value: unknown, where: string, errors: string[]): void {
  if (typeof value !== 'string') {
    errors.push(`${where} is not a string`);
    return;
  }
  if (value === '') return;
  try {
    decodeBase64(value, where);
  } catch (error) {
    errors.push(errorMessage(error));
  }
}

/** Each group's Signaturzertifikat, where it has one (an open system's DEP). */
function signingCertificates(dep: unknown, errors: string[]): Map<number, X509Certificate> {
  const certificates = new Map<number, X509Certificate>();
  if (!isObject(dep) || !Array.isArray(dep['Belege-Gruppe'])) return certificates;
  dep['Belege-Gruppe'].forEach((group: unknown, index: number) => {
    const encoded = isObject(group) ? group['Signaturzertifikat'] : undefined;
    if (typeof encoded !== 'string' || encoded === '') return;
    try {
      certificates.set(index, new X509Certificate(decodeBase64(encoded, 'Signaturzertifikat')));
    } catch (error) {
      errors.push(`Belege-Gruppe[${index}].Signaturzertifikat is no X.509 certificate: ${errorMessage(error)}`);
    }
  });
  return certificates;
}

/** The JWS strings of every group in order, after checking the §7.1 shape. */
function depReceipts(dep: unknown, errors: string[]): { group: number; jws: string }[] {
  if (!isObject(dep) || !Array.isArray(dep['Belege-Gruppe'])) {
    errors.push('DEP export is not an object with a "Belege-Gruppe" array');
    return [];
  }
  unexpectedMembers(dep, ['Belege-Gruppe'], 'DEP export', errors);
  const receipts: { group: number; jws: string }[] = [];
  dep['Belege-Gruppe'].forEach((group: unknown, index: number) => {
    const where = `Belege-Gruppe[${index}]`;
    if (!isObject(group)) {
      errors.push(`${where} is not an object`);
      return;
    }
    unexpectedMembers(group, ['Signaturzertifikat', 'Zertifizierungsstellen', 'Belege-kompakt'], where, errors);
    checkBase64Member(group['Signaturzertifikat'], `${where}.Signaturzertifikat`, errors);
    const authorities = group['Zertifizierungsstellen'];
    if (!Array.isArray(authorities)) errors.push(`${where}.Zertifizierungsstellen is not an array`);
    else authorities.forEach((certificate, i) => checkBase64Member(certificate, `${where}.Zertifizierungsstellen[${i}]`, errors));
    const compact = group['Belege-kompakt'];
    if (!Array.isArray(compact)) {
      errors.push(`${where}.Belege-kompakt is not an array`);
      return;
    }
    compact.forEach((jws, i) => {
      if (typeof jws === 'string') receipts.push({ group: index, jws });
      else errors.push(`${where}.Belege-kompakt[${i}] is not a string`);
    });
  });
  return receipts;
}

interface CryptoMaterial {
  aesKeyBase64: string | null;
  publicKeys: Map<string, KeyObject>;
  system: SignatureSystem;
}

/** Whether a field-11 serial (hex, as A-Trust prints it, or decimal) names the certificate's serial. */
function namesSerial(id: string, certificate: X509Certificate): boolean {
  if (!CERTIFICATE_SERIAL_PATTERN.test(id)) return false;
  const serial = BigInt(`0x${certificate.serialNumber}`);
  return BigInt(`0x${id}`) === serial || (/^\d+$/.test(id) && BigInt(id) === serial);
}

/** The AES key and public keys of a §7.2 container, after checking its shape. */
function cryptoMaterial(container: unknown, errors: string[]): CryptoMaterial {
  const material: CryptoMaterial = { aesKeyBase64: null, publicKeys: new Map(), system: 'closed' };
  if (!isObject(container)) {
    errors.push('crypto-material container is not an object');
    return material;
  }
  unexpectedMembers(container, ['base64AESKey', 'certificateOrPublicKeyMap'], 'crypto-material container', errors);
  const aesKey = container['base64AESKey'];
  if (typeof aesKey !== 'string') {
    errors.push('crypto-material container has no base64AESKey string');
  } else {
    try {
      const length = decodeBase64(aesKey, 'base64AESKey').length;
      if (length === 32) material.aesKeyBase64 = aesKey;
      else errors.push(`base64AESKey is ${length} bytes, not 32`);
    } catch (error) {
      errors.push(errorMessage(error));
    }
  }
  const map = container['certificateOrPublicKeyMap'];
  if (!isObject(map)) {
    errors.push('crypto-material container has no certificateOrPublicKeyMap object');
    return material;
  }
  for (const [id, entry] of Object.entries(map)) {
    const where = `certificateOrPublicKeyMap[${JSON.stringify(id)}]`;
    if (!isObject(entry)) {
      errors.push(`${where} is not an object`);
      continue;
    }
    unexpectedMembers(entry, ['id', 'signatureDeviceType', 'signatureCertificateOrPublicKey'], where, errors);
    if (entry['id'] !== id) errors.push(`${where}.id ${JSON.stringify(entry['id'])} differs from its map key`);
    if (entry['signatureDeviceType'] === 'CERTIFICATE') {
      material.system = 'open';
      try {
        const der = entry['signatureCertificateOrPublicKey'];
        if (typeof der !== 'string') throw new Error('is not a string');
        const certificate = new X509Certificate(decodeBase64(der, 'certificate'));
        if (!isP256(certificate.publicKey)) throw new Error('is not a certificate for an EC P-256 key');
        if (!namesSerial(id, certificate)) throw new Error(`has the serial ${certificate.serialNumber}, which the id ${id} does not name`);
        material.publicKeys.set(id, certificate.publicKey);
      } catch (error) {
        errors.push(`${where}.signatureCertificateOrPublicKey: ${errorMessage(error)}`);
      }
      continue;
    }
    if (!KEY_ID_PATTERN.test(id)) errors.push(`${where}: the id is not an Ordnungsbegriff (S:, U:, G:) with an optional key id`);
    if (entry['signatureDeviceType'] !== 'PUBLIC_KEY') {
      errors.push(`${where}.signatureDeviceType is ${JSON.stringify(entry['signatureDeviceType'])}, not "PUBLIC_KEY" or "CERTIFICATE"`);
    }
    const spki = entry['signatureCertificateOrPublicKey'];
    try {
      if (typeof spki !== 'string') throw new Error('is not a string');
      const key = createPublicKey({ key: decodeBase64(spki, 'public key'), format: 'der', type: 'spki' });
      if (!isP256(key)) throw new Error('is not an EC P-256 public key');
      material.publicKeys.set(id, key);
    } catch (error) {
      errors.push(`${where}.signatureCertificateOrPublicKey: ${errorMessage(error)}`);
    }
  }
  return material;
}

function kindOf(fields: ReceiptFields, allZero: boolean, isStart: boolean): ReceiptKind {
  if (isStart) return 'start';
  if (fields.turnoverCounter === STORNO_MARKER) return 'storno';
  if (fields.turnoverCounter === TRAINING_MARKER) return 'training';
  return allZero ? 'null' : 'standard';
}

/** Tracks the collective receipt (Sammelbeleg) owed after a signature device failure. */
class FailureWatch {
  private lastFailed: string | null = null;
  private graceReceipt: string | null = null;

  check(receiptNumber: string, signatureFailed: boolean, signedNull: boolean): string | null {
    let error: string | null = null;
    if (this.lastFailed !== null && this.graceReceipt !== null && !signedNull) {
      error =
        `no signed collective null receipt after the signature device failure ending at receipt ${this.lastFailed}; ` +
        `receipt ${this.graceReceipt} was not one and neither is this one`;
      this.lastFailed = null;
    }
    if (signatureFailed) {
      this.lastFailed = receiptNumber;
      this.graceReceipt = null;
    } else if (this.lastFailed !== null) {
      if (signedNull) this.lastFailed = null;
      else this.graceReceipt = receiptNumber;
    }
    return error;
  }
}

/**
 * Verifies a DEP7 export against its crypto-material container (both as JSON
 * text or parsed). Receipts that cannot be decoded are reported by position
 * (`receipt #n`) and still chain the next one.
 */
export function verifyDep(depExport: unknown, container: unknown, options: DepVerifyOptions = {}): DepVerification {
  const errors: string[] = [];
  const dep = parseJson(depExport, 'DEP export', errors);
  const material = cryptoMaterial(parseJson(container, 'crypto-material container', errors), errors);
  const entries = depReceipts(dep, errors);
  const groupCertificates = signingCertificates(dep, errors);
  const receipts: VerifiedReceipt[] = [];
  const seenNumbers = new Set<string>();
  const groupKeyIds = new Map<number, string>();
  const failures = new FailureWatch();
  let previousJws = options.continuesFrom?.jws ?? null;
  let runningCents = options.continuesFrom?.counterCents ?? 0n;
  let counterBytes = options.counterBytes ?? null;
  let cashRegisterId: string | null = null;
  let previousDate: string | null = null;

  entries.forEach(({ group, jws }, position) => {
    const isStart = position === 0 && options.continuesFrom === undefined;
    let decoded: DecodedJws;
    try {
      decoded = decodeCompactJws(jws);
    } catch (error) {
      errors.push(`receipt #${position + 1}: ${errorMessage(error)}`);
      previousJws = jws;
      return;
    }
    const { fields, signatureFailed } = decoded;
    const report = (message: string) => errors.push(`receipt ${fields.receiptNumber}: ${message}`);
    receiptFieldErrors(fields, material.system).forEach(report);
    const groupCertificate = groupCertificates.get(group);
    if (groupCertificate && !namesSerial(fields.keyId, groupCertificate)) {
      report(`field 11 ${fields.keyId} is not the serial ${groupCertificate.serialNumber} of its group's Signaturzertifikat`);
    }

    if (cashRegisterId === null) cashRegisterId = fields.cashRegisterId;
    else if (fields.cashRegisterId !== cashRegisterId) report(`Kassen-ID ${fields.cashRegisterId} differs from ${cashRegisterId}`);
    if (seenNumbers.has(fields.receiptNumber)) report('duplicate receipt number');
    seenNumbers.add(fields.receiptNumber);
    if (previousDate !== null && fields.date < previousDate) report(`date ${fields.date} is before the previous receipt's ${previousDate}`);
    previousDate = fields.date;
    const groupKeyId = groupKeyIds.get(group);
    if (groupKeyId === undefined) groupKeyIds.set(group, fields.keyId);
    else if (groupKeyId !== fields.keyId) report(`field 11 ${fields.keyId} differs from ${groupKeyId} of the rest of its group`);

    const expectedChain = chainValue(previousJws ?? fields.cashRegisterId);
    if (fields.chainValue !== expectedChain) {
      const basis = previousJws === null ? 'the Kassen-ID' : 'the previous receipt';
      report(`chain value ${fields.chainValue} does not match ${expectedChain} computed from ${basis}`);
    }
    previousJws = jws;

    if (signatureFailed) {
      if (isStart) report('start receipt is not signed (it carries the signature device failure marker)');
    } else {
      const key = material.publicKeys.get(fields.keyId);
      if (key === undefined) report(`no public key for field 11 ${fields.keyId} in the crypto-material container`);
      else if (!signatureVerifies(decoded, key)) report(`signature does not verify with the public key of ${fields.keyId}`);
    }

    const amountsValid = fields.amounts.every((amount) => AMOUNT_PATTERN.test(amount));
    const amountsCents = amountsValid ? fields.amounts.map(amountCents) : null;
    const sumCents = amountsCents?.reduce((sum, cents) => sum + cents, 0n) ?? null;
    const allZero = amountsCents !== null && amountsCents.every((cents) => cents === 0n);
    const kind = kindOf(fields, allZero, isStart);
    if (isStart && amountsCents !== null && !allZero) report('start receipt has non-zero amounts');

    let counterCents: bigint | null = null;
    if (isCounterMarker(fields.turnoverCounter)) {
      if (isStart) report('start receipt is a storno or training receipt');
      if (fields.turnoverCounter === STORNO_MARKER && sumCents !== null) runningCents += sumCents;
    } else if (encryptedCounterError(fields.turnoverCounter) === null && material.aesKeyBase64 !== null) {
      const size = decodeBase64(fields.turnoverCounter, 'turnover counter').length;
      if (counterBytes === null) counterBytes = size;
      else if (size !== counterBytes) report(`turnover counter is ${size} bytes, not ${counterBytes} like the register's counter`);
      counterCents = decryptTurnoverCounter({
        cashRegisterId: fields.cashRegisterId,
        receiptNumber: fields.receiptNumber,
        encryptedBase64: fields.turnoverCounter,
        aesKeyBase64: material.aesKeyBase64,
      });
      if (sumCents !== null) runningCents += sumCents;
      if (isStart && counterCents !== 0n) report(`start receipt counter is ${counterCents} cents, not 0`);
      else if (counterCents !== runningCents) {
        report(`turnover counter decrypts to ${counterCents} cents, expected the running sum ${runningCents}`);
      }
      runningCents = counterCents;
    }

    const signedNull = !signatureFailed && !isCounterMarker(fields.turnoverCounter) && allZero;
    const collectiveError = failures.check(fields.receiptNumber, signatureFailed, signedNull);
    if (collectiveError !== null) report(collectiveError);

    receipts.push({
      receiptNumber: fields.receiptNumber,
      date: fields.date,
      amountsCents: amountsCents ?? [],
      counterCents,
      signatureFailed,
      kind,
      jws,
    });
  });
  return { receipts, errors };
}

/** Checks one receipt from its QR code, as the BMF Belegcheck would with the register's key material. */
export function verifyReceiptQr(
  qr: string,
  publicKeyBase64Spki: string,
  aesKeyBase64: string,
  expectedCounterCents?: bigint,
  system: SignatureSystem = 'closed',
): ReceiptQrVerification {
  const result: ReceiptQrVerification = { jws: '', fields: null, signatureFailed: false, counterCents: null, errors: [] };
  let decoded: DecodedJws;
  try {
    result.jws = jwsFromQr(qr);
    decoded = decodeCompactJws(result.jws);
  } catch (error) {
    result.errors.push(errorMessage(error));
    return result;
  }
  const { fields } = decoded;
  result.fields = fields;
  result.signatureFailed = decoded.signatureFailed;
  result.errors.push(...receiptFieldErrors(fields, system));
  if (!decoded.signatureFailed) {
    const key = createPublicKey({ key: Buffer.from(publicKeyBase64Spki, 'base64'), format: 'der', type: 'spki' });
    if (!signatureVerifies(decoded, key)) result.errors.push('signature does not verify with the given public key');
  }
  const isMarker = isCounterMarker(fields.turnoverCounter);
  if (!isMarker && encryptedCounterError(fields.turnoverCounter) === null) {
    result.counterCents = decryptTurnoverCounter({
      cashRegisterId: fields.cashRegisterId,
      receiptNumber: fields.receiptNumber,
      encryptedBase64: fields.turnoverCounter,
      aesKeyBase64,
    });
  }
  if (expectedCounterCents !== undefined && result.counterCents !== expectedCounterCents) {
    const actual = isMarker ? `the marker ${fields.turnoverCounter}` : `${result.counterCents} cents`;
    result.errors.push(`turnover counter is ${actual}, expected ${expectedCounterCents} cents`);
  }
  return result;
}
