import type { InvoiceChannel, InvoiceChannelConfig } from '../../db/generated/client.js';
import { channelDriverNamed } from '../../einvoicing/channels/channelDrivers.js';
import type { HttpResult } from '../../http/idempotency.js';
import type { InvoiceChannelViewData } from './schemas.js';

export type ConfiguredChannel = InvoiceChannel & { config: InvoiceChannelConfig };

/**
 * The channel with its configuration's public settings, as its driver shows them (an sdicoop
 * configuration's notification_url is under `publicBaseUrl`); the sealed secrets never leave the
 * database row.
 */
export function presentInvoiceChannel(channel: ConfiguredChannel, publicBaseUrl: string): InvoiceChannelViewData {
  const stored = { id: channel.config.id, settings: channel.config.settings as Record<string, unknown> };
  return {
    object: 'invoice_channel',
    organization_id: channel.merchantId,
    jurisdiction: channel.jurisdiction,
    driver: channel.config.driver,
    config_id: channel.config.id,
    settings: channelDriverNamed(channel.config.driver).shownSettings?.(stored, publicBaseUrl) ?? stored.settings,
    created_at: channel.createdAt.toISOString(),
    updated_at: channel.updatedAt.toISOString(),
  };
}

export const invoiceChannelResult = (channel: ConfiguredChannel, publicBaseUrl: string): HttpResult => ({ status: 200, body: presentInvoiceChannel(channel, publicBaseUrl) });
