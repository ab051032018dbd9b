import { z } from 'zod';
import { INVOICE_CHANNEL_DRIVERS } from '../../einvoicing/channels/channelDrivers.js';
import { Timestamp } from '../common/schemas.js';
import { OrganizationParams } from '../styleO/schemas.js';

export const InvoiceChannelJurisdiction = z.enum(['IT', 'DE']).describe("The invoices' jurisdiction (contract 3.5)");

export const InvoiceChannelParams = OrganizationParams.extend({ jurisdiction: InvoiceChannelJurisdiction });

/** One body per registered driver, told apart by `driver`. */
const [firstInput, ...otherInputs] = INVOICE_CHANNEL_DRIVERS.map((driver) => driver.input);
export const PutInvoiceChannelBody = z
  .discriminatedUnion('driver', [firstInput, ...otherInputs])
  .describe("The driver and its account: sandbox (IT, the sandbox's SdI simulator, no fields), acube (IT, an A-Cube account: email, password, optional base_url and login_url), sdicoop (IT, the merchant's own SDICoop channel: endpoint, client_certificate, client_private_key, ca_certificates) or smtp (DE, the organization's mail server: host, port, security, username, password, from)")
  .meta({ id: 'PutInvoiceChannelInput', discriminator: { propertyName: 'driver' } });

export type PutInvoiceChannelInput = z.infer<typeof PutInvoiceChannelBody>;

export const InvoiceChannelView = z
  .object({
    object: z.literal('invoice_channel'),
    organization_id: z.string(),
    jurisdiction: z.string(),
    driver: z.string().describe('sandbox, acube, sdicoop or smtp'),
    config_id: z.string().describe("The driver's account configuration; the invoices it received keep asking it for their notifications"),
    settings: z
      .record(z.string(), z.unknown())
      .describe("The driver's public settings, never a secret: acube {email, base_url, login_url}; sdicoop {endpoint, client_certificate {subject, serial_number, sha256_fingerprint, valid_until}, notification_url: the URL to register with the SdI for the TrasmissioneFatture service}; smtp {host, port, security, username, from}; sandbox {}"),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'InvoiceChannel', description: 'Where an organization\'s invoices of one jurisdiction go (Style O)' });

export type InvoiceChannelViewData = z.infer<typeof InvoiceChannelView>;

export const InvoiceChannelList = z.object({ object: z.literal('list'), data: z.array(InvoiceChannelView) });

export const DeletedInvoiceChannel = z.object({
  object: z.literal('invoice_channel'),
  organization_id: z.string(),
  jurisdiction: z.string(),
  deleted: z.literal(true),
});
