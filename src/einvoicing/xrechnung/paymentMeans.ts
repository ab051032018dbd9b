/** BG-16: the payment means of an XRechnung, from `payment_terms.method`. */
export interface PaymentMeans {
  /** BT-81, UNTDID 4461. */
  typeCode: string;
  /** BT-82. */
  text: string;
  /** A credit transfer (30, 58) must name the payee's account (BR-61, BR-DE-23-a). */
  creditTransfer: boolean;
}

const SEPA_CREDIT_TRANSFER: PaymentMeans = { typeCode: '58', text: 'SEPA-Überweisung', creditTransfer: true };

/**
 * The methods an XRechnung can state from what an invoice request carries. Cards (48, 54, 55)
 * and direct debits (59) are absent on purpose: XRechnung then requires the card number's
 * last digits (BR-DE-24-a) or the mandate, creditor id and debited account (BR-DE-25-a),
 * which a request has no fields for. Matched like payment methods elsewhere: trimmed, any
 * case, a space or hyphen for the underscore.
 */
const MEANS_OF_METHOD: ReadonlyMap<string, PaymentMeans> = new Map([
  ['credit_transfer', SEPA_CREDIT_TRANSFER],
  ['sepa_credit_transfer', SEPA_CREDIT_TRANSFER],
  ['bank_transfer', SEPA_CREDIT_TRANSFER],
  ['ueberweisung', SEPA_CREDIT_TRANSFER],
  ['überweisung', SEPA_CREDIT_TRANSFER],
  ['cash', { typeCode: '10', text: 'Barzahlung', creditTransfer: false }],
  ['bar', { typeCode: '10', text: 'Barzahlung', creditTransfer: false }],
  ['cheque', { typeCode: '20', text: 'Scheck', creditTransfer: false }],
  ['check', { typeCode: '20', text: 'Scheck', creditTransfer: false }],
  ['online', { typeCode: '68', text: 'Online-Zahlungsdienst', creditTransfer: false }],
  ['paypal', { typeCode: '68', text: 'PayPal', creditTransfer: false }],
]);

/** The method names `paymentMeansOf` understands, for error messages. */
export const XRECHNUNG_PAYMENT_METHODS: readonly string[] = [...MEANS_OF_METHOD.keys()].filter((name) => /^[a-z_]+$/.test(name));

/** No method means a SEPA credit transfer, the usual way an invoice is paid in Germany. Undefined: a method XRechnung cannot state. */
export function paymentMeansOf(method: string | null): PaymentMeans | undefined {
  if (method === null) return SEPA_CREDIT_TRANSFER;
  return MEANS_OF_METHOD.get(method.trim().toLowerCase().replace(/[\s-]+/g, '_'));
}
