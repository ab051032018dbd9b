import type { TransactionLogFields, TransactionOperationType } from '../../fiscal/kassensichv/transactionLog.js';

const OPERATION_IN_FILE_NAME: Record<TransactionOperationType, string> = {
  StartTransaction: 'Start',
  UpdateTransaction: 'Update',
  FinishTransaction: 'Finish',
};

/**
 * A transaction log's member name as TR-03153 exports have it (reference §9,
 * TTC's LogMessageFactory): the log time in its format (unixTime seconds), the
 * signature counter, the transaction number, the operation and the client id.
 */
export function transactionLogFileName(log: TransactionLogFields): string {
  const unixSeconds = Math.floor(log.logTime.getTime() / 1000);
  return `Unixt_${unixSeconds}_Sig-${log.signatureCounter}_Log-Tra_No-${log.transactionNumber}_${OPERATION_IN_FILE_NAME[log.operationType]}_Client-${log.clientId}.log`;
}

/**
 * A certificate's member name: `<key hash>_X509.crt`, the key hash being the
 * upper-case hex SHA-256 of the certified point. For the TSE's own certificate
 * that is its serial, which is how verifiers (TTC's CertificateFileNameValidator)
 * tie it to the serialNumber of the logs and to its subject CN.
 */
export const certificateFileName = (keyHashHex: string): string => `${keyHashHex.toUpperCase()}_X509.crt`;

export const INFO_CSV_FILE_NAME = 'info.csv';

/** What info.csv says of the TSE. */
export interface TseDescription {
  description: string;
  manufacturer: string;
  version: string;
}

const quoted = (value: string) => `"${value.replace(/"/g, '""')}"`;

/** info.csv as real exports write it: one line of quoted label/value pairs. */
export const infoCsv = ({ description, manufacturer, version }: TseDescription): string =>
  `${['description:', description, 'manufacturer:', manufacturer, 'version:', version].map(quoted).join(',')}\n`;
