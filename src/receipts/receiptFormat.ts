import type { QRCodeErrorCorrectionLevel } from 'qrcode';
import { toAmount, type AmountLike } from '../domain/money.js';
import { countryName } from './countryName.js';
import type { ReceiptDocument } from './receiptDocument.js';
import { formatQuantity, receiptLocaleOf, type ReceiptLocale } from './receiptLocales.js';

/**
 * Display model shared by the PDF and HTML renderers, so both show the same
 * labels and values, in the language and layout of the location's country
 * (receiptLocales.ts). Fiscal times and values are printed as the regime's
 * section gives them, so they match the QR code and the fiscal exports.
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
  /** A letter linking the line to its row in the tax table, or the line's rate or natura code ("22%", "N4"). */
  tax: string;
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
  /** BCP 47 tag of the receipt's language. */
  language: string;
  labels: Pick<ReceiptLocale['labels'], 'sections' | 'itemColumns' | 'payments'>;
  title: string;
  issuerName: string;
  issuerLines: string[];
  /** What the regime calls the document, under the issuer ("DOCUMENTO COMMERCIALE"); empty when it names none. */
  documentTitle: string[];
  meta: ReceiptRow[];
  items: ReceiptItemRow[];
  discounts: ReceiptRow[];
  total: ReceiptRow;
  /** The VAT the total includes, where the receipt prints it instead of the VAT table. */
  taxIncluded: ReceiptRow | null;
  tip: ReceiptRow | null;
  payments: ReceiptRow[];
  vatTable: null | { columns: string[]; rows: ReceiptTaxRow[]; total: ReceiptTaxRow };
  fiscal: null | { heading: string | null; rows: ReceiptFiscalRow[]; qrData: string | null; qrCaption: string | null };
}

/** Both renderers encode the QR with the same options, so they draw the same symbol. */
export const QR_ERROR_CORRECTION: QRCodeErrorCorrectionLevel = 'M';
export const QR_QUIET_ZONE = 4;

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

export function presentReceipt(doc: ReceiptDocument): ReceiptView {
  const locale = receiptLocaleOf(doc.issuer.address.countryCode);
  const { labels } = locale;
  const money = (amount: AmountLike): string => locale.money(amount, doc.currency);
  const letters = taxKeyLetters(doc);
  const { issuer } = doc;
  const lineTax = (line: ReceiptDocument['lines'][number]): string =>
    locale.itemTax === 'key' ? (letters.get(rateKey(line.taxRate)) ?? '') : (line.taxCode ?? locale.taxRate(line.taxRate));

  const issuerLines = [
    ...(issuer.locationName && issuer.locationName !== issuer.legalName ? [issuer.locationName] : []),
    issuer.address.line1,
    `${issuer.address.postalCode} ${issuer.address.city}`,
    countryName(issuer.address.countryCode, locale.language),
    ...(issuer.taxId ? [locale.taxIdLine(issuer.taxId)] : []),
  ];

  return {
    language: locale.language,
    labels: { sections: labels.sections, itemColumns: labels.itemColumns, payments: labels.payments },
    title: doc.documentNumber === null ? labels.receipt : `${labels.receipt} ${doc.documentNumber}`,
    issuerName: issuer.legalName,
    issuerLines,
    documentTitle: doc.fiscal?.title ?? [],
    meta: [
      { label: labels.operation, value: labels.operations[doc.operationType] },
      ...(doc.documentNumber === null ? [] : [{ label: labels.documentNumber, value: doc.documentNumber }]),
      { label: labels.date, value: locale.issuedAt(doc.issuedAt, doc.timeZone) },
      { label: labels.register, value: issuer.registerName },
    ],
    items: doc.lines.map((line) => ({
      description: line.description,
      detail: `${formatQuantity(line.quantity, locale.language)} x ${money(line.unitPrice)}`,
      amount: money(line.totalAmount),
      tax: lineTax(line),
    })),
    discounts: doc.cartDiscounts.map((discount) => ({
      label: discount.description || labels.discount,
      value: money(toAmount(discount.amount).negated()),
    })),
    total: { label: labels.total, value: money(doc.totals.gross) },
    taxIncluded: locale.vat === 'included' ? { label: labels.taxIncluded, value: money(doc.vat.total.tax) } : null,
    tip: toAmount(doc.totals.tip).isZero() ? null : { label: labels.tip, value: money(doc.totals.tip) },
    payments: doc.payments.map((payment) => ({ label: locale.paymentLabel(payment.method), value: money(payment.amount) })),
    vatTable:
      locale.vat === 'table'
        ? {
            columns: labels.taxColumns,
            rows: doc.vat.rows.map((row) => ({
              key: letters.get(rateKey(row.rate)) ?? '',
              rate: locale.taxRate(row.rate),
              net: money(row.net),
              tax: money(row.tax),
              gross: money(row.gross),
            })),
            total: { key: '', rate: labels.taxTotal, net: money(doc.vat.total.net), tax: money(doc.vat.total.tax), gross: money(doc.vat.total.gross) },
          }
        : null,
    fiscal: doc.fiscal,
  };
}
