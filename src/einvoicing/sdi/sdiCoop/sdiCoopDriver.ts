import { z } from 'zod';
import type { InvoiceChannelDriver } from '../../channels/channelDriver.js';
import { checkSdiCoopAccount, type ClientCertificateFacts } from './sdiCoopAccount.js';
import { databaseNotificationInbox } from './databaseNotificationInbox.js';
import { sdiCoopNotificationUrl } from './notificationUrl.js';
import { sdiCoopChannel } from './sdiCoopChannel.js';

const Pem = z.string().min(1).max(20_000);

const SdiCoopInput = z.strictObject({
  driver: z.literal('sdicoop'),
  endpoint: z.url({ protocol: /^https?$/ }).max(500).describe('The SdIRiceviFile endpoint (https) of the SDICoop service agreement'),
  client_certificate: Pem.describe('The client certificate the SdI issued to the accredited channel, PEM'),
  client_private_key: Pem.describe('Its private key, PEM, unencrypted; sealed at rest and never returned'),
  ca_certificates: z.array(Pem).min(1).max(10).describe("The certificate authorities of the SdI's server certificate, PEM each"),
}).meta({ id: 'SdiCoopInvoiceChannelInput' });

/** What an sdicoop configuration stores besides the sealed key: the certificates to open the TLS connection, and what identifies the client certificate. */
type SdiCoopStoredSettings = {
  endpoint: string;
  client_certificate_pem: string;
  ca_certificate_pems: string[];
  client_certificate: ClientCertificateFacts;
};

/**
 * Italian e-invoicing straight to the SdI over SDICoop Trasmissione (sdi/sdiCoop/), for a
 * merchant accredited with its own channel: files go to SdIRiceviFile over mutual TLS; the SdI
 * pushes its notifications to the configuration's notification_url, where they are stored for
 * the channel to read. The account is checked without calling the SdI (sdiCoopAccount.ts).
 */
export const sdiCoopDriver: InvoiceChannelDriver = {
  name: 'sdicoop',
  jurisdictions: ['IT'],
  environments: ['sandbox', 'production'],
  input: SdiCoopInput,
  async provision(input) {
    const account = SdiCoopInput.parse(input);
    const certificate = checkSdiCoopAccount(account, new Date());
    const settings: SdiCoopStoredSettings = {
      endpoint: account.endpoint,
      client_certificate_pem: account.client_certificate,
      ca_certificate_pems: account.ca_certificates,
      client_certificate: certificate,
    };
    // The channel the SdI accredited is named by its certificate's subject, which a renewed certificate keeps.
    return { accountKey: `${account.endpoint} ${certificate.subject}`, settings, secrets: { client_private_key: account.client_private_key } };
  },
  open(config, settings, db) {
    const stored = config.settings as unknown as SdiCoopStoredSettings;
    return sdiCoopChannel(
      {
        endpoint: stored.endpoint,
        clientCertificatePem: stored.client_certificate_pem,
        clientKeyPem: config.secrets?.client_private_key ?? '',
        caPems: stored.ca_certificate_pems,
        timeoutMs: settings.timeoutMs,
        pollDelayMs: settings.pollMs,
      },
      databaseNotificationInbox(db, config.id),
    );
  },
  shownSettings(config, publicBaseUrl) {
    const stored = config.settings as unknown as SdiCoopStoredSettings;
    return { endpoint: stored.endpoint, client_certificate: stored.client_certificate, notification_url: sdiCoopNotificationUrl(publicBaseUrl, config.id) };
  },
};
