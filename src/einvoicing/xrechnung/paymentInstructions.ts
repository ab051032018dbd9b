import type { InvoiceContent } from '../invoiceDocument.js';
import type { PaymentMeans } from './paymentMeans.js';
import type { XmlNode } from './xmlNode.js';

/**
 * BG-16, which XRechnung requires (BR-DE-1). A credit transfer names the payee's IBAN (BT-84);
 * other means carry no account (BR-DE-23-b keeps card and debit groups off a transfer, and
 * the other way round).
 */
export function paymentInstructions(means: PaymentMeans, paymentTerms: NonNullable<InvoiceContent['paymentTerms']>): XmlNode {
  const iban = paymentTerms.iban?.replace(/\s+/g, '').toUpperCase();
  return {
    'ram:TypeCode': means.typeCode,
    'ram:Information': means.text,
    ...(means.creditTransfer && iban ? { 'ram:PayeePartyCreditorFinancialAccount': { 'ram:IBANID': iban } } : {}),
  };
}
