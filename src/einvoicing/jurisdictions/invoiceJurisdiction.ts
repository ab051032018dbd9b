import type { DocumentSigning } from '../documentSigning.js';
import type { EInvoiceFormat } from '../einvoiceFormat.js';
import type { InvoiceChannel } from '../invoiceChannel.js';
import type { InvoiceJurisdictionCode } from '../invoiceDocument.js';

/** What picks and paces a jurisdiction's channel: the service's environment, the sandbox simulators' and the intermediaries' settings. */
export interface ChannelSettings {
  environment: 'sandbox' | 'production';
  /** How long the sandbox's SdI takes to answer. */
  sdiSimulatorDelayMs: number;
  /** Bound on one call to an intermediary. */
  timeoutMs: number;
  /** How often an intermediary is asked for notifications. */
  pollMs: number;
}

/**
 * Everything the invoices resource needs to know about one jurisdiction; a new jurisdiction
 * is a new file beside italy.ts and germany.ts, registered in index.ts.
 */
export interface InvoiceJurisdiction {
  code: InvoiceJurisdictionCode;
  /** The organization's fiscal identity (its country_code, contract 2.1) that gives the seller's tax id. */
  fiscalIdentityCountry: string;
  /** The seller's default tax id from that identity: a VAT id with its country prefix, or null. */
  sellerVatIdOf(identity: Record<string, unknown>): string | null;
  /** Local dates (the default issue date, "today") are read in this zone. */
  timeZone: string;
  /** The language of the invoice's PDF. */
  language: 'it' | 'de';
  format: EInvoiceFormat;
  /** How its documents are signed with the organization's fiscal certificate; null: they are not. */
  signing: DocumentSigning | null;
  /**
   * Where submitted invoices go when the organization configured no channel of its own (the
   * deployment's default); null: there is nowhere to clear them, they are transmitted when submitted.
   */
  channel(settings: ChannelSettings): InvoiceChannel | null;
}
