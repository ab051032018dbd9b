import type { InvoiceChannel, InvoiceChannelConfig } from '../../db/generated/client.js';
import type { HttpResult } from '../../http/idempotency.js';
import type { InvoiceChannelViewData } from './schemas.js';

export type ConfiguredChannel = InvoiceChannel & { config: InvoiceChannelConfig };

/** The channel with its configuration's public settings; the sealed secrets never leave the database row. */
export function presentInvoiceChannel(channel: ConfiguredChannel): InvoiceChannelViewData {
  return {
    object: 'invoice_channel',
    organization_id: channel.merchantId,
    jurisdiction: channel.jurisdiction,
    driver: channel.config.driver,
    config_id: channel.config.id,
    settings: channel.config.settings as Record<string, unknown>,
    created_at: channel.createdAt.toISOString(),
    updated_at: channel.updatedAt.toISOString(),
  };
}

export const invoiceChannelResult = (channel: ConfiguredChannel): HttpResult => ({ status: 200, body: presentInvoiceChannel(channel) });
