import type { AppContext } from '../../context.js';
import type { Merchant, Prisma } from '../../db/generated/client.js';
import { sqlOf } from '../../db/sql.js';
import { notFound, unprocessable } from '../../domain/errors.js';
import { channelDriverNamed } from '../../einvoicing/channels/channelDrivers.js';
import { newId } from '../../lib/ids.js';
import type { Finalize } from '../common/transactions.js';
import type { ConfiguredChannel } from './presenter.js';
import type { PutInvoiceChannelInput } from './schemas.js';

/**
 * Configures the organization's channel for a jurisdiction: the driver checks the account with
 * its intermediary first (422 with the field when refused; nothing is stored then), then the
 * account's configuration (created, or updated when the same account is configured again) and
 * the channel pointing at it are written in one transaction. Invoices submitted from now on go
 * through it; those already received stay with the channel that received them.
 */
export async function putInvoiceChannel(
  ctx: AppContext,
  organization: Merchant,
  jurisdiction: 'IT' | 'DE',
  input: PutInvoiceChannelInput,
  finalize?: Finalize<ConfiguredChannel>,
): Promise<ConfiguredChannel> {
  // The body schema is the union of the registered drivers' inputs: its driver is one of them.
  const driver = channelDriverNamed((input as { driver: string }).driver);
  const { settings } = ctx.invoiceChannels;
  if (!driver.jurisdictions.includes(jurisdiction)) {
    throw unprocessable('invoice_channel_driver_unsupported', `The ${driver.name} driver carries no invoices of ${jurisdiction}`, { field: 'driver', jurisdictions: driver.jurisdictions });
  }
  if (!driver.environments.includes(settings.environment)) {
    throw unprocessable('invoice_channel_driver_unsupported', `The ${driver.name} driver is not available in ${settings.environment}`, { field: 'driver', environments: driver.environments });
  }
  const provisioned = await driver.provision(input as Record<string, unknown>, settings);
  const secretsSealed = provisioned.secrets ? ctx.secrets.seal(JSON.stringify(provisioned.secrets)) : null;
  const publicSettings = provisioned.settings as Prisma.InputJsonValue;
  return ctx.db.$transaction(async (tx) => {
    const now = ctx.clock();
    const config = await tx.invoiceChannelConfig.upsert({
      where: { merchantId_jurisdiction_driver_accountKey: { merchantId: organization.id, jurisdiction, driver: driver.name, accountKey: provisioned.accountKey } },
      create: {
        id: newId('ichc'),
        merchantId: organization.id,
        jurisdiction,
        driver: driver.name,
        accountKey: provisioned.accountKey,
        settings: publicSettings,
        secretsSealed,
        createdAt: now,
        updatedAt: now,
      },
      update: { settings: publicSettings, secretsSealed, updatedAt: now },
    });
    const channel = await tx.invoiceChannel.upsert({
      where: { merchantId_jurisdiction: { merchantId: organization.id, jurisdiction } },
      create: { merchantId: organization.id, jurisdiction, configId: config.id, createdAt: now, updatedAt: now },
      update: { configId: config.id, updatedAt: now },
      include: { config: true },
    });
    await finalize?.(sqlOf(tx), channel);
    return channel;
  });
}

export async function listInvoiceChannels(ctx: AppContext, organization: Merchant): Promise<ConfiguredChannel[]> {
  return ctx.db.invoiceChannel.findMany({ where: { merchantId: organization.id }, include: { config: true }, orderBy: { jurisdiction: 'asc' } });
}

export async function getInvoiceChannel(ctx: AppContext, organization: Merchant, jurisdiction: string): Promise<ConfiguredChannel> {
  const channel = await ctx.db.invoiceChannel.findUnique({
    where: { merchantId_jurisdiction: { merchantId: organization.id, jurisdiction } },
    include: { config: true },
  });
  if (!channel) throw notFound('invoice_channel', jurisdiction);
  return channel;
}

/**
 * Removes the organization's channel: its invoices go through the deployment's default again
 * (the sandbox's SdI simulator; in production, none). The configuration stays, sealed, for the
 * invoices it received, which keep asking it for their notifications.
 */
export async function deleteInvoiceChannel(ctx: AppContext, organization: Merchant, jurisdiction: string): Promise<void> {
  const { count } = await ctx.db.invoiceChannel.deleteMany({ where: { merchantId: organization.id, jurisdiction } });
  if (count === 0) throw notFound('invoice_channel', jurisdiction);
}
