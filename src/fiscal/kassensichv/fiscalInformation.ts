import type { ReceiptFiscalSection } from '../fiscalDevice.js';
import type { SignedTseTransaction } from './device.js';
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
  /** Kept for the DSFinV-K export (TSE_TA_SIGZ_START) and the Style O start event; not published in Style M responses. */
  start_signature_counter: number;
  /** Signature of the StartTransaction log, for the Style O start event; not published in Style M responses. */
  start_signature: string;
}

export function buildFiscalRecord(
  { tse, start, finish }: SignedTseTransaction,
  { clientId, documentNumber, documentType }: { clientId: string; documentNumber: string; documentType: string },
): KassenSichVFiscalRecord {
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
    document_number: documentNumber,
    document_type: documentType,
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
    start_signature: start.signature,
  };
}

/** The record as `fiscal_information` publishes it (DESIGN "Fiscal devices"): the start log's counter and signature stay internal. */
export type PublishedKassenSichVRecord = Omit<KassenSichVFiscalRecord, 'start_signature_counter' | 'start_signature'>;

export function publishKassenSichVRecord(record: KassenSichVFiscalRecord): PublishedKassenSichVRecord {
  const { start_signature_counter: _counter, start_signature: _signature, ...published } = record;
  return published;
}

/** The TSE data § 6 KassenSichV requires on a receipt, and the DSFinV-K receipt QR string. */
export function kassenSichVReceiptSection(record: PublishedKassenSichVRecord): ReceiptFiscalSection {
  return {
    title: [],
    heading: 'TSE-Daten',
    rows: [
      { label: 'TSE-Seriennummer', value: record.tss_serial_number, mono: true },
      { label: 'Kassen-Seriennummer', value: record.pos_client_serial_number, mono: true },
      { label: 'Transaktionsnummer', value: String(record.end_event.transaction_counter), mono: false },
      { label: 'Signaturzähler', value: String(record.end_event.signature_counter), mono: false },
      { label: 'Start', value: record.start_event.signed_at, mono: false },
      { label: 'Ende', value: record.end_event.signed_at, mono: false },
      { label: 'Signaturalgorithmus', value: record.signature_algorithm, mono: false },
      { label: 'Zeitformat', value: record.time_format, mono: false },
      { label: 'Prozesstyp', value: record.end_event.process_type, mono: false },
      { label: 'Signatur', value: record.end_event.signature, mono: true },
      { label: 'Öffentlicher Schlüssel', value: record.end_event.public_key, mono: true },
    ],
    qrData: record.verification.qr_data,
    qrCaption: 'QR-Code zur Prüfung der TSE-Signatur',
  };
}
