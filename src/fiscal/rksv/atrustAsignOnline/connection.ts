import type { SecretBox } from '../../../lib/secretBox.js';

/**
 * A-Trust's a.sign RK online REST interface (the "RegistrierkasseMobile" API):
 * the acceptance system ("Abnahme") that test accounts live on, and the live
 * system. A sandbox register talks to the acceptance system unless told otherwise.
 */
export const ATRUST_ACCEPTANCE_BASE_URL = 'https://hs-abnahme.a-trust.at';
export const ATRUST_LIVE_BASE_URL = 'https://hs.a-trust.at';

/** The interface version the driver speaks; v1 is withdrawn from A-Trust's documentation. */
const API_PATH = '/RegistrierkasseMobile/v2';

/** The fiscalize body's `rksv` block for the driver (DESIGN "Production drivers"). */
export interface AtrustAsignOnlineOptions {
  driver: 'atrust_asign_online';
  username: string;
  password: string;
  base_url?: string;
}

/** How the driver reaches one a.sign RK online account; sealed at rest with SECRETS_KEY, as it holds the password. */
export interface AtrustConnection {
  /** `<base_url>/RegistrierkasseMobile/v2`, without a trailing slash. */
  apiUrl: string;
  username: string;
  password: string;
}

/**
 * The API root under a base URL: a base URL that already names the
 * RegistrierkasseMobile path (as A-Trust's examples write it) is taken as it is.
 */
export function apiUrlOf(baseUrl: string | undefined, environment: 'sandbox' | 'production'): string {
  const base = (baseUrl ?? (environment === 'production' ? ATRUST_LIVE_BASE_URL : ATRUST_ACCEPTANCE_BASE_URL)).replace(/\/+$/, '');
  if (/\/RegistrierkasseMobile\/v\d+$/.test(base)) return base;
  if (base.endsWith('/RegistrierkasseMobile')) return `${base}/v2`;
  return `${base}${API_PATH}`;
}

export function connectionOf(options: AtrustAsignOnlineOptions, environment: 'sandbox' | 'production'): AtrustConnection {
  return { apiUrl: apiUrlOf(options.base_url, environment), username: options.username, password: options.password };
}

export const sealConnection = (secrets: SecretBox, connection: AtrustConnection): string => secrets.seal(JSON.stringify(connection));

export const openConnection = (secrets: SecretBox, sealed: string): AtrustConnection => JSON.parse(secrets.open(sealed)) as AtrustConnection;
