import type { TseIdentity, TseLogEntry } from './device.js';
import { buildReceiptQrData, formatTseTimestamp } from './receiptQr.js';

/** What a signed KassenSichV operation publishes (DESIGN "Fiscal devices"); QR and fields carry the same values. */
export interface KassenSichVFiscalRecord {
  regime: 'KassenSichV';
  document_number: string;
  document_type: string;
  tss_serial_number: string;
  pos_client_serial_number: string;
  signature_algorithm: string;
  time_format: 'unixTime';
  start_event: { signed_at: string };
  end_event: {
    signed_at: string;
    transaction_counter: number;
    signature_counter: number;
    signature: string;
    public_key: string;
    process_type: string;
    process_data: string;
  };
  verification: { qr_data: string };
  /** Kept for the DSFinV-K export (TSE_TA_SIGZ_START, TSE_TA_SIG_START); not published in responses. */
  start_signature_counter: number;
}

export function buildFiscalRecord(input: {
  tse: TseIdentity;
  clientId: string;
  start: TseLogEntry;
  finish: TseLogEntry;
  documentNumber: string;
  documentType: string;
}): KassenSichVFiscalRecord {
  const { tse, clientId, start, finish } = input;
  const qr = buildReceiptQrData({
    clientId,
    processType: finish.processType,
    processData: finish.processData,
    transactionNumber: finish.transactionNumber,
    signatureCounter: finish.signatureCounter,
    startTime: start.logTime,
    logTime: finish.logTime,
    algorithm: tse.algorithm,
    timeFormat: 'unixTime',
    signature: Buffer.from(finish.signature, 'base64'),
    publicKey: Buffer.from(tse.publicKey, 'base64'),
  });
  return {
    regime: 'KassenSichV',
    document_number: input.documentNumber,
    document_type: input.documentType,
    tss_serial_number: tse.serialNumber,
    pos_client_serial_number: clientId,
    signature_algorithm: tse.algorithm,
    time_format: 'unixTime',
    start_event: { signed_at: formatTseTimestamp(start.logTime) },
    end_event: {
      signed_at: formatTseTimestamp(finish.logTime),
      transaction_counter: finish.transactionNumber,
      signature_counter: finish.signatureCounter,
      signature: finish.signature,
      public_key: tse.publicKey,
      process_type: finish.processType,
      process_data: finish.processData,
    },
    verification: { qr_data: qr },
    start_signature_counter: start.signatureCounter,
  };
}
