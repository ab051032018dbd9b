import type { ReceiptFiscalSection } from '../fiscalDevice.js';
import { formatRksvAmount, type TaxSetCents } from './receiptCode.js';

export const RKSV_RECEIPT_TYPES = ['start', 'standard', 'null', 'monthly', 'annual', 'closing', 'collective'] as const;
export type RksvReceiptType = (typeof RKSV_RECEIPT_TYPES)[number];

/** One signed RKSV receipt as `fiscal_information` carries it (DESIGN "Austria: RKSV"). */
export interface RksvFiscalRecord {
  regime: 'RKSV';
  /** The Belegnummer. */
  document_number: string;
  document_type: RksvReceiptType;
  cash_register_id: string;
  /** R1-AT0 (closed system) or R1-<ZDA id> (a trust service's certificate). */
  suite: string;
  signature_device_id: string;
  signed_at: string;
  /** Gross per rate, decimal strings with a point. */
  amounts: { normal: string; reduced_1: string; reduced_2: string; zero: string; special: string };
  turnover_counter_encrypted: string;
  chain_value: string;
  /** The compact JWS as the DEP stores it. */
  jws: string;
  signature_device_failed: boolean;
  /** Base64 DER SubjectPublicKeyInfo of the signature device (of its certificate, for a trust service's unit). */
  public_key: string;
  verification: { qr_data: string };
}

/** Everything of an RKSV record is public. */
export type PublishedRksvRecord = RksvFiscalRecord;

const decimalPoint = (cents: bigint) => formatRksvAmount(cents).replace(',', '.');

export function publishedAmounts(amounts: TaxSetCents): RksvFiscalRecord['amounts'] {
  return {
    normal: decimalPoint(amounts.normal),
    reduced_1: decimalPoint(amounts.reduced1),
    reduced_2: decimalPoint(amounts.reduced2),
    zero: decimalPoint(amounts.zero),
    special: decimalPoint(amounts.special),
  };
}

const VIENNA = new Intl.DateTimeFormat('de-AT', { timeZone: 'Europe/Vienna', dateStyle: 'medium', timeStyle: 'medium' });

/**
 * What § 132a BAO and the RKSV add to a receipt: the Kassen-ID, the receipt
 * number and time, the failure note while the signature device is out, and
 * the machine-readable code as a QR code.
 */
export function rksvReceiptSection(record: PublishedRksvRecord): ReceiptFiscalSection {
  return {
    title: [],
    heading: 'Registrierkasse (RKSV)',
    rows: [
      { label: 'Kassen-ID', value: record.cash_register_id, mono: true },
      { label: 'Belegnummer', value: record.document_number, mono: false },
      { label: 'Belegdatum', value: VIENNA.format(new Date(record.signed_at)), mono: false },
      { label: 'Signatureinrichtung', value: record.signature_device_id, mono: true },
      ...(record.signature_device_failed ? [{ label: 'Hinweis', value: 'Sicherheitseinrichtung ausgefallen', mono: false }] : []),
    ],
    qrData: record.verification.qr_data,
    qrCaption: 'Maschinenlesbarer Code (RKSV), prüfbar mit der Belegcheck-App des BMF',
  };
}
