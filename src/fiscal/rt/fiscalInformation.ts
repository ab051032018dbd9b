import { localDateTimeOf } from '../../domain/localTime.js';
import type { ReceiptFiscalSection } from '../fiscalDevice.js';

/** One documento commerciale as `fiscal_information` carries it (DESIGN "Italy: RT"). */
export interface RtFiscalRecord {
  regime: 'RT';
  document_type: 'sale' | 'return';
  /** `NNNN-NNNN`: fiscal day, then the progressive within it. */
  document_number: string;
  fiscal_day: number;
  document_progressive: number;
  device_serial: string;
  issued_at: string;
  lottery_code: string | null;
  /** A return's original. */
  referenced_document: { document_number: string; device_serial: string; issued_at: string } | null;
  verification: { url: string | null };
}

/** Everything of an RT record is public. */
export type PublishedRtRecord = RtFiscalRecord;

/** `dd-mm-yyyy hh:mm` in Italy, as an RT prints it (reference §2). */
export function rtPrintedDate(at: Date): string {
  const { day, month, year, hour, minute } = localDateTimeOf(at, 'Europe/Rome');
  return `${day}-${month}-${year} ${hour}:${minute}`;
}

/**
 * What the documento commerciale adds (reference §2, §3): its title under the
 * issuer, and at its foot the document number and date, the RT's matricola, a
 * return's original (number, date, RT) and the lottery code.
 */
export function rtReceiptSection(record: PublishedRtRecord): ReceiptFiscalSection {
  const original = record.referenced_document;
  return {
    title: ['DOCUMENTO COMMERCIALE', record.document_type === 'return' ? 'di reso merce' : 'di vendita o prestazione'],
    heading: null,
    rows: [
      { label: 'DOCUMENTO N.', value: record.document_number, mono: false },
      { label: 'Data', value: rtPrintedDate(new Date(record.issued_at)), mono: false },
      { label: 'RT', value: record.device_serial, mono: false },
      ...(original
        ? [{ label: 'Documento di riferimento', value: `N. ${original.document_number} del ${rtPrintedDate(new Date(original.issued_at))} RT ${original.device_serial}`, mono: false }]
        : []),
      ...(record.lottery_code ? [{ label: 'Codice lotteria', value: record.lottery_code, mono: false }] : []),
    ],
    qrData: null,
    qrCaption: null,
  };
}
