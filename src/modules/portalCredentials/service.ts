import type { z } from 'zod';
import type { AppContext } from '../../context.js';
import type { FiscalPortalCredential, Merchant } from '../../db/generated/client.js';
import { sqlOf } from '../../db/sql.js';
import type { Tx } from '../../db/transaction.js';
import { conflict, DomainError, notFound, unprocessable } from '../../domain/errors.js';
import { credentialViolations, passwordExpiresAt } from '../../domain/portalCredentials/credentialRules.js';
import type { PortalTypeName } from '../../domain/portalCredentials/portalTypes.js';
import { newId } from '../../lib/ids.js';
import type { Finalize } from '../common/transactions.js';
import { credentialChange } from './credentialChange.js';
import { FISCONLINE, hasItalianIdentity } from './fisconlineIdentity.js';
import type { CreatePortalCredentialBody, UpdatePortalCredentialBody } from './schemas.js';
import { openCredentials, sealCredentials } from './sealedFields.js';
import { resumeSubmissionsAwaitingLogin } from '../../fiscal/rksv/finanzOnline/submissions.js';
import { portalClientFor } from '../../fiscal/portals/simulatedPortal.js';

function checkRules(type: PortalTypeName, input: Parameters<typeof credentialViolations>[1]): void {
  const [violation] = credentialViolations(type, input);
  if (violation) throw unprocessable(violation.code, violation.message, { field: violation.field });
}

/** Locks the organization: credential writes and merchant writes of its ITA identity take turns. */
async function lockOrganization(tx: Tx, organizationId: string): Promise<Merchant> {
  await tx.$queryRaw`SELECT id FROM merchants WHERE id = ${organizationId} FOR UPDATE`;
  return tx.merchant.findUniqueOrThrow({ where: { id: organizationId } });
}

async function lockCredential(tx: Tx, organizationId: string, id: string): Promise<FiscalPortalCredential> {
  await tx.$queryRaw`SELECT id FROM fiscal_portal_credentials WHERE id = ${id} FOR UPDATE`;
  const credential = await tx.fiscalPortalCredential.findFirst({ where: { id, merchantId: organizationId } });
  if (!credential) throw notFound('fiscal_portal_credential', id);
  return credential;
}

/** Whether this credential is also the organization's ITA fiscal identity's fisconline_* fields. */
const isIdentityCredential = (credential: FiscalPortalCredential, organization: Merchant): boolean =>
  credential.portalType === FISCONLINE && hasItalianIdentity(organization.fiscalIdentities);

export async function createPortalCredential(
  ctx: AppContext,
  organization: Merchant,
  input: z.infer<typeof CreatePortalCredentialBody>,
  finalize?: Finalize<FiscalPortalCredential>,
): Promise<FiscalPortalCredential> {
  const type = input.portal_type as PortalTypeName;
  checkRules(type, input);
  const now = ctx.clock();
  return ctx.db.$transaction(async (tx) => {
    await lockOrganization(tx, organization.id);
    if (type === FISCONLINE) {
      const existing = await tx.fiscalPortalCredential.findFirst({ where: { merchantId: organization.id, portalType: FISCONLINE }, select: { id: true } });
      if (existing) {
        throw conflict('fiscal_portal_credential_exists', 'An organization has one Fisconline credential (also its ITA fiscal identity\'s); update it instead', {
          field: 'portal_type',
          credential_id: existing.id,
        });
      }
    }
    const passwordSetAt = input.credentials.password !== undefined ? now : null;
    const credential = await tx.fiscalPortalCredential.create({
      data: {
        id: newId('fpc'),
        merchantId: organization.id,
        portalType: type,
        jurisdiction: input.jurisdiction,
        label: input.label ?? null,
        state: 'unvalidated',
        ...sealCredentials(input.credentials, ctx.secrets),
        passwordSetAt,
        expiresAt: passwordExpiresAt(type, passwordSetAt),
        createdAt: now,
        updatedAt: now,
      },
    });
    await resumeSubmissionsAwaitingLogin(sqlOf(tx), organization.id);
    await finalize?.(sqlOf(tx), credential);
    return credential;
  });
}

export async function listPortalCredentials(ctx: AppContext, organization: Merchant, portalType: string | undefined): Promise<FiscalPortalCredential[]> {
  return ctx.db.fiscalPortalCredential.findMany({
    where: { merchantId: organization.id, ...(portalType ? { portalType } : {}) },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
  });
}

export async function getPortalCredential(ctx: AppContext, organization: Merchant, id: string): Promise<FiscalPortalCredential> {
  const credential = await ctx.db.fiscalPortalCredential.findFirst({ where: { id, merchantId: organization.id } });
  if (!credential) throw notFound('fiscal_portal_credential', id);
  return credential;
}

export async function updatePortalCredential(
  ctx: AppContext,
  organization: Merchant,
  id: string,
  input: z.infer<typeof UpdatePortalCredentialBody>,
  finalize?: Finalize<FiscalPortalCredential>,
): Promise<FiscalPortalCredential> {
  const now = ctx.clock();
  return ctx.db.$transaction(async (tx) => {
    const current = await lockOrganization(tx, organization.id);
    const credential = await lockCredential(tx, organization.id, id);
    checkRules(credential.portalType as PortalTypeName, input);
    const change = input.credentials ? credentialChange(credential, input.credentials, ctx.secrets, now) : { changed: [], data: {} };
    const updated = await tx.fiscalPortalCredential.update({
      where: { id },
      data: { ...change.data, ...(input.label !== undefined ? { label: input.label } : {}), updatedAt: now },
    });
    // The merchant's ITA identity changed with it: its Style M resource_version moves on, so ETags stay honest.
    if (change.changed.length && isIdentityCredential(credential, current)) {
      await tx.merchant.update({ where: { id: organization.id }, data: { resourceVersion: { increment: 1 }, updatedAt: now } });
    }
    if (change.changed.length) await resumeSubmissionsAwaitingLogin(sqlOf(tx), organization.id);
    await finalize?.(sqlOf(tx), updated);
    return updated;
  });
}

export async function deletePortalCredential(ctx: AppContext, organization: Merchant, id: string): Promise<void> {
  await ctx.db.$transaction(async (tx) => {
    const current = await lockOrganization(tx, organization.id);
    const credential = await lockCredential(tx, organization.id, id);
    if (isIdentityCredential(credential, current)) {
      throw conflict('fiscal_portal_credential_in_use', "This Fisconline credential is the organization's ITA fiscal identity's; update it instead", {
        credential_id: id,
      });
    }
    await tx.fiscalPortalCredential.delete({ where: { id } });
  });
}

/** No client of the live portals exists: production cannot validate, and says so. */
const noPortalClient = () =>
  new DomainError(
    'not_implemented',
    'not_implemented',
    'Credentials cannot be validated against the live portals: this service has no client for them. The sandbox validates against a simulated portal.',
  );

/**
 * Logs in to the portal with the credential (outside any transaction: a portal is remote) and
 * records what it answered: `valid` with last_validated_at, or `invalid` with validation_error.
 */
export async function validatePortalCredential(
  ctx: AppContext,
  organization: Merchant,
  id: string,
  finalize?: Finalize<FiscalPortalCredential>,
): Promise<FiscalPortalCredential> {
  const portal = portalClientFor(ctx.config.environment);
  if (!portal) throw noPortalClient();
  const validated = await getPortalCredential(ctx, organization, id);
  const outcome = await portal.checkLogin(validated.portalType as PortalTypeName, openCredentials(validated, ctx.secrets));
  const now = ctx.clock();
  return ctx.db.$transaction(async (tx) => {
    const credential = await lockCredential(tx, organization.id, validated.id);
    // The secrets changed while the portal was asked: its answer is about the old ones.
    if (credential.updatedAt.getTime() !== validated.updatedAt.getTime()) {
      throw conflict('fiscal_portal_credential_changed', 'The credential changed while it was validated; validate it again', {
        credential_id: credential.id,
      });
    }
    const updated = await tx.fiscalPortalCredential.update({
      where: { id: credential.id },
      data: outcome.accepted
        ? { state: 'valid', lastValidatedAt: now, validationError: null }
        : { state: 'invalid', validationError: outcome.reason },
    });
    await finalize?.(sqlOf(tx), updated);
    return updated;
  });
}
