export type ModalitaPagamento = 'MP01' | 'MP02' | 'MP03' | 'MP05' | 'MP08' | 'MP12' | 'MP13' | 'MP18' | 'MP19' | 'MP20' | 'MP21' | 'MP23';

/**
 * `payment_terms.method` -> ModalitaPagamento. Methods are matched as people write them
 * (trimmed, any case, a space or hyphen for the underscore). Without a method the payment is
 * a credit transfer (MP05), the ordinary B2B payment and the one an IBAN stands for.
 */
const MODALITA_PAGAMENTO: Readonly<Record<string, ModalitaPagamento>> = {
  cash: 'MP01',
  cheque: 'MP02',
  check: 'MP02',
  cashiers_cheque: 'MP03',
  credit_transfer: 'MP05',
  bank_transfer: 'MP05',
  sepa_credit_transfer: 'MP05',
  card: 'MP08',
  credit_card: 'MP08',
  debit_card: 'MP08',
  riba: 'MP12',
  mav: 'MP13',
  postal_slip: 'MP18',
  direct_debit: 'MP19',
  sepa_direct_debit: 'MP19',
  sepa_direct_debit_core: 'MP20',
  sepa_direct_debit_b2b: 'MP21',
  pagopa: 'MP23',
};

export const SUPPORTED_PAYMENT_METHODS: readonly string[] = Object.keys(MODALITA_PAGAMENTO);

const matchable = (method: string) => method.trim().toLowerCase().replace(/[\s-]+/g, '_');

/** The code for a method, MP05 without one, or undefined for a method this format does not know. */
export function modalitaPagamentoOf(method: string | null): ModalitaPagamento | undefined {
  return method === null ? 'MP05' : MODALITA_PAGAMENTO[matchable(method)];
}
