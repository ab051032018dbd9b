import { Decimal } from 'decimal.js';
import { localDateTimeOf } from '../domain/localTime.js';
import { toAmount, type AmountLike } from '../domain/money.js';
import { paymentMethodOf } from '../domain/paymentMethods.js';
import { alpha3Of } from '../domain/styleO/countries.js';
import { memoized } from '../lib/memoized.js';
import type { ReceiptDocument } from './receiptDocument.js';

/**
 * What differs between the receipts of two countries: language, labels,
 * number and date formats, and which blocks the layout prints. The receipt
 * follows the country of the location it was issued at (receiptLocaleOf).
 */
export interface ReceiptLocale {
  /** BCP 47 tag: the page's and PDF's language, and the locale quantities and country names are written in. */
  language: string;
  money(amount: AmountLike, currency: string): string;
  taxRate(rate: string): string;
  /** The issue time in `timeZone` (the location's IANA zone). */
  issuedAt(at: Date, timeZone: string): string;
  taxIdLine(taxId: string): string;
  paymentLabel(method: string): string;
  /**
   * How an item names its tax: `key`, a letter pointing at its row of the VAT
   * table; `rate`, the rate itself (or the code the regime prints instead).
   */
  itemTax: 'key' | 'rate';
  /** `table`: net, tax and gross per rate; `included`: one row of the VAT the total includes. */
  vat: 'table' | 'included';
  labels: {
    /** Document title without a number ("Beleg"); "<title> <number>" with one. */
    receipt: string;
    operations: Record<ReceiptDocument['operationType'], string>;
    operation: string;
    documentNumber: string;
    date: string;
    register: string;
    discount: string;
    total: string;
    tip: string;
    taxIncluded: string;
    /** Heading over the payments; null where each payment's label says it is one. */
    payments: string | null;
    /** Names of the page's sections, for screen readers. */
    sections: { meta: string; items: string; total: string; taxes: string };
    itemColumns: [description: string, amount: string, tax: string];
    taxColumns: [rate: string, net: string, tax: string, gross: string];
    taxTotal: string;
  };
}

/** Decimals every amount is printed with, so the VAT table is computed in them too. */
export const PRINTED_PLACES = 2;

/** "1.234,50", "-3,00": rounded half-up, "." groups thousands, "," before the decimals; a string that is not a plain decimal throws. */
function printedAmount(amount: AmountLike): string {
  const rounded = toAmount(amount).toDecimalPlaces(PRINTED_PLACES, Decimal.ROUND_HALF_UP);
  const [integer, fraction] = rounded.abs().toFixed(PRINTED_PLACES).split('.');
  // Keeps "-0,00" from appearing for tiny negative values.
  const sign = rounded.isNegative() && !rounded.isZero() ? '-' : '';
  return `${sign}${integer.replace(/\B(?=(\d{3})+(?!\d))/g, '.')},${fraction}`;
}

const percent = (rate: string) => toAmount(rate).times(100).toFixed().replace('.', ',');

/** German amounts name the currency by its code: "1.234,50 EUR". */
export function formatMoney(amount: AmountLike, currency: string): string {
  return `${printedAmount(amount)} ${currency}`;
}

/** "19 %", "5,5 %". */
export function formatTaxRate(rate: string): string {
  return `${percent(rate)} %`;
}

const quantityFormat = memoized((language) => new Intl.NumberFormat(language, { maximumFractionDigits: 3, useGrouping: false }));

export function formatQuantity(quantity: number, language = 'de-DE'): string {
  return quantityFormat(language).format(quantity);
}

/** The local time in `timeZone` (an IANA name), with the zone's abbreviation or UTC offset: "23.11.2026 17:05:00 MEZ". */
export function formatIssuedAt(issuedAt: Date, timeZone: string): string {
  const local = localDateTimeOf(issuedAt, timeZone);
  return `${local.day}.${local.month}.${local.year} ${local.hour}:${local.minute}:${local.second} ${zoneNameOf(issuedAt, timeZone)}`;
}

const germanZoneName = memoized((timeZone) => new Intl.DateTimeFormat('de-DE', { timeZone, timeZoneName: 'short' }));

/** The zone's German abbreviation at that instant (MEZ, MESZ), or its UTC offset. */
function zoneNameOf(at: Date, timeZone: string): string {
  return germanZoneName(timeZone).formatToParts(at).find((part) => part.type === 'timeZoneName')!.value;
}

/** By the method's name in paymentMethods.ts; any other method prints as sent. */
const GERMAN_PAYMENT_LABELS: ReadonlyMap<string, string> = new Map([
  ['cash', 'Bar'],
  ['card', 'Karte'],
  ['credit_card', 'Kreditkarte'],
  ['debit_card', 'Debitkarte'],
  ['gift_card', 'Geschenkkarte'],
  ['voucher', 'Gutschein'],
]);

const GERMAN: ReceiptLocale = {
  language: 'de-DE',
  money: formatMoney,
  taxRate: formatTaxRate,
  issuedAt: formatIssuedAt,
  // A VAT id starts with its country prefix; anything else is a national tax number.
  taxIdLine: (taxId) => `${/^[A-Z]{2}/i.test(taxId) ? 'USt-IdNr.' : 'St.-Nr.'}: ${taxId}`,
  paymentLabel: (method) => GERMAN_PAYMENT_LABELS.get(paymentMethodOf(method).name) ?? method,
  itemTax: 'key',
  vat: 'table',
  labels: {
    receipt: 'Beleg',
    operations: { sale: 'Verkauf', return: 'Rückgabe', exchange: 'Umtausch' },
    operation: 'Vorgang',
    documentNumber: 'Beleg-Nr.',
    date: 'Datum',
    register: 'Kasse',
    discount: 'Rabatt',
    total: 'Summe',
    tip: 'Trinkgeld',
    taxIncluded: 'Enthaltene MwSt',
    payments: 'Zahlung',
    sections: { meta: 'Belegdaten', items: 'Positionen', total: 'Summe', taxes: 'Steuern' },
    itemColumns: ['Artikel', 'Betrag', 'Steuer'],
    taxColumns: ['Satz', 'Netto', 'MwSt', 'Brutto'],
    taxTotal: 'Gesamt',
  },
};

const CURRENCY_SYMBOLS: Readonly<Record<string, string>> = { EUR: '€' };

/**
 * A documento commerciale (reference italy.md §2): amounts "1.234,56 €", the
 * date "dd-mm-yyyy hh:mm", each line with its VAT rate or natura code, the
 * total with the VAT it includes, and the payments split into cash and
 * electronic, as an RT prints them.
 */
const ITALIAN: ReceiptLocale = {
  language: 'it-IT',
  money: (amount, currency) => `${printedAmount(amount)} ${CURRENCY_SYMBOLS[currency.toUpperCase()] ?? currency}`,
  taxRate: (rate) => `${percent(rate)}%`,
  issuedAt(at, timeZone) {
    const { day, month, year, hour, minute } = localDateTimeOf(at, timeZone);
    return `${day}-${month}-${year} ${hour}:${minute}`;
  },
  taxIdLine: (taxId) => `P.IVA ${taxId}`,
  // The RT knows two kinds of payment (rtDocumentOf): cash, and every other means as electronic.
  paymentLabel: (method) => (paymentMethodOf(method).kind === 'cash' ? 'PAGAMENTO CONTANTE' : 'PAGAMENTO ELETTRONICO'),
  itemTax: 'rate',
  vat: 'included',
  labels: {
    receipt: 'Documento',
    operations: { sale: 'Vendita', return: 'Reso', exchange: 'Cambio' },
    operation: 'Operazione',
    documentNumber: 'Documento N.',
    date: 'Data',
    register: 'Cassa',
    discount: 'Sconto',
    total: 'TOTALE COMPLESSIVO',
    tip: 'Mancia',
    taxIncluded: 'DI CUI IVA',
    payments: null,
    sections: { meta: 'Dati del documento', items: 'Articoli', total: 'Totale', taxes: 'IVA' },
    itemColumns: ['Descrizione', 'Prezzo', 'IVA'],
    taxColumns: ['Aliquota', 'Imponibile', 'Imposta', 'Totale'],
    taxTotal: 'Totale',
  },
};

/** By the ISO 3166-1 alpha-3 code of the location's country; any other country gets the German receipt. */
const RECEIPT_LOCALES: Readonly<Record<string, ReceiptLocale>> = { ITA: ITALIAN };

/** The locale of a receipt issued in `countryCode` (alpha-3 as addresses store it, or alpha-2). */
export function receiptLocaleOf(countryCode: string): ReceiptLocale {
  const code = countryCode.toUpperCase();
  return RECEIPT_LOCALES[code.length === 2 ? (alpha3Of(code) ?? code) : code] ?? GERMAN;
}
