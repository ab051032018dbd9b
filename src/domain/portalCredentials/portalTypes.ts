/** The fields a portal credential may hold (contract 2.11 `masked_credentials`). */
export const CREDENTIAL_FIELDS = ['tax_id_number', 'participant_id', 'user_id', 'pin', 'password'] as const;
export type CredentialField = (typeof CREDENTIAL_FIELDS)[number];
export type CredentialValues = Partial<Record<CredentialField, string>>;

/** What the service knows of one tax-authority portal. */
export interface PortalType {
  /** The jurisdiction whose authority runs the portal (two-letter, as Style O writes it). */
  jurisdiction: string;
  /** What logging in takes; a credential missing one of them cannot validate. */
  requiredFields: readonly CredentialField[];
  /** Days a password works after it was set, and after how many days to remind; null when it does not expire. */
  passwordExpiry: { lifetimeDays: number; reminderAfterDays: number } | null;
  /** A format rule of the user id, when the portal has one. */
  userIdFormat?: { pattern: RegExp; description: string };
}

/** The Italian fiscal code (codice fiscale) of a person: the Fisconline and Entratel user name. */
const ITALIAN_FISCAL_CODE = { pattern: /^[A-Za-z0-9]{16}$/, description: 'a 16-character alphanumeric fiscal code (codice fiscale)' };

/** Fisconline passwords expire 90 days after they were set; renew after 60 (reference/italy.md §11). */
const ITALIAN_PASSWORD_EXPIRY = { lifetimeDays: 90, reminderAfterDays: 60 };

export const PORTAL_TYPES = {
  fisconline: {
    jurisdiction: 'IT',
    requiredFields: ['user_id', 'password', 'pin'],
    passwordExpiry: ITALIAN_PASSWORD_EXPIRY,
    userIdFormat: ITALIAN_FISCAL_CODE,
  },
  // Entratel's rotation rule is unconfirmed; the reference assumes it shares Fisconline's.
  entratel: {
    jurisdiction: 'IT',
    requiredFields: ['user_id', 'password', 'pin'],
    passwordExpiry: ITALIAN_PASSWORD_EXPIRY,
    userIdFormat: ITALIAN_FISCAL_CODE,
  },
  // FinanzOnline web services log in with participant id (TID), user id (BENID) and PIN.
  finanz_online: {
    jurisdiction: 'AT',
    requiredFields: ['participant_id', 'user_id', 'pin'],
    passwordExpiry: null,
  },
} as const satisfies Record<string, PortalType>;

export type PortalTypeName = keyof typeof PORTAL_TYPES;
export const PORTAL_TYPE_NAMES = Object.keys(PORTAL_TYPES) as PortalTypeName[];

export const portalType = (name: PortalTypeName): PortalType => PORTAL_TYPES[name];
