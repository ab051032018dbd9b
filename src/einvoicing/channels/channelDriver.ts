import type { z } from 'zod';
import type { Prisma } from '../../db/database.js';
import type { InvoiceChannel } from '../invoiceChannel.js';
import type { InvoiceJurisdictionCode } from '../invoiceDocument.js';
import type { ChannelSettings } from '../jurisdictions/invoiceJurisdiction.js';

/**
 * What a driver keeps of an organization's account, from its PUT body checked with the
 * intermediary: the public settings the API shows, the secrets sealed at rest (passwords, a
 * client certificate's private key and the like, each as a string), and the account's key: a
 * PUT with the same key updates the same configuration rather than making a new one.
 */
export interface ProvisionedChannel {
  accountKey: string;
  settings: Record<string, unknown>;
  secrets: Record<string, string> | null;
}

/** A stored configuration as a driver opens it: its id, public settings and opened secrets. */
export interface StoredChannelConfig {
  id: string;
  settings: Record<string, unknown>;
  secrets: Record<string, string> | null;
}

/**
 * One way an organization's invoices reach their clearance or exchange system (DESIGN
 * "Production drivers and authority clients"), registered in channelDrivers.ts; shared code
 * reads drivers only through this interface.
 */
export interface InvoiceChannelDriver {
  /** The `driver` of the PUT body and of the stored configuration. */
  name: string;
  jurisdictions: readonly InvoiceJurisdictionCode[];
  /** The deployments in which an organization may choose it (the simulator: the sandbox only). */
  environments: readonly ChannelSettings['environment'][];
  /** Its PUT body: `driver` as a literal, then its own fields (secrets among them). */
  input: z.ZodObject<{ driver: z.ZodLiteral<string> } & z.ZodRawShape>;
  /**
   * Checks the body with the intermediary (a login that must give a token) and returns what is
   * stored; throws a DomainError (422, the field in details) when the intermediary refuses it.
   */
  provision(input: Record<string, unknown>, settings: ChannelSettings): Promise<ProvisionedChannel>;
  /** The channel a stored configuration opens; `db` holds what the channel's service pushed to this one (SDICoop's notifications). */
  open(config: StoredChannelConfig, settings: ChannelSettings, db: Prisma): InvoiceChannel;
  /**
   * The settings the API shows, when they are not the stored ones as they are (what is derived
   * from the configuration's id, such as the URL the authority must push to); `publicBaseUrl`
   * is where the service is reached.
   */
  shownSettings?(config: Omit<StoredChannelConfig, 'secrets'>, publicBaseUrl: string): Record<string, unknown>;
}
