import { derivedUuid } from './derivedUuid.js';

/** What names one record's transaction at one TSS client. */
export interface TransactionOf {
  tssId: string;
  /** fiskaly's client id (the UUID), not its serial. */
  clientId: string;
  recordKey: string;
  processType: string;
  processData: string;
  /** 0 for the first transaction of the record; one more for each that had to be cancelled. */
  attempt: number;
}

/**
 * The tx_id of a record's transaction: derived, not random, so that an attempt
 * after a lost answer or a rolled-back database transaction reaches the
 * transaction an earlier attempt started or finished instead of signing the
 * record twice. A changed record (other processData) gets another id.
 */
export const transactionIdOf = (of: TransactionOf): string =>
  derivedUuid([of.tssId, of.clientId, of.recordKey, of.processType, of.processData, of.attempt]);
