import { z } from 'zod';
import { unprocessable } from '../../../domain/errors.js';
import type { InvoiceChannelDriver } from '../../channels/channelDriver.js';
import { AcubeApiError } from './acubeApiError.js';
import { acubeChannel } from './acubeChannel.js';
import { AcubeClient } from './acubeClient.js';
import { acubeConnectionOf, type AcubeConnection } from './acubeConnection.js';

const HttpsUrl = z.url({ protocol: /^https?$/ });

const AcubeInput = z.strictObject({
  driver: z.literal('acube'),
  email: z.email().max(254).describe("The A-Cube account's e-mail (its login)"),
  password: z.string().min(1).max(1024).describe("The A-Cube account's password; sealed at rest and never returned"),
  base_url: HttpsUrl.max(500).optional().describe("A-Cube's Italian invoicing API; default https://api-sandbox.acubeapi.com in the sandbox, https://api.acubeapi.com in production"),
  login_url: HttpsUrl.max(500).optional().describe("A-Cube's login service; default https://common-sandbox.api.acubeapi.com in the sandbox, https://common.api.acubeapi.com in production"),
}).meta({ id: 'AcubeInvoiceChannelInput' });

/** Why A-Cube refused a login, as the PUT's 422: its code and the field to fix. */
function refusal(error: AcubeApiError) {
  const details = { driver: 'acube', reason: error.message };
  if (error.kind === 'unauthorized') return unprocessable('invoice_channel_credentials_rejected', 'A-Cube refused the e-mail and password', { ...details, field: 'password' });
  if (error.kind === 'forbidden') return unprocessable('invoice_channel_account_disabled', 'A-Cube refused the login: the account is disabled', { ...details, field: 'email' });
  return unprocessable('invoice_channel_unreachable', 'A-Cube could not be asked to check the credentials; nothing was stored', { ...details, field: 'login_url' });
}

/** Italian e-invoicing through the intermediary A-Cube (sdi/acube/), the account checked by a login when it is configured. */
export const acubeDriver: InvoiceChannelDriver = {
  name: 'acube',
  jurisdictions: ['IT'],
  environments: ['sandbox', 'production'],
  input: AcubeInput,
  async provision(input, settings) {
    const fields = AcubeInput.parse(input);
    const connection = acubeConnectionOf(fields, settings.environment);
    try {
      await new AcubeClient(connection, settings.timeoutMs).login();
    } catch (error) {
      if (error instanceof AcubeApiError) throw refusal(error);
      throw error;
    }
    return {
      accountKey: `${connection.apiUrl} ${connection.email.toLowerCase()}`,
      settings: { email: connection.email, base_url: connection.apiUrl, login_url: connection.loginUrl },
      secrets: { password: connection.password },
    };
  },
  open(config, settings) {
    const connection: AcubeConnection = {
      apiUrl: String(config.settings.base_url),
      loginUrl: String(config.settings.login_url),
      email: String(config.settings.email),
      password: config.secrets?.password ?? '',
    };
    return acubeChannel(new AcubeClient(connection, settings.timeoutMs), settings.pollMs);
  },
};
