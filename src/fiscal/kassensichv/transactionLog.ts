import { createPrivateKey, sign, verify, type KeyObject } from 'node:crypto';
import {
  derContextPrimitive,
  derInteger,
  derIntegerContent,
  derObjectIdentifier,
  derOctetString,
  derSequence,
} from './asn1.js';
import {
  TSE_SIGNATURE_ALGORITHMS,
  publicKeyObjectFromPoint,
  tseSerialNumber,
  type TseSignatureAlgorithm,
} from './tseKeys.js';

const TRANSACTION_OPERATION_TYPES = ['StartTransaction', 'UpdateTransaction', 'FinishTransaction'] as const;
export type TransactionOperationType = (typeof TRANSACTION_OPERATION_TYPES)[number];

export interface TransactionLogFields {
  operationType: TransactionOperationType;
  clientId: string;
  /** UTF-8 text, signed as its UTF-8 bytes. */
  processData: string;
  processType: string;
  transactionNumber: number;
  /** Hex SHA-256 of the public key point (reference §5). */
  serialNumber: string;
  algorithm: TseSignatureAlgorithm;
  signatureCounter: number;
  /**
   * The log records unixTime in whole seconds (Math.floor(ms / 1000)), so the
   * milliseconds of a published timestamp are not signed: verifiers truncate
   * to seconds before rebuilding the DTBS.
   */
  logTime: Date;
}

export interface SignedTransactionLog {
  fields: TransactionLogFields;
  /** Plain ECDSA r||s (BSI TR-03111), not X9.62 DER. */
  signature: Buffer;
  /** The complete DER log message including signatureValue: the content of a TAR export .log file. */
  logMessage: Buffer;
}

const LOG_MESSAGE_VERSION = 2;
const TRANSACTION_LOG_OID = '0.4.0.127.0.7.3.7.1.1';
const PRINTABLE_STRING = /^[A-Za-z0-9 '()+,\-./:=?]*$/;

// The elements that never change, encoded once: every signature (two a transaction) starts with them.
const VERSION_AND_TYPE = Buffer.concat([derInteger(LOG_MESSAGE_VERSION), derObjectIdentifier(TRANSACTION_LOG_OID)]);
const ALGORITHM_IDENTIFIER = Object.fromEntries(
  Object.entries(TSE_SIGNATURE_ALGORITHMS).map(([algorithm, { oid }]) => [algorithm, derSequence(derObjectIdentifier(oid))]),
) as Record<TseSignatureAlgorithm, Buffer>;

export function assertPrintableString(value: string, field: string): void {
  if (!PRINTABLE_STRING.test(value)) {
    throw new TypeError(
      `${field} must contain only PrintableString characters (A-Z a-z 0-9 space ' ( ) + , - . / : = ?)`,
    );
  }
}

export function assertCounter(value: number, field: string): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new TypeError(`${field} must be a non-negative safe integer`);
  }
}

/**
 * Data to be signed (reference §3.1): the full TLVs of the outer SEQUENCE's
 * elements from version up to and including logTime, without the SEQUENCE
 * header. The optional [4] additionalExternalData and [6]
 * additionalInternalData are omitted.
 */
export function encodeDataToBeSigned(fields: TransactionLogFields): Buffer {
  if (!TRANSACTION_OPERATION_TYPES.includes(fields.operationType)) {
    throw new TypeError(`operationType ${fields.operationType} is not a transaction log operation`);
  }
  assertPrintableString(fields.clientId, 'clientId');
  assertPrintableString(fields.processType, 'processType');
  assertCounter(fields.transactionNumber, 'transactionNumber');
  assertCounter(fields.signatureCounter, 'signatureCounter');
  if (!/^[0-9a-fA-F]{64}$/.test(fields.serialNumber)) {
    throw new TypeError('serialNumber must be 64 hex digits (SHA-256)');
  }
  const logTimeMs = fields.logTime.getTime();
  if (!Number.isFinite(logTimeMs) || logTimeMs < 0) {
    throw new TypeError('logTime must be a valid date not before 1970');
  }
  return Buffer.concat([
    VERSION_AND_TYPE,
    derContextPrimitive(0, Buffer.from(fields.operationType, 'ascii')),
    derContextPrimitive(1, Buffer.from(fields.clientId, 'ascii')),
    derContextPrimitive(2, Buffer.from(fields.processData, 'utf8')),
    derContextPrimitive(3, Buffer.from(fields.processType, 'ascii')),
    derContextPrimitive(5, derIntegerContent(fields.transactionNumber)),
    derOctetString(Buffer.from(fields.serialNumber, 'hex')),
    ALGORITHM_IDENTIFIER[fields.algorithm],
    derInteger(fields.signatureCounter),
    derInteger(Math.floor(logTimeMs / 1000)),
  ]);
}

/** The outer SEQUENCE around the DTBS and the signatureValue (reference §2). */
const logMessageOf = (dataToBeSigned: Buffer, signature: Buffer): Buffer => derSequence(dataToBeSigned, derOctetString(signature));

/** A KeyObject may be passed instead of the PEM to skip re-parsing it on every signature. */
export function signTransactionLog(fields: TransactionLogFields, privateKey: string | KeyObject): SignedTransactionLog {
  const dataToBeSigned = encodeDataToBeSigned(fields);
  const { hash, coordinateLength } = TSE_SIGNATURE_ALGORITHMS[fields.algorithm];
  const key = typeof privateKey === 'string' ? createPrivateKey(privateKey) : privateKey;
  const signature = sign(hash, dataToBeSigned, { key, dsaEncoding: 'ieee-p1363' });
  if (signature.length !== 2 * coordinateLength) {
    throw new TypeError(`private key curve does not match ${fields.algorithm}`);
  }
  return { fields, signature, logMessage: logMessageOf(dataToBeSigned, signature) };
}

/**
 * The complete DER log message of a log signed earlier (a TAR export's .log file):
 * the DTBS rebuilt from the stored fields by the encoder the signer used, so the
 * stored signature verifies over it.
 */
export function transactionLogMessage(fields: TransactionLogFields, signature: Buffer): Buffer {
  return logMessageOf(encodeDataToBeSigned(fields), signature);
}

/** Also checks that fields.serialNumber belongs to publicKey, as a verifier locating the key by serial would. */
export function verifyTransactionLog(fields: TransactionLogFields, signature: Buffer, publicKey: Buffer): boolean {
  const { hash, coordinateLength } = TSE_SIGNATURE_ALGORITHMS[fields.algorithm];
  if (signature.length !== 2 * coordinateLength) return false;
  if (fields.serialNumber.toLowerCase() !== tseSerialNumber(publicKey)) return false;
  return verify(
    hash,
    encodeDataToBeSigned(fields),
    { key: publicKeyObjectFromPoint(publicKey), dsaEncoding: 'ieee-p1363' },
    signature,
  );
}
