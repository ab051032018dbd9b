import type { FastifyPluginAsync } from 'fastify';
// openapi.json lists the schemas that have an id in the order their modules load: loaded first,
// these keep its order (the shared shapes, RefundOperation, CanonicalReceipt, then OrganizationLocation).
import '../refunds/schemas.js';
import '../canonicalReceipts/schemas.js';
import { invoiceRoutes } from '../invoices/routes.js';
import { fiscalCertificateRoutes } from '../fiscalCertificates/routes.js';
import { invoiceChannelRoutes } from '../invoiceChannels/routes.js';
import { locationStyleORoutes } from '../locations/styleORoutes.js';
import { operationStyleORoutes } from '../operations/styleORoutes.js';
import { organizationStyleORoutes } from '../organizations/styleORoutes.js';
import { portalCredentialRoutes } from '../portalCredentials/routes.js';
import { registerStyleORoutes } from '../registers/styleORoutes.js';
import { organizationScopeHook } from './organizationScope.js';

/**
 * Every Style O route (organization-scoped; contract 2.7-2.9, 2.11, 2.12, 3.4, 4.3),
 * with full /v1 paths, each in the styleORoutes.ts of the module its path
 * starts with. Routes that share a method and path with a Style M route
 * declare `constraints: { style: 'O' }`, so the app must be built with
 * `routerOptions.constraints.style = styleConstraint` (./styleConstraint.ts).
 * The organization is resolved (./organizationScope.ts) after authentication,
 * and set as request.merchant.
 */
export const styleORoutes: FastifyPluginAsync = async (app) => {
  app.addHook('onRequest', organizationScopeHook(app.ctx.db));
  await app.register(organizationStyleORoutes);
  await app.register(locationStyleORoutes);
  await app.register(registerStyleORoutes);
  await app.register(operationStyleORoutes);
  await app.register(invoiceRoutes);
  await app.register(fiscalCertificateRoutes);
  await app.register(portalCredentialRoutes);
  await app.register(invoiceChannelRoutes);
};
