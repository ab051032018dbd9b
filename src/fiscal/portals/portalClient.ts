import type { CredentialValues, PortalTypeName } from '../../domain/portalCredentials/portalTypes.js';

/** What a portal answered to a login with a credential. */
export type PortalLoginResult = { accepted: true } | { accepted: false; reason: string };

/** A tax-authority portal the service can log in to, to check a credential. */
export interface PortalClient {
  checkLogin(portalType: PortalTypeName, credentials: CredentialValues): Promise<PortalLoginResult>;
}
