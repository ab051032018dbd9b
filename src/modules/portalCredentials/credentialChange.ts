import type { FiscalPortalCredential, Prisma as PrismaNs } from '../../db/generated/client.js';
import { passwordExpiresAt } from '../../domain/portalCredentials/credentialRules.js';
import type { CredentialField, CredentialValues, PortalTypeName } from '../../domain/portalCredentials/portalTypes.js';
import type { SecretBox } from '../../lib/secretBox.js';
import { changedFields, openCredentials, sealCredentials } from './sealedFields.js';

/** A credential's new secrets as an update: the fields that changed, sealed; none when nothing changed. */
export interface CredentialChange {
  changed: CredentialField[];
  data: PrismaNs.FiscalPortalCredentialUpdateInput;
}

/**
 * New secrets put the credential back to `unvalidated` (its last validation checked others);
 * a new password restarts its expiry. Values equal to the stored ones change nothing.
 */
export function credentialChange(current: FiscalPortalCredential, update: CredentialValues, secrets: SecretBox, now: Date): CredentialChange {
  const changed = changedFields(openCredentials(current, secrets), update);
  if (changed.length === 0) return { changed, data: {} };
  const newValues = Object.fromEntries(changed.map((field) => [field, update[field]])) as CredentialValues;
  const passwordChanged = changed.includes('password');
  return {
    changed,
    data: {
      ...sealCredentials(newValues, secrets),
      state: 'unvalidated',
      validationError: null,
      ...(passwordChanged
        ? { passwordSetAt: now, expiresAt: passwordExpiresAt(current.portalType as PortalTypeName, now) }
        : {}),
      updatedAt: now,
    },
  };
}
