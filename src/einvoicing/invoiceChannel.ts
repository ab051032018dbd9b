/**
 * Where a submitted invoice goes after it is built: a clearance or exchange system that
 * receives the file, says it has it, and later tells what became of it (Italy: the SdI). A
 * jurisdiction without one (Germany) has no channel: its invoices are transmitted when
 * submitted. A real client (SDICoop) and the sandbox's simulator implement the same interface.
 */
export interface TransmittedFile {
  fileName: string;
  /** The document exactly as stored. */
  document: Uint8Array;
}

/** A file as the channel received it: the identifier it gave the file, and when (its receipt). */
export interface ReceivedFile {
  identifier: string;
  receivedAt: Date;
}

export interface ChannelError {
  code: string;
  message: string;
}

/** The channel's answer to a file handed over: its identifier for the file, or why it could not be reached. */
export type ChannelReceipt = { outcome: 'received'; identifier: string } | { outcome: 'unreachable'; errors: ChannelError[] };

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
  /** Hands the file over. */
  send(file: TransmittedFile): Promise<ChannelReceipt>;
  /**
   * The next notification about a file the channel received, or null while there is none;
   * `more` says whether further ones may follow through this call.
   */
  nextNotification(file: TransmittedFile, received: ReceivedFile): Promise<{ notification: ChannelNotification; more: boolean } | null>;
  /** How long after a look that found nothing (or after the receipt) to look again. */
  pollDelayMs: number;
  /**
   * Sandbox only: the notification the recipient's answer `event` gives for this file, or a
   * reason why this file gets no such answer (the channel makes none: production).
   */
  simulateRecipient?(file: TransmittedFile, event: RecipientSimulation): ChannelNotification | { refused: string };
}
