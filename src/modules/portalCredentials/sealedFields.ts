import type { FiscalPortalCredential } from '../../db/generated/client.js';
import { CREDENTIAL_FIELDS, type CredentialField, type CredentialValues } from '../../domain/portalCredentials/portalTypes.js';
import type { SecretBox } from '../../lib/secretBox.js';

/** The column that holds each credential field, sealed with SECRETS_KEY. */
export const SEALED_COLUMN = {
  tax_id_number: 'taxIdNumberSealed',
  participant_id: 'participantIdSealed',
  user_id: 'userIdSealed',
  pin: 'pinSealed',
  password: 'passwordSealed',
} as const satisfies Record<CredentialField, keyof FiscalPortalCredential>;

type SealedColumns = { [F in CredentialField as (typeof SEALED_COLUMN)[F]]?: string };

/** The fields a credential holds, opened. */
export function openCredentials(credential: FiscalPortalCredential, secrets: SecretBox): CredentialValues {
  const values: CredentialValues = {};
  for (const field of CREDENTIAL_FIELDS) {
    const sealed = credential[SEALED_COLUMN[field]];
    if (sealed !== null) values[field] = secrets.open(sealed);
  }
  return values;
}

/** Columns for the given fields, sealed. */
export function sealCredentials(values: CredentialValues, secrets: SecretBox): SealedColumns {
  const columns: SealedColumns = {};
  for (const field of CREDENTIAL_FIELDS) {
    const value = values[field];
    if (value !== undefined) columns[SEALED_COLUMN[field]] = secrets.seal(value);
  }
  return columns;
}

/** The fields of `update` whose value differs from `current`. */
export const changedFields = (current: CredentialValues, update: CredentialValues): CredentialField[] =>
  CREDENTIAL_FIELDS.filter((field) => update[field] !== undefined && update[field] !== current[field]);
