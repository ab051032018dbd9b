/**
 * The states of an invoice (contract 3.5) and what moves it between them. Every change goes
 * through `nextInvoiceState`; a pair it does not list is 409 invoice_invalid_state.
 */
export const INVOICE_STATES = [
  'draft',
  'submitted',
  'transmitted',
  'delivered',
  'accepted',
  'undeliverable',
  'rejected_by_authority',
  'cancellation_requested',
  'cancelled',
] as const;
export type InvoiceState = (typeof INVOICE_STATES)[number];

/**
 * What happened to the invoice. The authority's answers are channel-neutral: the SdI's RC is
 * `delivered`, NS `rejected`, MC `undeliverable`, NE EC01 `recipient_accepted`, NE EC02
 * `recipient_refused`, DT `deadline_passed`.
 */
export const INVOICE_EVENTS = [
  'created',
  'submitted',
  'received_by_authority',
  'rejected',
  'delivered',
  'undeliverable',
  'recipient_accepted',
  'recipient_refused',
  'deadline_passed',
  'implicitly_accepted',
  'cancelled_as_draft',
  'cancellation_requested',
  'cancellation_confirmed',
  'cancellation_failed',
] as const;
export type InvoiceEvent = (typeof INVOICE_EVENTS)[number];

/** The states a credit note cancels: the invoice exists fiscally (DESIGN "Cancel"). */
export const CANCELLABLE_BY_CREDIT_NOTE: readonly InvoiceState[] = ['transmitted', 'delivered', 'accepted', 'undeliverable'];

/** The states in which an invoice's channel may still give its answer to the file (see TRANSITIONS). */
export const AWAITING_CHANNEL_ANSWER: readonly InvoiceState[] = ['transmitted', 'cancellation_requested'];

/**
 * From -> to per event, and the states in which the event happens without leaving them
 * (`keeps`). `undeliverable` also comes straight from submitted when the channel refuses the
 * recipient as the file is handed over (an e-mail server's 5xx): the invoice is issued, numbered
 * and chained, but never reached the buyer. `rejected` also comes straight from submitted when
 * the channel refuses the file itself as it is handed over (an intermediary's validation on the
 * SdI's behalf): like the SdI's NS, the invoice was never issued. `recipient_refused` leaves a
 * delivered invoice delivered (its delivery_status says refused). An invoice cancelled while
 * its authority had not answered yet (`transmitted`) still gets that answer: delivered or
 * undeliverable, it stays cancellation_requested with the answer recorded; rejected, it never
 * existed fiscally and is rejected_by_authority, whatever becomes of the credit note.
 * `cancellation_failed` (the credit note was rejected) returns the invoice to the state it had
 * before the cancellation was requested, or that the authority's answer gave it since.
 */
const TRANSITIONS: Readonly<Record<InvoiceEvent, { from: readonly (InvoiceState | null)[]; to: InvoiceState | 'previous'; keeps?: readonly InvoiceState[] }>> = {
  created: { from: [null], to: 'draft' },
  submitted: { from: ['draft'], to: 'submitted' },
  received_by_authority: { from: ['submitted'], to: 'transmitted' },
  rejected: { from: ['submitted', 'transmitted', 'cancellation_requested'], to: 'rejected_by_authority' },
  delivered: { from: ['transmitted'], to: 'delivered', keeps: ['cancellation_requested'] },
  undeliverable: { from: ['submitted', 'transmitted'], to: 'undeliverable', keeps: ['cancellation_requested'] },
  recipient_accepted: { from: ['delivered'], to: 'accepted' },
  recipient_refused: { from: ['delivered'], to: 'delivered' },
  deadline_passed: { from: ['delivered'], to: 'accepted' },
  implicitly_accepted: { from: ['delivered'], to: 'accepted' },
  cancelled_as_draft: { from: ['draft'], to: 'cancelled' },
  cancellation_requested: { from: CANCELLABLE_BY_CREDIT_NOTE, to: 'cancellation_requested' },
  cancellation_confirmed: { from: ['cancellation_requested'], to: 'cancelled' },
  cancellation_failed: { from: ['cancellation_requested'], to: 'previous' },
};

/**
 * The channel's answers an invoice takes while its cancellation is pending (TRANSITIONS'
 * `keeps`), each with the state it gives the invoice should the cancellation fail.
 */
export const STATE_OF_ANSWER: Partial<Record<InvoiceEvent, InvoiceState>> = Object.fromEntries(
  Object.entries(TRANSITIONS).flatMap(([event, rule]) => (rule.keeps?.includes('cancellation_requested') && rule.to !== 'previous' ? [[event, rule.to]] : [])),
);

/**
 * The state `event` leads to from `from` (null: the invoice does not exist yet), or null when
 * the event cannot happen there. `previous` is the state to return to, for `cancellation_failed`.
 */
export function nextInvoiceState(from: InvoiceState | null, event: InvoiceEvent, previous?: InvoiceState): InvoiceState | null {
  const rule = TRANSITIONS[event];
  if (from !== null && rule.keeps?.includes(from)) return from;
  if (!rule.from.includes(from)) return null;
  if (rule.to !== 'previous') return rule.to;
  return previous && CANCELLABLE_BY_CREDIT_NOTE.includes(previous) ? previous : null;
}

/**
 * The states of an invoice a credit or debit note may correct: submitted and not rejected,
 * not cancelled, and not already being cancelled.
 */
export const CORRECTABLE_STATES: readonly InvoiceState[] = ['submitted', ...CANCELLABLE_BY_CREDIT_NOTE];
