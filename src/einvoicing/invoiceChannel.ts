/**
 * Where a submitted invoice goes after it is built: a clearance or exchange system that
 * receives the file, says it has it, and later tells what became of it (Italy: the SdI), or
 * the buyer's own address (Germany: e-mail). A jurisdiction without a default channel
 * (Germany) transmits its invoices when submitted unless the organization configured one. A
 * real client (SDICoop) and the sandbox's simulator implement the same interface.
 */
export interface TransmittedFile {
  fileName: string;
  /** The document exactly as stored. */
  document: Uint8Array;
}

/**
 * A file as the channel received it: the identifier it gave the file, when (its receipt), and
 * the identifiers of its notifications already applied to the invoice.
 */
export interface ReceivedFile {
  identifier: string;
  receivedAt: Date;
  appliedNotificationIds: readonly string[];
}

/**
 * The invoice a file belongs to, for a channel that addresses the buyer itself (e-mail): its
 * id (stable across attempts), its number, and the buyer's electronic address (BT-49).
 */
export interface TransmissionEnvelope {
  invoiceId: string;
  invoiceNumber: string;
  buyerEmail: string | null;
}

export interface ChannelError {
  code: string;
  message: string;
}

/**
 * The channel's answer to a file handed over: its identifier for the file, its refusal of the
 * file or of the recipient, or why it could not be reached. A refusal is applied as the
 * notification of the same name would be.
 */
export type ChannelReceipt =
  /** `notifies: false`: the channel says nothing more about the file (e-mail: the server's 250 is its last word). */
  | { outcome: 'received'; identifier: string; notifies?: boolean }
  /**
   * The channel refused the file itself as invalid (an intermediary's validation, on the SdI's
   * behalf): as with the SdI's NS, the invoice is not issued, and the same file never will be.
   */
  | { outcome: 'rejected'; errors: ChannelError[] }
  /** The channel refused the recipient for good (an SMTP 5xx): the file was not and will not be delivered. */
  | { outcome: 'undeliverable'; errors: ChannelError[] }
  /** `retryAfterMs`: the channel asked not to be called again before then (HTTP 429 Retry-After). */
  | { outcome: 'unreachable'; errors: ChannelError[]; retryAfterMs?: number };

/**
 * A notification as the channel gives it; `id`, when the channel numbers its notifications, is
 * recorded with the invoice once applied and handed back in `appliedNotificationIds`.
 */
export interface ChannelAnswer {
  notification: ChannelNotification;
  id?: string;
  /** Whether further notifications may follow through nextNotification. */
  more: boolean;
}

/** What the channel says later about a file it received; the kinds are the invoice's events. */
export type ChannelNotification =
  | { kind: 'rejected'; errors: ChannelError[] }
  /** `acceptedAfterDays`: the recipient's silence for that long counts as acceptance (null: it does not). */
  | { kind: 'delivered'; acceptedAfterDays: number | null }
  | { kind: 'undeliverable'; errors: ChannelError[] }
  | { kind: 'recipient_accepted' }
  | { kind: 'recipient_refused'; errors: ChannelError[] }
  | { kind: 'deadline_passed' };

/** The recipient's answers the sandbox can simulate (DESIGN: POST /v1/invoices/{id}/simulate). */
export const RECIPIENT_SIMULATIONS = ['recipient_accepted', 'recipient_refused', 'deadline_passed'] as const;
export type RecipientSimulation = (typeof RECIPIENT_SIMULATIONS)[number];

export interface InvoiceChannel {
  /** The driver's name, shown with the invoices it carries (fiscal.jurisdiction_data.channel). */
  name: string;
  /** Hands the file over. */
  send(file: TransmittedFile, envelope: TransmissionEnvelope): Promise<ChannelReceipt>;
  /**
   * The next notification about a file the channel received (one not yet applied), or null
   * while there is none; throws when the channel cannot be asked now (the worker asks again).
   */
  nextNotification(file: TransmittedFile, received: ReceivedFile): Promise<ChannelAnswer | null>;
  /** How long after a look that found nothing (or after the receipt) to look again. */
  pollDelayMs: number;
  /**
   * Sandbox only: the notification the recipient's answer `event` gives for this file, or a
   * reason why this file gets no such answer (the channel makes none: production).
   */
  simulateRecipient?(file: TransmittedFile, event: RecipientSimulation): ChannelNotification | { refused: string };
  /** Ends the connections it keeps (a client certificate's TLS sessions), when it has any. */
  close?(): Promise<void>;
}
