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

const ROME = new Intl.DateTimeFormat('it-IT', { timeZone: 'Europe/Rome', day: '2-digit', month: '2-digit', year: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });

/** `dd-mm-yyyy hh:mm` in Italy, as an RT prints it (reference §2). */
export function rtPrintedDate(at: Date): string {
  const part = Object.fromEntries(ROME.formatToParts(at).map(({ type, value }) => [type, value]));
  return `${part.day}-${part.month}-${part.year} ${part.hour}:${part.minute}`;
}

/** What the documento commerciale adds (reference §2): the document number and date, the RT's matricola, a return's original, the lottery code. */
export function rtReceiptSection(record: PublishedRtRecord): ReceiptFiscalSection {
  const original = record.referenced_document;
  return {
    heading: record.document_type === 'return' ? 'DOCUMENTO COMMERCIALE di reso merce' : 'DOCUMENTO COMMERCIALE di vendita o prestazione',
    rows: [
      { label: 'DOCUMENTO N.', value: record.document_number, mono: false },
      { label: 'Data', value: rtPrintedDate(new Date(record.issued_at)), mono: false },
      { label: 'RT', value: record.device_serial, mono: true },
      ...(original
        ? [{ label: 'Documento di riferimento', value: `N. ${original.document_number} del ${rtPrintedDate(new Date(original.issued_at))} RT ${original.device_serial}`, mono: false }]
        : []),
      ...(record.lottery_code ? [{ label: 'Codice lotteria', value: record.lottery_code, mono: true }] : []),
    ],
    qrData: null,
    qrCaption: null,
  };
}
