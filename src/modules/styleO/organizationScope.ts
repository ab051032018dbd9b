import type { FastifyRequest } from 'fastify';
import type { Prisma } from '../../db/database.js';
import type { Merchant } from '../../db/generated/client.js';
import type { Principal } from '../../http/auth.js';
import { forbidden, invalidRequest, notFound } from '../../domain/errors.js';

export const ORGANIZATION_HEADER = 'Service-Organization';

function headerValue(request: FastifyRequest): string | undefined {
  const raw = request.headers['service-organization'];
  const value = (Array.isArray(raw) ? raw[0] : raw)?.trim();
  return value ? value : undefined;
}

const missingHeader = () =>
  invalidRequest(`${ORGANIZATION_HEADER} header is required: name the organization this call acts for`, { header: ORGANIZATION_HEADER });

/**
 * The organization (= merchant, same id) a Style O call acts for (contract 5.4, DESIGN "Keys"):
 *
 * - platform key: must send Service-Organization (400 without); only its tenant's organizations
 *   exist for it (another tenant's: 404).
 * - organization key: acts for its own organization; the header may be left out, and naming a
 *   different organization is 403.
 * - tenant key (country-scoped): names the organization in Service-Organization, or lets the path
 *   name it (`/organizations/{organizationId}/...`); another tenant's organization is 404, one of
 *   its tenant outside the key's country is 403 when named in the header (as in Style M) and 404
 *   when named only in the path. Without either it is 400.
 *
 * An organization in the path (or, on a list, in its `organization_id` query parameter) must
 * be the one the call acts for, else 404.
 */
export async function resolveOrganization(
  db: Prisma,
  principal: Principal,
  header: string | undefined,
  pathOrganizationId: string | undefined,
): Promise<Merchant> {
  let organization: Merchant;
  if (principal.kind === 'platform') {
    if (!header) throw missingHeader();
    organization = await findInTenant(db, principal, header);
  } else if (principal.kind === 'organization') {
    if (header && header !== principal.organizationId) {
      throw forbidden('This key is bound to another organization', { header: ORGANIZATION_HEADER });
    }
    organization = await findInTenant(db, principal, principal.organizationId!);
    assertCountry(principal, organization);
  } else if (header) {
    organization = await findInTenant(db, principal, header);
    assertCountry(principal, organization);
  } else if (pathOrganizationId) {
    organization = await findInTenant(db, principal, pathOrganizationId);
    if (principal.countryCode && organization.countryCode !== principal.countryCode) throw notFound('organization', pathOrganizationId);
  } else {
    throw missingHeader();
  }
  if (pathOrganizationId !== undefined && pathOrganizationId !== organization.id) throw notFound('organization', pathOrganizationId);
  return organization;
}

async function findInTenant(db: Prisma, principal: Principal, id: string): Promise<Merchant> {
  const organization = await db.merchant.findUnique({ where: { id } });
  if (!organization || organization.tenantId !== principal.tenantId) throw notFound('organization', id);
  return organization;
}

function assertCountry(principal: Principal, organization: Merchant): void {
  if (principal.countryCode && organization.countryCode !== principal.countryCode) {
    throw forbidden(`This key is scoped to ${principal.countryCode}; the organization is in ${organization.countryCode}`, {
      key_country_code: principal.countryCode,
      organization_country_code: organization.countryCode,
    });
  }
}

/**
 * onRequest hook of the Style O routes (after authentication): resolves the organization and
 * sets it as `request.merchant`, so services and idempotency scopes work on it as on a merchant.
 */
export function organizationScopeHook(db: Prisma) {
  return async (request: FastifyRequest): Promise<void> => {
    if (request.routeOptions.config.auth === 'public' || !request.principal) return;
    const params = (request.params ?? {}) as Record<string, string | undefined>;
    const query = (request.query ?? {}) as Record<string, unknown>;
    const named = params.organizationId ?? (typeof query.organization_id === 'string' ? query.organization_id : undefined);
    request.merchant = await resolveOrganization(db, request.principal, headerValue(request), named);
  };
}
