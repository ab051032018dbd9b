import type { SqlClient } from '../../db/sql.js';
import { START_TRANSACTION_PROCESS } from './softwareTse.js';
import { transactionLogMessage, type SignedTransactionLog, type TransactionLogFields } from './transactionLog.js';
import type { TseSignatureAlgorithm } from './tseKeys.js';

/** Transactions read per query: bounded memory however many the range holds. */
const PAGE_SIZE = 500;

interface StoredTransaction {
  client_id: string;
  transaction_number: string;
  start_signature_counter: string;
  start_log_time: Date;
  start_signature: string;
  finish_signature_counter: string | null;
  finish_log_time: Date | null;
  finish_signature: string | null;
  process_type: string | null;
  process_data: string | null;
}

/**
 * Keyset pages on the (tse_id, transaction_number) index. A TSE signs under its
 * row lock with the clock read inside it, so its start times grow with the
 * number and the range is one run of numbers; the time filter only bounds it.
 * The order names the table's column: the bare name would be the text alias.
 */
const SELECT_PAGE = `
  SELECT client_id, transaction_number::text AS transaction_number,
         start_signature_counter::text AS start_signature_counter, start_log_time, start_signature,
         finish_signature_counter::text AS finish_signature_counter, finish_log_time, finish_signature,
         process_type, process_data
    FROM tse_transactions
   WHERE tse_id = $1 AND transaction_number > $2::bigint AND start_log_time >= $3 AND start_log_time < $4
   ORDER BY tse_transactions.transaction_number
   LIMIT ${PAGE_SIZE}`;

/** What names the software TSE's logs: its serial and algorithm. */
export interface LoggingTse {
  id: string;
  serialNumber: string;
  algorithm: TseSignatureAlgorithm;
}

const logOf = (fields: TransactionLogFields, signatureBase64: string): SignedTransactionLog => {
  const signature = Buffer.from(signatureBase64, 'base64');
  return { fields, signature, logMessage: transactionLogMessage(fields, signature) };
};

/** The Start and (when finished) Finish log of one stored transaction, rebuilt as they were signed. */
function logsOf(tse: LoggingTse, row: StoredTransaction): SignedTransactionLog[] {
  const common = { clientId: row.client_id, transactionNumber: Number(row.transaction_number), serialNumber: tse.serialNumber, algorithm: tse.algorithm };
  const start = logOf(
    { ...common, operationType: 'StartTransaction', ...START_TRANSACTION_PROCESS, signatureCounter: Number(row.start_signature_counter), logTime: new Date(row.start_log_time) },
    row.start_signature,
  );
  if (row.finish_signature_counter === null || row.finish_log_time === null || row.finish_signature === null) return [start];
  const finish = logOf(
    {
      ...common,
      operationType: 'FinishTransaction',
      processType: row.process_type ?? '',
      processData: row.process_data ?? '',
      signatureCounter: Number(row.finish_signature_counter),
      logTime: new Date(row.finish_log_time),
    },
    row.finish_signature,
  );
  return [start, finish];
}

/**
 * Every transaction log message of the software TSE's transactions started in
 * [from, to), in signature counter order, a page at a time.
 */
export async function* storedTransactionLogs(sql: SqlClient, tse: LoggingTse, from: Date, to: Date): AsyncIterable<SignedTransactionLog[]> {
  let after = '0';
  for (;;) {
    const page = await sql.query<StoredTransaction>(SELECT_PAGE, [tse.id, after, from, to]);
    if (page.length) yield page.flatMap((row) => logsOf(tse, row));
    if (page.length < PAGE_SIZE) return;
    after = page[page.length - 1].transaction_number;
  }
}
