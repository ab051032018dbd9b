import type { InvoiceContent } from '../invoiceDocument.js';
import { amount2 } from './amounts.js';
import { modalitaPagamentoOf } from './paymentMethod.js';
import { normalizedIban } from './taxIds.js';

export interface DettaglioPagamento {
  ModalitaPagamento: string;
  DataScadenzaPagamento?: string;
  ImportoPagamento: string;
  IBAN?: string;
}

export interface DatiPagamento {
  CondizioniPagamento: 'TP01' | 'TP02';
  DettaglioPagamento: DettaglioPagamento[];
}

/**
 * DatiPagamento of the payment terms: installments are a payment in instalments (TP01), one
 * DettaglioPagamento each; otherwise one full payment (TP02) of the document total, due on
 * the due date when there is one. The IBAN goes with every DettaglioPagamento.
 */
export function datiPagamentoOf(invoice: InvoiceContent): DatiPagamento | undefined {
  const terms = invoice.paymentTerms;
  if (terms === null) return undefined;
  const modalita = modalitaPagamentoOf(terms.method);
  if (modalita === undefined) throw new RangeError(`payment method ${JSON.stringify(terms.method)} has no ModalitaPagamento`);
  const iban = terms.iban ? { IBAN: normalizedIban(terms.iban) } : {};
  const detail = (amount: number, dueDate: string | null): DettaglioPagamento => ({
    ModalitaPagamento: modalita,
    ...(dueDate ? { DataScadenzaPagamento: dueDate } : {}),
    ImportoPagamento: amount2(amount, invoice.currency),
    ...iban,
  });
  return terms.installments.length > 0
    ? { CondizioniPagamento: 'TP01', DettaglioPagamento: terms.installments.map((installment) => detail(installment.amount, installment.dueDate)) }
    : { CondizioniPagamento: 'TP02', DettaglioPagamento: [detail(invoice.totals.gross, terms.dueDate)] };
}
