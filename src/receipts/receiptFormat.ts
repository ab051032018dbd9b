import { Decimal } from 'decimal.js';
import type { QRCodeErrorCorrectionLevel } from 'qrcode';
import { toAmount, type AmountLike } from '../domain/money.js';
import { paymentMethodOf } from '../domain/paymentMethods.js';
import { countryName } from './countryName.js';
import type { ReceiptDocument } from './receiptDocument.js';

/**
 * Display model shared by the PDF and HTML renderers, so both show the same
 * labels and values. Display conventions (German, as the receipt is):
 * - amounts: rounded half-up to PRINTED_PLACES decimals (whatever the
 *   currency), "." groups thousands, "," before the decimals, a space and the
 *   currency code: "1.234,50 EUR", "-3,00 EUR"; a string that is not a plain
 *   decimal throws;
 * - tax rates: percent with a decimal comma: "19 %", "5,5 %";
 * - issue date: "dd.mm.yyyy hh:mm:ss" and the zone's abbreviation or UTC
 *   offset, in the location's time zone: "23.11.2026 17:05:00 MEZ";
 * - country: its German name ("Deutschland");
 * - TSE times and values: verbatim, so they match the QR code and TSE export.
 */
export interface ReceiptRow {
  label: string;
  value: string;
}

export interface ReceiptItemRow {
  description: string;
  /** "2 x 1,50 EUR". */
  detail: string;
  amount: string;
  /** Letter linking the line to its row in the tax table. */
  taxKey: string;
}

export interface ReceiptTaxRow {
  key: string;
  rate: string;
  net: string;
  tax: string;
  gross: string;
}

export interface ReceiptFiscalRow extends ReceiptRow {
  /** Long machine values (serials, base64) are shown in a monospace font. */
  mono: boolean;
}

export interface ReceiptView {
  title: string;
  issuerName: string;
  issuerLines: string[];
  meta: ReceiptRow[];
  items: ReceiptItemRow[];
  discounts: ReceiptRow[];
  total: ReceiptRow;
  tip: ReceiptRow | null;
  payments: ReceiptRow[];
  taxes: ReceiptTaxRow[];
  taxTotal: ReceiptTaxRow;
  fiscal: null | { heading: string; rows: ReceiptFiscalRow[]; qrData: string | null; qrCaption: string | null };
}

/** Both renderers encode the QR with the same options, so they draw the same symbol. */
export const QR_ERROR_CORRECTION: QRCodeErrorCorrectionLevel = 'M';
export const QR_QUIET_ZONE = 4;

const OPERATION_LABELS: Record<ReceiptDocument['operationType'], string> = {
  sale: 'Verkauf',
  return: 'Rückgabe',
  exchange: 'Umtausch',
};

/** By the method's name in paymentMethods.ts; any other method prints as sent. */
const PAYMENT_LABELS: ReadonlyMap<string, string> = new Map([
  ['cash', 'Bar'],
  ['card', 'Karte'],
  ['credit_card', 'Kreditkarte'],
  ['debit_card', 'Debitkarte'],
  ['gift_card', 'Geschenkkarte'],
  ['voucher', 'Gutschein'],
]);

/** The receipt's language: its labels are German. */
export const RECEIPT_LOCALE = 'de-DE';

/** Decimals every amount is printed with, so the VAT table is computed in them too. */
export const PRINTED_PLACES = 2;

export function formatMoney(amount: AmountLike, currency: string): string {
  const rounded = toAmount(amount).toDecimalPlaces(PRINTED_PLACES, Decimal.ROUND_HALF_UP);
  const [integer, fraction] = rounded.abs().toFixed(PRINTED_PLACES).split('.');
  // Keeps "-0,00" from appearing for tiny negative values.
  const sign = rounded.isNegative() && !rounded.isZero() ? '-' : '';
  return `${sign}${integer.replace(/\B(?=(\d{3})+(?!\d))/g, '.')},${fraction} ${currency}`;
}

export function formatTaxRate(rate: string): string {
  return `${toAmount(rate).times(100).toFixed().replace('.', ',')} %`;
}

export function formatQuantity(quantity: number): string {
  return new Intl.NumberFormat(RECEIPT_LOCALE, { maximumFractionDigits: 3, useGrouping: false }).format(quantity);
}

/** The local time in `timeZone` (an IANA name), with the zone's abbreviation or UTC offset: "23.11.2026 17:05:00 MEZ". */
export function formatIssuedAt(issuedAt: Date, timeZone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat(RECEIPT_LOCALE, {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
      timeZoneName: 'short',
    })
      .formatToParts(issuedAt)
      .map((part) => [part.type, part.value]),
  );
  return `${parts.day}.${parts.month}.${parts.year} ${parts.hour}:${parts.minute}:${parts.second} ${parts.timeZoneName}`;
}

/** Rates are keyed by value so "0.19" and "0.190" share a letter. */
function rateKey(rate: string): string {
  return toAmount(rate).toFixed();
}

function taxKeyLetters(doc: ReceiptDocument): Map<string, string> {
  const letters = new Map<string, string>();
  for (const rate of [...doc.vat.rows.map((t) => t.rate), ...doc.lines.map((l) => l.taxRate)]) {
    const key = rateKey(rate);
    if (!letters.has(key)) letters.set(key, String.fromCharCode(65 + (letters.size % 26)));
  }
  return letters;
}

function taxIdLine(taxId: string): string {
  // A VAT id starts with its country prefix; anything else is a national tax number.
  return `${/^[A-Z]{2}/i.test(taxId) ? 'USt-IdNr.' : 'St.-Nr.'}: ${taxId}`;
}

export function presentReceipt(doc: ReceiptDocument): ReceiptView {
  const money = (amount: AmountLike): string => formatMoney(amount, doc.currency);
  const letters = taxKeyLetters(doc);
  const { issuer } = doc;

  const issuerLines = [
    ...(issuer.locationName && issuer.locationName !== issuer.legalName ? [issuer.locationName] : []),
    issuer.address.line1,
    `${issuer.address.postalCode} ${issuer.address.city}`,
    countryName(issuer.address.countryCode, RECEIPT_LOCALE),
    ...(issuer.taxId ? [taxIdLine(issuer.taxId)] : []),
  ];

  return {
    title: doc.documentNumber === null ? 'Beleg' : `Beleg ${doc.documentNumber}`,
    issuerName: issuer.legalName,
    issuerLines,
    meta: [
      { label: 'Vorgang', value: OPERATION_LABELS[doc.operationType] },
      ...(doc.documentNumber === null ? [] : [{ label: 'Beleg-Nr.', value: doc.documentNumber }]),
      { label: 'Datum', value: formatIssuedAt(doc.issuedAt, doc.timeZone) },
      { label: 'Kasse', value: issuer.registerName },
    ],
    items: doc.lines.map((line) => ({
      description: line.description,
      detail: `${formatQuantity(line.quantity)} x ${money(line.unitPrice)}`,
      amount: money(line.totalAmount),
      taxKey: letters.get(rateKey(line.taxRate)) ?? '',
    })),
    discounts: doc.cartDiscounts.map((discount) => ({
      label: discount.description || 'Rabatt',
      value: money(toAmount(discount.amount).negated()),
    })),
    total: { label: 'Summe', value: money(doc.totals.gross) },
    tip: toAmount(doc.totals.tip).isZero() ? null : { label: 'Trinkgeld', value: money(doc.totals.tip) },
    payments: doc.payments.map((payment) => ({
      label: PAYMENT_LABELS.get(paymentMethodOf(payment.method).name) ?? payment.method,
      value: money(payment.amount),
    })),
    taxes: doc.vat.rows.map((row) => ({
      key: letters.get(rateKey(row.rate)) ?? '',
      rate: formatTaxRate(row.rate),
      net: money(row.net),
      tax: money(row.tax),
      gross: money(row.gross),
    })),
    taxTotal: { key: '', rate: 'Gesamt', net: money(doc.vat.total.net), tax: money(doc.vat.total.tax), gross: money(doc.vat.total.gross) },
    fiscal: doc.fiscal,
  };
}
