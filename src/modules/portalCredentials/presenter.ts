import type { FiscalPortalCredential } from '../../db/generated/client.js';
import { credentialState, maskedCredentials, type StoredCredentialState } from '../../domain/portalCredentials/credentialRules.js';
import type { HttpResult } from '../../http/idempotency.js';
import type { SecretBox } from '../../lib/secretBox.js';
import type { PortalCredentialView } from './schemas.js';
import { openCredentials } from './sealedFields.js';

export function presentPortalCredential(credential: FiscalPortalCredential, secrets: SecretBox, now: Date): PortalCredentialView {
  return {
    object: 'fiscal_portal_credential',
    id: credential.id,
    organization_id: credential.merchantId,
    portal_type: credential.portalType,
    jurisdiction: credential.jurisdiction,
    state: credentialState(credential.state as StoredCredentialState, credential.expiresAt, now),
    label: credential.label,
    created_at: credential.createdAt.toISOString(),
    updated_at: credential.updatedAt.toISOString(),
    expires_at: credential.expiresAt?.toISOString() ?? null,
    last_validated_at: credential.lastValidatedAt?.toISOString() ?? null,
    validation_error: credential.validationError,
    masked_credentials: maskedCredentials(openCredentials(credential, secrets)),
  };
}

export const portalCredentialResult = (credential: FiscalPortalCredential, status: number, secrets: SecretBox, now: Date): HttpResult => ({
  status,
  body: presentPortalCredential(credential, secrets, now),
});
