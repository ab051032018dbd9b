import { missingFields } from '../../domain/portalCredentials/credentialRules.js';
import type { CredentialField } from '../../domain/portalCredentials/portalTypes.js';
import type { PortalClient } from './portalClient.js';

/** The password the sandbox portal rejects, so integrators can test an invalid credential. */
export const REJECTED_SANDBOX_PASSWORD = 'wrong-password';

/**
 * The sandbox's stand-in for the portals: a login succeeds when the credential holds what the
 * portal asks for and its password is not REJECTED_SANDBOX_PASSWORD.
 */
export const simulatedPortal: PortalClient = {
  async checkLogin(portalType, credentials) {
    const held = new Set(Object.keys(credentials) as CredentialField[]);
    const missing = missingFields(portalType, held);
    if (missing.length) return { accepted: false, reason: `The portal needs ${missing.join(', ')} to log in` };
    if (credentials.password === REJECTED_SANDBOX_PASSWORD) return { accepted: false, reason: 'The portal rejected the password' };
    return { accepted: true };
  },
};

/**
 * The portal client of an environment. Only the sandbox has one: no client of the live portals
 * exists, so production cannot validate credentials (and says so rather than pretend).
 */
export const portalClientFor = (environment: 'sandbox' | 'production'): PortalClient | null =>
  environment === 'sandbox' ? simulatedPortal : null;
