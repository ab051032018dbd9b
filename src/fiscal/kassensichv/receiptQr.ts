import { assertCounter, assertPrintableString } from './transactionLog.js';
import { isTseSignatureAlgorithm, type TseSignatureAlgorithm } from './tseKeys.js';

/** The values of the DSFinV-K "V0" receipt QR code (reference §8), all from the FinishTransaction log except startTime. */
export interface ReceiptQrInput {
  clientId: string;
  processType: string;
  /** UTF-8 text as signed, written into the QR as is. */
  processData: string;
  transactionNumber: number;
  signatureCounter: number;
  /** logTime of the StartTransaction log. */
  startTime: Date;
  /** logTime of the FinishTransaction log. */
  logTime: Date;
  algorithm: TseSignatureAlgorithm;
  timeFormat: 'unixTime';
  /** Plain r||s signature of the FinishTransaction log. */
  signature: Buffer;
  /** Uncompressed point 04||X||Y. */
  publicKey: Buffer;
}

const QR_VERSION = 'V0';
const SEPARATOR = ';';
const FIELDS_BEFORE_PROCESS_DATA = 3;
const FIELDS_AFTER_PROCESS_DATA = 8;
const TSE_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * ISO 8601 in UTC with milliseconds and Z, the form used both in the QR and
 * in fiscal_information. With unixTime only whole seconds are signed.
 */
export function formatTseTimestamp(date: Date): string {
  const formatted = date.toISOString();
  // toISOString switches to a six-digit signed year outside 0000-9999.
  if (!TSE_TIMESTAMP.test(formatted)) throw new RangeError(`date ${formatted} has no four-digit year`);
  return formatted;
}

export function buildReceiptQrData(input: ReceiptQrInput): string {
  // clientId and processType cannot contain ';' (PrintableString), so only
  // processData may, and the parser finds it between fixed fields on both sides.
  assertPrintableString(input.clientId, 'clientId');
  assertPrintableString(input.processType, 'processType');
  assertCounter(input.transactionNumber, 'transactionNumber');
  assertCounter(input.signatureCounter, 'signatureCounter');
  return [
    QR_VERSION,
    input.clientId,
    input.processType,
    input.processData,
    String(input.transactionNumber),
    String(input.signatureCounter),
    formatTseTimestamp(input.startTime),
    formatTseTimestamp(input.logTime),
    input.algorithm,
    input.timeFormat,
    input.signature.toString('base64'),
    input.publicKey.toString('base64'),
  ].join(SEPARATOR);
}

/** Inverse of buildReceiptQrData; throws TypeError naming the first malformed field. */
export function parseReceiptQrData(qr: string): ReceiptQrInput {
  const parts = qr.split(SEPARATOR);
  if (parts.length < FIELDS_BEFORE_PROCESS_DATA + 1 + FIELDS_AFTER_PROCESS_DATA) {
    throw new TypeError(`receipt QR has ${parts.length} fields, expected 12`);
  }
  const [version, clientId, processType] = parts.slice(0, FIELDS_BEFORE_PROCESS_DATA);
  const processData = parts.slice(FIELDS_BEFORE_PROCESS_DATA, -FIELDS_AFTER_PROCESS_DATA).join(SEPARATOR);
  const [transactionNumber, signatureCounter, startTime, logTime, algorithm, timeFormat, signature, publicKey] =
    parts.slice(-FIELDS_AFTER_PROCESS_DATA);

  if (version !== QR_VERSION) throw new TypeError(`receipt QR version must be ${QR_VERSION}`);
  assertPrintableString(clientId, 'clientId');
  assertPrintableString(processType, 'processType');
  if (!isTseSignatureAlgorithm(algorithm)) throw new TypeError(`unsupported signature algorithm ${algorithm}`);
  if (timeFormat !== 'unixTime') throw new TypeError(`unsupported time format ${timeFormat}`);
  return {
    clientId,
    processType,
    processData,
    transactionNumber: parseCounter(transactionNumber, 'transactionNumber'),
    signatureCounter: parseCounter(signatureCounter, 'signatureCounter'),
    startTime: parseTseTimestamp(startTime, 'startTime'),
    logTime: parseTseTimestamp(logTime, 'logTime'),
    algorithm,
    timeFormat,
    signature: parseBase64(signature, 'signature'),
    publicKey: parseBase64(publicKey, 'publicKey'),
  };
}

function parseCounter(text: string, field: string): number {
  const value = Number(text);
  if (!/^(0|[1-9]\d*)$/.test(text) || !Number.isSafeInteger(value)) {
    throw new TypeError(`${field} must be a non-negative decimal integer`);
  }
  return value;
}

function parseTseTimestamp(text: string, field: string): Date {
  const date = new Date(text);
  // The round trip rejects impossible dates such as 2021-02-30 that Date would roll over.
  if (!TSE_TIMESTAMP.test(text) || Number.isNaN(date.getTime()) || date.toISOString() !== text) {
    throw new TypeError(`${field} must be ISO 8601 UTC with milliseconds, e.g. 2021-08-23T14:36:33.000Z`);
  }
  return date;
}

function parseBase64(text: string, field: string): Buffer {
  const bytes = Buffer.from(text, 'base64');
  // Buffer.from ignores invalid characters; re-encoding exposes them.
  if (bytes.length === 0 || bytes.toString('base64') !== text) {
    throw new TypeError(`${field} must be standard padded base64`);
  }
  return bytes;
}
