import type { InvoiceContent } from '../invoiceDocument.js';
import { ciiAmount, dateTimeString } from './ciiValues.js';
import type { XmlNode } from './xmlNode.js';

/** 2025-03-01 as 01.03.2025. */
const germanDate = (date: string) => date.split('-').reverse().join('.');

/** 1234.50 as 1234,50. */
const germanAmount = (minor: number, currency: string) => `${ciiAmount(minor, currency).replace('.', ',')} ${currency}`;

/**
 * BT-20 and BT-9 (BR-CO-25 wants one of them). Installments are stated in the terms text,
 * each with its amount and date, and the earliest date is the due date; otherwise the text
 * repeats the due date. CII has room for one payment terms group in EN 16931.
 */
export function paymentTerms(terms: NonNullable<InvoiceContent['paymentTerms']>, currency: string): XmlNode | null {
  const installments = [...terms.installments].sort((a, b) => a.dueDate.localeCompare(b.dueDate));
  const dueDate = terms.dueDate ?? installments[0]?.dueDate ?? null;
  if (!dueDate) return null;
  const description = installments.length
    ? installments.map((installment, index) => `${index + 1}. Rate: ${germanAmount(installment.amount, currency)} fällig am ${germanDate(installment.dueDate)}`).join('; ')
    : `Zahlbar bis ${germanDate(dueDate)}`;
  return {
    'ram:Description': description,
    'ram:DueDateDateTime': { 'udt:DateTimeString': dateTimeString(dueDate) },
  };
}
