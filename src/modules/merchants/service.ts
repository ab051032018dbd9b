import type { Merchant } from '../../db/generated/client.js';
import type { AppContext } from '../../context.js';
import type { Principal } from '../../http/auth.js';
import { assertMerchantAccess } from '../../http/auth.js';
import { assertCurrentVersion } from '../../domain/resourceVersion.js';
import { conflict, forbidden, unprocessable, validationError } from '../../domain/errors.js';
import { newId } from '../../lib/ids.js';
import {
  checkFiscalIdentities,
  firstDuplicateCountry,
  mergeFiscalIdentities,
} from '../../domain/merchants/fiscalIdentityRules.js';
import { toStoredAddress } from '../common/schemas.js';
import type { Finalize } from '../common/transactions.js';
import type { FiscalIdentityInputValue } from './schemas.js';
import type { z } from 'zod';
import type { CreateMerchantBody, UpdateMerchantBody } from './schemas.js';
import { sqlOf } from '../../db/sql.js';
import type { Prisma } from '../../db/database.js';
import type { Tx } from '../../db/transaction.js';
import { fisconlineUsers, writeFisconlineFields, type FisconlineFields } from '../portalCredentials/fisconlineIdentity.js';

/**
 * A fiscal identity as stored. An ITA identity's fisconline_* fields are not in it: they are the
 * organization's Fisconline credential (modules/portalCredentials/fisconlineIdentity.ts).
 */
export type StoredFiscalIdentity = Record<string, string> & { country_code: string };

/** A merchant with what its view shows beyond its record: the Fisconline user of its ITA identity. */
export type MerchantWithFisconline = Merchant & { fisconlineUser: string | null };

/** Splits the identities sent into what the merchant stores and the ITA identity's Fisconline fields. */
function splitIdentities(identities: FiscalIdentityInputValue[]): { stored: StoredFiscalIdentity[]; fisconline: FisconlineFields | null } {
  let fisconline: FisconlineFields | null = null;
  const stored = identities.map((identity) => {
    if (identity.country_code !== 'ITA') return { ...identity } as StoredFiscalIdentity;
    const { fisconline_user, fisconline_password, fisconline_pin, ...rest } = identity;
    fisconline = { fisconline_user, fisconline_password, fisconline_pin };
    return rest;
  });
  return { stored, fisconline };
}

async function withFisconline(db: Tx | Prisma, ctx: AppContext, merchant: Merchant): Promise<MerchantWithFisconline> {
  const users = await fisconlineUsers(db, ctx.secrets, [merchant.id]);
  return { ...merchant, fisconlineUser: users.get(merchant.id) ?? null };
}

function checkIdentities(identities: FiscalIdentityInputValue[]): void {
  const violations = checkFiscalIdentities(identities);
  if (violations.length) {
    throw unprocessable('regime_validation_failed', violations[0].message, { field: violations[0].field, violations });
  }
  const duplicate = firstDuplicateCountry(identities);
  if (duplicate >= 0) {
    throw validationError('Only one fiscal identity per country_code', {
      field: `fiscal_identities[${duplicate}].country_code`,
    });
  }
}

export async function createMerchant(
  ctx: AppContext,
  principal: Principal,
  input: z.infer<typeof CreateMerchantBody>,
  finalize?: Finalize<MerchantWithFisconline>,
): Promise<MerchantWithFisconline> {
  if (principal.kind !== 'tenant') throw forbidden('Only tenant keys create merchants');
  if (input.country_code !== principal.countryCode) {
    throw forbidden(`This key is scoped to ${principal.countryCode} and cannot create a merchant in ${input.country_code}`, {
      field: 'country_code',
    });
  }
  checkIdentities(input.fiscal_identities);
  const { stored, fisconline } = splitIdentities(input.fiscal_identities);
  return ctx.db.$transaction(async (tx) => {
    const created = await tx.merchant.create({
      data: {
        id: newId('mer'),
        tenantId: principal.tenantId,
        legalName: input.legal_name,
        countryCode: input.country_code,
        status: input.status ?? 'active',
        address: toStoredAddress(input.address),
        fiscalIdentities: stored,
      },
    });
    if (fisconline) await writeFisconlineFields(tx, ctx.secrets, created.id, fisconline, ctx.clock());
    const merchant = await withFisconline(tx, ctx, created);
    await finalize?.(sqlOf(tx), merchant);
    return merchant;
  });
}

export async function listMerchants(ctx: AppContext, principal: Principal): Promise<MerchantWithFisconline[]> {
  const merchants = await ctx.db.merchant.findMany({
    where: {
      tenantId: principal.tenantId,
      ...(principal.countryCode ? { countryCode: principal.countryCode } : {}),
      ...(principal.organizationId ? { id: principal.organizationId } : {}),
    },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });
  const users = await fisconlineUsers(ctx.db, ctx.secrets, merchants.map((merchant) => merchant.id));
  return merchants.map((merchant) => ({ ...merchant, fisconlineUser: users.get(merchant.id) ?? null }));
}

export async function getMerchant(ctx: AppContext, principal: Principal, id: string): Promise<MerchantWithFisconline> {
  return withFisconline(ctx.db, ctx, assertMerchantAccess(principal, await ctx.db.merchant.findUnique({ where: { id } }), id));
}

export async function updateMerchant(
  ctx: AppContext,
  principal: Principal,
  id: string,
  input: z.infer<typeof UpdateMerchantBody>,
  expectedVersion: number | undefined,
  finalize?: Finalize<MerchantWithFisconline>,
): Promise<MerchantWithFisconline> {
  if (input.fiscal_identities) checkIdentities(input.fiscal_identities);
  const identities = input.fiscal_identities ? splitIdentities(input.fiscal_identities) : undefined;
  return ctx.db.$transaction(async (tx) => {
    const rows = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM merchants WHERE id = ${id} FOR UPDATE`;
    const current = rows.length ? await tx.merchant.findUnique({ where: { id } }) : null;
    const merchant = assertMerchantAccess(principal, current, id);
    assertCurrentVersion(expectedVersion, merchant.resourceVersion);
    const updated = await tx.merchant.update({
      where: { id },
      data: {
        ...(input.legal_name !== undefined ? { legalName: input.legal_name } : {}),
        ...(input.status !== undefined ? { status: input.status } : {}),
        ...(input.address !== undefined ? { address: toStoredAddress(input.address) } : {}),
        ...(identities !== undefined
          ? { fiscalIdentities: mergeFiscalIdentities(merchant.fiscalIdentities as StoredFiscalIdentity[], identities.stored) }
          : {}),
        resourceVersion: { increment: 1 },
        updatedAt: new Date(),
      },
    });
    if (identities?.fisconline) await writeFisconlineFields(tx, ctx.secrets, id, identities.fisconline, ctx.clock());
    const result = await withFisconline(tx, ctx, updated);
    await finalize?.(sqlOf(tx), result);
    return result;
  });
}

export async function deleteMerchant(ctx: AppContext, principal: Principal, id: string): Promise<void> {
  await ctx.db.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT id FROM merchants WHERE id = ${id} FOR UPDATE`;
    const merchant = assertMerchantAccess(principal, await tx.merchant.findUnique({ where: { id } }), id);
    const locations = await tx.location.count({ where: { merchantId: merchant.id } });
    if (locations > 0) {
      throw conflict('resource_conflict', 'The merchant still has locations; delete them first', { location_count: locations });
    }
    await tx.apiKey.updateMany({ where: { organizationId: merchant.id, revokedAt: null }, data: { revokedAt: new Date() } });
    await tx.merchant.delete({ where: { id } });
  });
}
