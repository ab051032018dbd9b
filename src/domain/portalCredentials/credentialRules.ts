import { CREDENTIAL_FIELDS, portalType, type CredentialField, type CredentialValues, type PortalTypeName } from './portalTypes.js';
import { DAY_MS } from '../dayLength.js';

/** A broken rule of a credential as sent: a jurisdiction the portal is not of (validation_error), or a regime's format (regime_validation_failed). */
export interface CredentialViolation {
  code: 'validation_error' | 'regime_validation_failed';
  field: string;
  message: string;
}

/** The jurisdiction and format rules of a credential as sent (create or update). */
export function credentialViolations(
  type: PortalTypeName,
  input: { jurisdiction?: string; credentials?: CredentialValues },
): CredentialViolation[] {
  const portal = portalType(type);
  const violations: CredentialViolation[] = [];
  if (input.jurisdiction !== undefined && input.jurisdiction !== portal.jurisdiction) {
    violations.push({
      code: 'validation_error',
      field: 'jurisdiction',
      message: `${type} is a portal of jurisdiction ${portal.jurisdiction}, not ${input.jurisdiction}`,
    });
  }
  const userId = input.credentials?.user_id;
  if (userId !== undefined && portal.userIdFormat && !portal.userIdFormat.pattern.test(userId)) {
    violations.push({
      code: 'regime_validation_failed',
      field: 'credentials.user_id',
      message: `credentials.user_id must be ${portal.userIdFormat.description}`,
    });
  }
  return violations;
}

/** The fields a portal needs that the credential does not hold. */
export function missingFields(type: PortalTypeName, held: ReadonlySet<CredentialField>): CredentialField[] {
  return portalType(type).requiredFields.filter((field) => !held.has(field));
}

/** When a password set at `passwordSetAt` stops working, or null (the portal's passwords do not expire, or none is set). */
export function passwordExpiresAt(type: PortalTypeName, passwordSetAt: Date | null): Date | null {
  const expiry = portalType(type).passwordExpiry;
  if (!expiry || !passwordSetAt) return null;
  return new Date(passwordSetAt.getTime() + expiry.lifetimeDays * DAY_MS);
}

/** From when the expiry reminder is due for a password expiring at `expiresAt`. */
export function expiryReminderFrom(type: PortalTypeName, expiresAt: Date): Date | null {
  const expiry = portalType(type).passwordExpiry;
  if (!expiry) return null;
  return new Date(expiresAt.getTime() - (expiry.lifetimeDays - expiry.reminderAfterDays) * DAY_MS);
}

/** Whole days left until `expiresAt`, rounded up. */
export const daysUntil = (expiresAt: Date, now: Date): number => Math.ceil((expiresAt.getTime() - now.getTime()) / DAY_MS);

export type StoredCredentialState = 'unvalidated' | 'valid' | 'invalid';
export type CredentialState = StoredCredentialState | 'expired';

/** The state a credential shows: `expired` once its password expired, whatever its last validation said. */
export function credentialState(stored: StoredCredentialState, expiresAt: Date | null, now: Date): CredentialState {
  return expiresAt && now.getTime() >= expiresAt.getTime() ? 'expired' : stored;
}

/** A PIN or password as shown: always eight asterisks, so not even its length shows. */
const FULL_MASK = '********';

/** How a secret is shown: all but the last 2 characters as `*` (all of a value that short); a PIN or password fully. */
export function maskCredential(field: CredentialField, value: string): string {
  if (field === 'pin' || field === 'password') return FULL_MASK;
  const shown = value.length > 2 ? 2 : 0;
  return '*'.repeat(value.length - shown) + value.slice(value.length - shown);
}

/** Every field of masked_credentials: masked, or null when the credential does not hold it. */
export function maskedCredentials(values: CredentialValues): Record<CredentialField, string | null> {
  return Object.fromEntries(
    CREDENTIAL_FIELDS.map((field) => [field, values[field] === undefined ? null : maskCredential(field, values[field])]),
  ) as Record<CredentialField, string | null>;
}
