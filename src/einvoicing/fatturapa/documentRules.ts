import { currencyExponent, fromMinorUnits } from '../../domain/money.js';
import type { RuleViolation } from '../../domain/violation.js';
import type { InvoiceContent } from '../invoiceDocument.js';
import { NUMERO_LENGTH } from './buildFatturaPa.js';
import { AMOUNT_LIMIT } from './lineRules.js';
import { SUPPORTED_PAYMENT_METHODS, modalitaPagamentoOf } from './paymentMethod.js';
import { IBAN, normalizedIban } from './taxIds.js';
import { CODICE_DESTINATARIO, NO_RECIPIENT_CODE } from './transmissionFormat.js';
import { violation } from './violation.js';
import { textProblem } from './xmlText.js';

/** NumeroLinea counts to 9999; DettaglioLinee occurs at least once. */
const MAX_LINES = 9999;
/** EmailType: a dot-atom local part and domain (the XSD's quoted and literal forms are not accepted here), at most 256 characters. */
const PEC_ADDRESS = /^[!#-'*+/-9=?A-Z^-~-]+(\.[!#-'*+/-9=?A-Z^-~-]+)*@[!#-'*+/-9=?A-Z^-~-]+(\.[!#-'*+/-9=?A-Z^-~-]+)*$/;
const PEC_LENGTH = 256;

function routingViolations(invoice: InvoiceContent): RuleViolation[] {
  const { codiceDestinatario, pecAddress } = invoice.routing;
  const violations: RuleViolation[] = [];
  if (codiceDestinatario === null) {
    violations.push(violation('routing.codice_destinatario', 'An Italian invoice needs routing.codice_destinatario: the recipient’s 7-character code, 0000000, or a public administration’s 6-character office code.'));
  } else if (!CODICE_DESTINATARIO.test(codiceDestinatario)) {
    violations.push(violation('routing.codice_destinatario', 'codice_destinatario must be 6 (public administration) or 7 (business, 0000000 without a code) upper-case letters and digits.'));
  }
  // The PEC address is written only with 0000000; the SdI refuses it beside any other code (00426).
  if (pecAddress !== null && codiceDestinatario === NO_RECIPIENT_CODE) {
    const pec = pecAddress.trim();
    if (pec.length > PEC_LENGTH || !PEC_ADDRESS.test(pec)) {
      violations.push(violation('routing.pec_address', 'pec_address must be an e-mail address (local-part@domain) of at most 256 characters.'));
    }
  }
  return violations;
}

function currencyViolations(invoice: InvoiceContent): RuleViolation[] {
  if (!/^[A-Z]{3}$/.test(invoice.currency)) {
    return [violation('currency', 'currency must be an ISO 4217 code in upper case (DivisaType).')];
  }
  if (currencyExponent(invoice.currency) > 2) {
    return [violation('currency', `FatturaPA writes amounts with two decimals: ${invoice.currency} has ${currencyExponent(invoice.currency)}.`)];
  }
  if (fromMinorUnits(invoice.totals.gross, invoice.currency).abs().gte(AMOUNT_LIMIT) || fromMinorUnits(invoice.totals.net, invoice.currency).abs().gte(AMOUNT_LIMIT)) {
    return [violation('line_items', 'FatturaPA writes totals below 100,000,000,000 in the invoice currency.')];
  }
  return [];
}

/** DataFatturaType starts at 1970-01-01. */
const FIRST_ISSUE_DATE = '1970-01-01';

function dateViolations(invoice: InvoiceContent): RuleViolation[] {
  return invoice.issueDate < FIRST_ISSUE_DATE ? [violation('issue_date', `FatturaPA accepts issue dates from ${FIRST_ISSUE_DATE}.`)] : [];
}

function noteViolations(invoice: InvoiceContent): RuleViolation[] {
  return invoice.notes.flatMap((note, i) => {
    // Any length: a long note is written as several Causale of 200 characters.
    const problem = textProblem(note, 'latin1', Number.POSITIVE_INFINITY);
    return problem ? [violation(`notes[${i}]`, `The note ${problem}.`)] : [];
  });
}

/** The purchase order and contract references are IdDocumento (String20). A credit note's original is the invoice resource's rule. */
function referenceViolations(invoice: InvoiceContent): RuleViolation[] {
  const { purchaseOrderRef, contractRef } = invoice.references;
  return (
    [
      [purchaseOrderRef, 'references.purchase_order_ref'],
      [contractRef, 'references.contract_ref'],
    ] as const
  ).flatMap(([value, field]) => {
    const problem = value ? textProblem(value, 'ascii', NUMERO_LENGTH) : undefined;
    return problem ? [violation(field, `The reference is FatturaPA's IdDocumento, which ${problem}.`)] : [];
  });
}

function paymentViolations(invoice: InvoiceContent): RuleViolation[] {
  const terms = invoice.paymentTerms;
  if (terms === null) return [];
  const violations: RuleViolation[] = [];
  if (modalitaPagamentoOf(terms.method) === undefined) {
    violations.push(violation('payment_terms.method', `FatturaPA knows no payment method ${JSON.stringify(terms.method)}; use one of ${SUPPORTED_PAYMENT_METHODS.join(', ')}.`));
  }
  terms.installments.forEach((installment, i) => {
    if (fromMinorUnits(installment.amount, invoice.currency).abs().gte(AMOUNT_LIMIT)) {
      violations.push(violation(`payment_terms.installments[${i}].amount`, 'FatturaPA writes amounts below 100,000,000,000 in the invoice currency.'));
    }
  });
  if (terms.iban !== null && !IBAN.test(normalizedIban(terms.iban))) {
    violations.push(violation('payment_terms.iban', 'iban must be a country code, two check digits and 11 to 30 letters or digits.'));
  }
  return violations;
}

/** Rules of the document as a whole: routing, currency, issue date, notes, references, payment terms, the number of lines. */
export function documentViolations(invoice: InvoiceContent): RuleViolation[] {
  return [
    ...routingViolations(invoice),
    ...currencyViolations(invoice),
    ...dateViolations(invoice),
    ...(invoice.lines.length === 0 ? [violation('line_items', 'A FatturaPA document has at least one line.')] : []),
    ...(invoice.lines.length > MAX_LINES ? [violation('line_items', `FatturaPA numbers at most ${MAX_LINES} lines.`)] : []),
    ...noteViolations(invoice),
    ...referenceViolations(invoice),
    ...paymentViolations(invoice),
  ];
}
