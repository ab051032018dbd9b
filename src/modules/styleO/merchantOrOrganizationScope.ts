import type { FastifyRequest } from 'fastify';
import type { Prisma } from '../../db/database.js';
import { assertMerchantAccess } from '../../http/auth.js';
import { forbidden, invalidRequest } from '../../domain/errors.js';
import { resolveOrganization } from './organizationScope.js';

const single = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/**
 * onRequest hook of the routes both styles call with one handler, whose
 * resources belong to a merchant (= organization) whichever style created them
 * (events, webhook endpoints). With X-Service-Merchant the merchant is resolved
 * as a Style M call's (contract 5.5, 5.6; platform keys are 403 there), without
 * it the organization as a Style O call's (./organizationScope.ts); either way
 * it becomes `request.merchant`, so another merchant's resources are 404.
 */
export function merchantOrOrganizationScopeHook(db: Prisma) {
  return async (request: FastifyRequest): Promise<void> => {
    if (request.routeOptions.config.auth === 'public' || !request.principal) return;
    const merchantHeader = single(request.headers['x-service-merchant']);
    if (merchantHeader === undefined) {
      request.merchant = await resolveOrganization(db, request.principal, single(request.headers['service-organization'])?.trim() || undefined, undefined);
      return;
    }
    const merchantId = merchantHeader.trim();
    if (!merchantId) throw invalidRequest('X-Service-Merchant must name a merchant', { header: 'X-Service-Merchant' });
    if (request.principal.kind === 'platform') {
      throw forbidden('Platform keys act on organizations (Service-Organization), not through X-Service-Merchant');
    }
    request.merchant = assertMerchantAccess(request.principal, await db.merchant.findUnique({ where: { id: merchantId } }), merchantId);
  };
}
