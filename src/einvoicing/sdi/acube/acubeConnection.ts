import type { ChannelSettings } from '../../jurisdictions/invoiceJurisdiction.js';

/**
 * A-Cube's Italian e-invoicing API (docs.acubeapi.com, gov-it): a JWT from the common
 * service's POST /login, invoices and their SdI notifications under the API's own host. Each
 * has a sandbox (SdI simulated by A-Cube) and a production host; the deployment's environment
 * picks the pair unless the organization names its own.
 */
export const ACUBE_URLS: Readonly<Record<ChannelSettings['environment'], { apiUrl: string; loginUrl: string }>> = {
  sandbox: { apiUrl: 'https://api-sandbox.acubeapi.com', loginUrl: 'https://common-sandbox.api.acubeapi.com' },
  production: { apiUrl: 'https://api.acubeapi.com', loginUrl: 'https://common.api.acubeapi.com' },
};

/** How the driver reaches one A-Cube account; the password is the one secret. */
export interface AcubeConnection {
  apiUrl: string;
  loginUrl: string;
  email: string;
  password: string;
}

const withoutTrailingSlash = (url: string) => url.replace(/\/+$/, '');

export function acubeConnectionOf(
  fields: { email: string; password: string; base_url?: string; login_url?: string },
  environment: ChannelSettings['environment'],
): AcubeConnection {
  const defaults = ACUBE_URLS[environment];
  return {
    apiUrl: withoutTrailingSlash(fields.base_url ?? defaults.apiUrl),
    loginUrl: withoutTrailingSlash(fields.login_url ?? defaults.loginUrl),
    email: fields.email,
    password: fields.password,
  };
}
