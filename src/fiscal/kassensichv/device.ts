import type { SqlClient } from '../../db/sql.js';
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

/**
 * The KassenSichV signer adapter: what complete needs from a TSE. The software
 * TSE keeps its state in the service's database and joins the caller's
 * transaction (`sql`), so a rolled-back completion leaves no trace in it; a
 * remote TSE driver implements the same calls over the network and ignores `sql`.
 * `signal` aborts when the caller stopped waiting (DEVICE_TIMEOUT_MS): the call
 * should stop its work (a remote driver aborts its request).
 */
export interface KassenSichVDevice {
  identity(): TseIdentity;
  /** Phase 1: StartTransaction. */
  startTransaction(sql: SqlClient, clientId: string, signal?: AbortSignal): Promise<TseLogEntry>;
  /** Phase 2: FinishTransaction of a started transaction with the final process data. */
  finishTransaction(
    sql: SqlClient,
    request: { clientId: string; transactionNumber: number; processType: string; processData: string },
    signal?: AbortSignal,
  ): Promise<TseLogEntry>;
  /**
   * Both phases in one exchange, for a device that can do it cheaper than two
   * calls (the software TSE: one counter update and one insert). Optional.
   */
  signTransaction?(
    sql: SqlClient,
    request: { clientId: string; processType: string; processData: string },
    signal?: AbortSignal,
  ): Promise<{ start: TseLogEntry; finish: TseLogEntry }>;
}
