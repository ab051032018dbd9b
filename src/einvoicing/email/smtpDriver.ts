import { z } from 'zod';
import { unprocessable } from '../../domain/errors.js';
import type { InvoiceChannelDriver } from '../channels/channelDriver.js';
import { smtpChannel } from './smtpChannel.js';
import { SMTP_SECURITY, smtpTransportOf, type SmtpConnection, type SmtpSecurity } from './smtpConnection.js';
import { smtpFailureOf, type SmtpFailure } from './smtpFailure.js';

const SmtpInput = z.strictObject({
  driver: z.literal('smtp'),
  host: z.string().min(1).max(253).describe("The organization's mail server (submission), e.g. smtp.example.de"),
  port: z.number().int().min(1).max(65_535).describe('Its port: 465 with security tls, 587 with starttls'),
  security: z
    .enum(SMTP_SECURITY)
    .describe('tls: implicit TLS (port 465); starttls: STARTTLS required, refused when the server does not offer it (port 587); none: plain text, the sandbox only'),
  username: z.string().min(1).max(320).describe("The account's login"),
  password: z.string().min(1).max(1024).describe("The account's password; sealed at rest and never returned"),
  from: z.email().max(254).describe('The sender address of the invoice e-mails; its domain also names their Message-IDs'),
}).meta({ id: 'SmtpInvoiceChannelInput' });

/** Why the server refused the account, as the PUT's 422: its code and the field to fix. */
function refusal(failure: SmtpFailure) {
  const details = { driver: 'smtp', reason: failure.message };
  if (failure.kind === 'unauthorized') return unprocessable('invoice_channel_credentials_rejected', 'The mail server refused the username and password', { ...details, field: 'password' });
  if (failure.kind === 'tls') return unprocessable('invoice_channel_tls_failed', 'The connection to the mail server could not be protected as configured', { ...details, field: 'security' });
  return unprocessable('invoice_channel_unreachable', 'The mail server could not be reached to check the login; nothing was stored', { ...details, field: 'host' });
}

/** German invoices (XRechnung) e-mailed to the buyer through the organization's mail server (email/), the login checked when it is configured. */
export const smtpDriver: InvoiceChannelDriver = {
  name: 'smtp',
  jurisdictions: ['DE'],
  environments: ['sandbox', 'production'],
  input: SmtpInput,
  async provision(input, settings) {
    const fields = SmtpInput.parse(input);
    if (fields.security === 'none' && settings.environment !== 'sandbox') {
      throw unprocessable('invoice_channel_insecure', 'A production mail server is reached over TLS: security tls or starttls', { driver: 'smtp', field: 'security' });
    }
    const { port, security, username, password, from } = fields;
    const connection: SmtpConnection = { host: fields.host.toLowerCase(), port, security, username, password, from };
    try {
      await smtpTransportOf(connection, settings.timeoutMs).verify();
    } catch (error) {
      throw refusal(smtpFailureOf(error, connection));
    }
    return {
      accountKey: `${connection.host}:${connection.port} ${connection.username.toLowerCase()}`,
      settings: { host: connection.host, port: connection.port, security: connection.security, username: connection.username, from: connection.from },
      secrets: { password: connection.password },
    };
  },
  open(config, settings) {
    const connection: SmtpConnection = {
      host: String(config.settings.host),
      port: Number(config.settings.port),
      security: config.settings.security as SmtpSecurity,
      username: String(config.settings.username),
      from: String(config.settings.from),
      password: config.secrets?.password ?? '',
    };
    return smtpChannel(connection, settings.timeoutMs, settings.pollMs);
  },
};
