import type { InvoiceContent } from '../invoiceDocument.js';
import { ciiAmount } from './ciiValues.js';
import type { VatBreakdownEntry } from './vatBreakdown.js';
import type { XmlNode } from './xmlNode.js';

/**
 * BG-22. Every total follows from the lines and the breakdown (BR-CO-10, BR-CO-13 to BR-CO-16;
 * there are no document-level allowances, charges or prepayments), so the document's
 * arithmetic holds by construction. The invoice's own totals must be the same numbers: a
 * document that disagreed with the invoice it stands for must never be issued, so a
 * disagreement is a defect upstream and throws.
 */
export function monetarySummation(invoice: InvoiceContent, breakdown: readonly VatBreakdownEntry[]): XmlNode {
  const lineTotal = invoice.lines.reduce((sum, line) => sum + line.netAmount, 0);
  const taxBasis = breakdown.reduce((sum, entry) => sum + entry.taxableAmount, 0);
  const taxTotal = breakdown.reduce((sum, entry) => sum + entry.taxAmount, 0);
  const grandTotal = lineTotal + taxTotal;
  const { totals } = invoice;
  if (taxBasis !== lineTotal || totals.net !== lineTotal || totals.tax !== taxTotal || totals.gross !== grandTotal) {
    throw new Error(
      `invoice amounts disagree: lines net ${lineTotal}, VAT breakdown taxable ${taxBasis} and tax ${taxTotal}, ` +
        `totals net ${totals.net}, tax ${totals.tax}, gross ${totals.gross} (minor units)`,
    );
  }
  const amount = (minor: number) => ciiAmount(minor, invoice.currency);
  return {
    'ram:LineTotalAmount': amount(lineTotal),
    'ram:TaxBasisTotalAmount': amount(lineTotal),
    'ram:TaxTotalAmount': { '@_currencyID': invoice.currency, '#text': amount(taxTotal) },
    'ram:GrandTotalAmount': amount(grandTotal),
    'ram:DuePayableAmount': amount(grandTotal),
  };
}
