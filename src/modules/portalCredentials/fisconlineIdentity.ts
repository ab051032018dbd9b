import type { FiscalPortalCredential } from '../../db/generated/client.js';
import type { Prisma } from '../../db/database.js';
import type { Tx } from '../../db/transaction.js';
import { passwordExpiresAt } from '../../domain/portalCredentials/credentialRules.js';
import { portalType, type PortalTypeName } from '../../domain/portalCredentials/portalTypes.js';
import { newId } from '../../lib/ids.js';
import type { SecretBox } from '../../lib/secretBox.js';
import { credentialChange } from './credentialChange.js';
import { sealCredentials } from './sealedFields.js';

// The ITA fiscal identity of a merchant (Style M, contract 2.1) and the organization's
// Fisconline credential (Style O, contract 2.11) are one record: the identity's fisconline_user,
// fisconline_password and fisconline_pin are the credential's user_id, password and pin, stored
// only in fiscal_portal_credentials. An organization has at most one Fisconline credential.

export const FISCONLINE = 'fisconline' satisfies PortalTypeName;

/** The country code of the fiscal identity whose fisconline_* fields are the Fisconline credential. */
const ITALIAN_IDENTITY = 'ITA';

/** The fisconline_* fields of an ITA fiscal identity. */
export interface FisconlineFields {
  fisconline_user: string;
  fisconline_password: string;
  fisconline_pin: string;
}

export const hasItalianIdentity = (fiscalIdentities: unknown): boolean =>
  (fiscalIdentities as { country_code: string }[]).some((identity) => identity.country_code === ITALIAN_IDENTITY);

export const isItalianIdentity = (identity: { country_code: string }): boolean => identity.country_code === ITALIAN_IDENTITY;

export async function fisconlineCredentialOf(tx: Tx | Prisma, merchantId: string): Promise<FiscalPortalCredential | null> {
  return tx.fiscalPortalCredential.findFirst({ where: { merchantId, portalType: FISCONLINE } });
}

/**
 * Writes an ITA fiscal identity's fisconline_* fields into the organization's Fisconline
 * credential, creating it when there is none, inside the merchant write's transaction (which
 * holds the merchant row). Unchanged values leave the credential as it is.
 */
export async function writeFisconlineFields(tx: Tx, secrets: SecretBox, merchantId: string, fields: FisconlineFields, now: Date): Promise<void> {
  const values = { user_id: fields.fisconline_user, password: fields.fisconline_password, pin: fields.fisconline_pin };
  const current = await fisconlineCredentialOf(tx, merchantId);
  if (current) {
    const { data } = credentialChange(current, values, secrets, now);
    if (Object.keys(data).length) await tx.fiscalPortalCredential.update({ where: { id: current.id }, data });
    return;
  }
  await tx.fiscalPortalCredential.create({
    data: {
      id: newId('fpc'),
      merchantId,
      portalType: FISCONLINE,
      jurisdiction: portalType(FISCONLINE).jurisdiction,
      state: 'unvalidated',
      ...sealCredentials(values, secrets),
      passwordSetAt: now,
      expiresAt: passwordExpiresAt(FISCONLINE, now),
      createdAt: now,
      updatedAt: now,
    },
  });
}

/** The fisconline_user of each merchant that has a Fisconline credential with a user id. */
export async function fisconlineUsers(db: Tx | Prisma, secrets: SecretBox, merchantIds: string[]): Promise<Map<string, string>> {
  const credentials = await db.fiscalPortalCredential.findMany({
    where: { merchantId: { in: merchantIds }, portalType: FISCONLINE, userIdSealed: { not: null } },
    select: { merchantId: true, userIdSealed: true },
  });
  return new Map(credentials.map((credential) => [credential.merchantId, secrets.open(credential.userIdSealed!)]));
}
