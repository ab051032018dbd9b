import { FiscalDeviceError } from '../../deviceErrors.js';
import type { TseIdentity, TseLogEntry } from '../device.js';
import { isTseSignatureAlgorithm } from '../tseKeys.js';

/** A transaction revision as fiskaly SIGN DE v2 answers it (PUT and GET /tss/{tss_id}/tx/{tx_id}). */
export interface FiskalyTransaction {
  state: string;
  number: number;
  revision?: number;
  latest_revision?: number;
  time_start?: number;
  time_end?: number;
  client_serial_number?: string;
  tss_serial_number?: string;
  signature?: { value?: string; counter?: number | string; algorithm?: string; public_key?: string };
  log?: { operation?: string; timestamp?: number; timestamp_format?: string };
}

/** The revision fiskaly reached for the transaction; a replayed earlier revision says so in latest_revision. */
export const latestRevisionOf = (tx: FiskalyTransaction): number => tx.latest_revision ?? tx.revision ?? 1;

/** The revision an answer is of. */
export const revisionOf = (tx: FiskalyTransaction): number => tx.revision ?? latestRevisionOf(tx);

const malformed = (phase: 1 | 2, what: string) =>
  new FiscalDeviceError(phase, 'rejected', `fiskaly answered a transaction without ${what}`, { vendor_code: null });

/** A signed log of the transaction: the revision's signature, counter and log time (unixTime seconds). */
export function logEntryOf(
  tx: FiskalyTransaction,
  phase: 1 | 2,
  process: { processType: string; processData: string },
  fallbackTime: number | undefined,
): TseLogEntry {
  const counter = Number(tx.signature?.counter);
  const value = tx.signature?.value;
  const seconds = tx.log?.timestamp ?? fallbackTime;
  if (!Number.isSafeInteger(tx.number) || tx.number < 1) throw malformed(phase, 'a transaction number');
  if (!value || !Number.isSafeInteger(counter) || counter < 1) throw malformed(phase, 'a signature and its counter');
  if (typeof seconds !== 'number') throw malformed(phase, 'a log time');
  if (tx.log?.timestamp_format !== undefined && tx.log.timestamp_format !== 'unixTime') {
    throw new FiscalDeviceError(phase, 'rejected', `fiskaly logged in ${tx.log.timestamp_format}; the receipt QR code is built for unixTime`);
  }
  return { transactionNumber: tx.number, signatureCounter: counter, logTime: new Date(seconds * 1000), signature: value, ...process };
}

/**
 * The TSE that signed the finish: the serial and public key the TSS reported at
 * fiscalization (checked then, and what DSFinV-K's tse.csv names), with the
 * algorithm the signature says it used.
 */
export function identityOf(finish: FiskalyTransaction, known: TseIdentity): TseIdentity {
  const algorithm = finish.signature?.algorithm ?? known.algorithm;
  if (!isTseSignatureAlgorithm(algorithm)) {
    throw new FiscalDeviceError(2, 'rejected', `fiskaly signed with ${algorithm}, which the receipt QR code cannot name`);
  }
  return { ...known, algorithm };
}
