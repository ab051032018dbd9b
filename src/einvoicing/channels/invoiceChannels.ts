import type { Prisma } from '../../db/database.js';
import type { Tx } from '../../db/transaction.js';
import type { Invoice, InvoiceChannelConfig } from '../../db/generated/client.js';
import type { SecretBox } from '../../lib/secretBox.js';
import type { InvoiceChannel } from '../invoiceChannel.js';
import { jurisdictionOf } from '../jurisdictions/index.js';
import type { ChannelSettings } from '../jurisdictions/invoiceJurisdiction.js';
import { channelDriverNamed } from './channelDrivers.js';

/** A channel and the organization's configuration it was opened from (null: the deployment's default). */
export interface ResolvedChannel {
  channel: InvoiceChannel;
  configId: string | null;
}

/**
 * Which channel carries an invoice: to send, the organization's configured channel for the
 * invoice's jurisdiction, else the jurisdiction's default; for a file already received, the
 * channel that received it (invoices.channel_config_id), whatever the organization configured
 * since. Opened channels are kept per configuration and its version, so an intermediary's
 * token serves many invoices; a configuration updated since (a new password) opens afresh.
 */
export class InvoiceChannels {
  private readonly opened = new Map<string, { version: number; channel: InvoiceChannel }>();

  constructor(
    private readonly db: Prisma,
    private readonly secrets: SecretBox,
    readonly settings: ChannelSettings,
  ) {}

  /** `db`: the caller's transaction when it holds one (a submission: a single-connection database has no other). */
  async forSending(invoice: Pick<Invoice, 'merchantId' | 'jurisdiction'>, db: Tx | Prisma = this.db): Promise<ResolvedChannel | null> {
    const configured = await db.invoiceChannel.findUnique({
      where: { merchantId_jurisdiction: { merchantId: invoice.merchantId, jurisdiction: invoice.jurisdiction } },
      include: { config: true },
    });
    return configured ? { channel: this.open(configured.config), configId: configured.config.id } : this.defaultOf(invoice.jurisdiction);
  }

  /** `db`: the caller's transaction when it holds one (a single-connection database has no other). */
  async forReceived(invoice: Pick<Invoice, 'jurisdiction' | 'channelConfigId'>, db: Tx | Prisma = this.db): Promise<ResolvedChannel | null> {
    if (!invoice.channelConfigId) return this.defaultOf(invoice.jurisdiction);
    const config = await db.invoiceChannelConfig.findUniqueOrThrow({ where: { id: invoice.channelConfigId } });
    return { channel: this.open(config), configId: config.id };
  }

  private defaultOf(jurisdiction: string): ResolvedChannel | null {
    const channel = jurisdictionOf(jurisdiction).channel(this.settings);
    return channel ? { channel, configId: null } : null;
  }

  private open(config: InvoiceChannelConfig): InvoiceChannel {
    const version = config.updatedAt.getTime();
    const cached = this.opened.get(config.id);
    if (cached?.version === version) return cached.channel;
    const secrets = config.secretsSealed ? (JSON.parse(this.secrets.open(config.secretsSealed)) as Record<string, string>) : null;
    const channel = channelDriverNamed(config.driver).open({ id: config.id, settings: config.settings as Record<string, unknown>, secrets }, this.settings, this.db);
    this.opened.set(config.id, { version, channel });
    // The channel of the configuration's earlier version ends its connections once its calls are answered.
    void cached?.channel.close?.();
    return channel;
  }

  /** Ends the connections of every channel opened (the service is stopping). */
  async close(): Promise<void> {
    const channels = [...this.opened.values()].map(({ channel }) => channel);
    this.opened.clear();
    await Promise.all(channels.map((channel) => channel.close?.()));
  }
}
