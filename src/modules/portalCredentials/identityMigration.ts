import type { FastifyBaseLogger } from 'fastify';
import type { Prisma } from '../../db/database.js';
import type { Prisma as PrismaNs } from '../../db/generated/client.js';
import { passwordExpiresAt } from '../../domain/portalCredentials/credentialRules.js';
import { portalType } from '../../domain/portalCredentials/portalTypes.js';
import { newId } from '../../lib/ids.js';
import type { SecretBox } from '../../lib/secretBox.js';
import { FISCONLINE, fisconlineCredentialOf, isItalianIdentity } from './fisconlineIdentity.js';

/** Merchants written before the Fisconline credential existed: their ITA identity still holds the fisconline_* fields. */
const LEGACY_IDENTITY = `jsonb_path_exists(fiscal_identities, '$[*] ? (@.country_code == "ITA" && exists(@.fisconline_user))')`;

interface LegacyItalianIdentity {
  country_code: string;
  fisconline_user: string;
  fisconline_password_sealed: string;
  fisconline_pin_sealed: string;
  [field: string]: string;
}

/**
 * Moves the fisconline_* fields of ITA identities stored before fiscal_portal_credentials
 * existed into the organization's Fisconline credential (the sealed password and PIN as they
 * are; the user sealed now), one merchant per transaction. src/server.ts runs it before it
 * listens; once done it finds nothing. The password's age is unknown: it counts from the
 * merchant's last update.
 */
export async function moveLegacyFisconlineFields(db: Prisma, secrets: SecretBox, log: FastifyBaseLogger): Promise<void> {
  const legacy = await db.$queryRawUnsafe<{ id: string }[]>(`SELECT id FROM merchants WHERE ${LEGACY_IDENTITY}`);
  for (const { id } of legacy) {
    await db.$transaction(async (tx) => {
      const [merchant] = await tx.$queryRawUnsafe<{ fiscal_identities: LegacyItalianIdentity[]; updated_at: Date }[]>(
        `SELECT fiscal_identities, updated_at FROM merchants WHERE id = $1 AND ${LEGACY_IDENTITY} FOR UPDATE`,
        id,
      );
      // Another instance moved it meanwhile.
      if (!merchant) return;
      const italian = merchant.fiscal_identities.find(isItalianIdentity)!;
      const { fisconline_user, fisconline_password_sealed, fisconline_pin_sealed, ...kept } = italian;
      // A credential written since (by another instance already serving) is newer than these fields.
      if (!(await fisconlineCredentialOf(tx, id))) {
        await tx.fiscalPortalCredential.create({
          data: {
            id: newId('fpc'),
            merchantId: id,
            portalType: FISCONLINE,
            jurisdiction: portalType(FISCONLINE).jurisdiction,
            state: 'unvalidated',
            userIdSealed: secrets.seal(fisconline_user),
            passwordSealed: fisconline_password_sealed,
            pinSealed: fisconline_pin_sealed,
            passwordSetAt: merchant.updated_at,
            expiresAt: passwordExpiresAt(FISCONLINE, merchant.updated_at),
          },
        });
      }
      const stored = merchant.fiscal_identities.map((identity) => (identity === italian ? kept : identity));
      await tx.merchant.update({ where: { id }, data: { fiscalIdentities: stored as PrismaNs.InputJsonValue } });
    });
    log.info({ merchant_id: id }, 'moved the ITA identity\'s Fisconline fields into its Fisconline credential');
  }
}
