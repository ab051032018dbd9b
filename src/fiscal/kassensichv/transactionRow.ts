import { newId } from '../../lib/ids.js';
import type { TseLogEntry } from './device.js';

/**
 * A signed transaction as the parameters of its tse_transactions row ($1..$12:
 * id, TSE, client, number, the start log's counter, time and signature, the
 * finish log's, and what it signed), whichever TSE signed it: the TAR export
 * and DSFinV-K read every TSE's transactions from there.
 */
export const transactionRowParameters = (tseId: string, clientId: string, start: TseLogEntry, finish: TseLogEntry): unknown[] => [
  newId('ttx'),
  tseId,
  clientId,
  finish.transactionNumber,
  start.signatureCounter,
  start.logTime,
  start.signature,
  finish.signatureCounter,
  finish.logTime,
  finish.signature,
  finish.processType,
  finish.processData,
];
