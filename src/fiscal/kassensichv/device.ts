import type { DeviceExchange } from '../fiscalDevice.js';
import type { TseSignatureAlgorithm } from './tseKeys.js';

/** One signed TR-03151 transaction log as the device reports it. */
export interface TseLogEntry {
  transactionNumber: number;
  signatureCounter: number;
  logTime: Date;
  /** base64 of the plain r||s signature */
  signature: string;
  processType: string;
  processData: string;
}

export interface TseIdentity {
  serialNumber: string;
  /** base64 of the uncompressed public point 04||X||Y */
  publicKey: string;
  algorithm: TseSignatureAlgorithm;
}

/** One TR-03151 transaction: its StartTransaction and FinishTransaction logs and the TSE that signed them. */
export interface SignedTseTransaction {
  tse: TseIdentity;
  start: TseLogEntry;
  finish: TseLogEntry;
}

/** One record to sign as a TSE transaction. */
export interface TseTransactionRequest {
  clientId: string;
  processType: string;
  processData: string;
  /**
   * The record's number at its register (its document number), the same on every
   * attempt to sign it: a remote TSE names its transaction after it, so a retry
   * finds what an earlier attempt signed instead of signing again.
   */
  recordKey: string;
}

/**
 * A TSE as the KassenSichV device needs it: one transaction per record. The
 * software TSE keeps its state in the service's database and writes both logs
 * in one exchange inside the caller's transaction, so a rolled-back record
 * leaves no trace in it; a remote TSE driver runs StartTransaction as phase 1
 * and FinishTransaction as phase 2, each through `exchange`.
 */
export interface Tse {
  transact(exchange: DeviceExchange, request: TseTransactionRequest): Promise<SignedTseTransaction>;
}
