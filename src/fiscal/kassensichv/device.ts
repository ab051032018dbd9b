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

/**
 * A TSE as the KassenSichV device needs it: one transaction per record. The
 * software TSE keeps its state in the service's database and writes both logs
 * in one exchange inside the caller's transaction, so a rolled-back record
 * leaves no trace in it; a remote TSE driver runs StartTransaction as phase 1
 * and FinishTransaction as phase 2, each through `exchange`.
 */
export interface Tse {
  transact(exchange: DeviceExchange, request: { clientId: string; processType: string; processData: string }): Promise<SignedTseTransaction>;
}
