import type { SecretBox } from '../../../lib/secretBox.js';

/**
 * fiskaly SIGN DE v2's middleware. Test and live TSSs are served by the same
 * host; which one an API key reaches is the key's (its token's `env` claim), so
 * the sandbox default is this URL too, used with test keys.
 */
export const FISKALY_SIGN_DE_BASE_URL = 'https://kassensichv-middleware.fiskaly.com';

/** The fiscalize body's `tse` block for the driver (DESIGN "Production drivers"). */
export interface FiskalySignDeOptions {
  driver: 'fiskaly_sign_de';
  api_key: string;
  api_secret: string;
  tss_id: string;
  client_id: string;
  base_url?: string;
}

/** How the driver reaches one TSS; sealed at rest with SECRETS_KEY, as it holds the API secret. */
export interface FiskalyConnection {
  /** `<base_url>/api/v2`, without a trailing slash. */
  apiUrl: string;
  apiKey: string;
  apiSecret: string;
  tssId: string;
}

/** The API root under a base URL; a base URL that already names `/api/v2` is taken as it is. */
export function apiUrlOf(baseUrl: string | undefined): string {
  const base = (baseUrl ?? FISKALY_SIGN_DE_BASE_URL).replace(/\/+$/, '');
  return base.endsWith('/api/v2') ? base : `${base}/api/v2`;
}

export function connectionOf(options: FiskalySignDeOptions): FiskalyConnection {
  return { apiUrl: apiUrlOf(options.base_url), apiKey: options.api_key, apiSecret: options.api_secret, tssId: options.tss_id };
}

export const sealConnection = (secrets: SecretBox, connection: FiskalyConnection): string => secrets.seal(JSON.stringify(connection));

export const openConnection = (secrets: SecretBox, sealed: string): FiskalyConnection => JSON.parse(secrets.open(sealed)) as FiskalyConnection;
