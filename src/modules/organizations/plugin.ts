import type { FastifyPluginAsync } from 'fastify';
import { canonicalReceiptRoutes } from '../canonicalReceipts/routes.js';
import { refundRoutes } from '../refunds/routes.js';
import { organizationLocationRoutes } from './locationRoutes.js';
import { organizationScopeHook } from './organizationScope.js';

/**
 * Every Style O route (organization-scoped; contract 2.7-2.9, 3.4, 4.3),
 * with full /v1 paths. Routes that share a method and path with a Style M
 * route declare `constraints: { style: 'O' }`, so the app must be built with
 * `routerOptions.constraints.style = styleConstraint` (./styleConstraint.ts).
 * The organization is resolved (./organizationScope.ts) after authentication,
 * and set as request.merchant.
 */
export const styleORoutes: FastifyPluginAsync = async (app) => {
  app.addHook('onRequest', organizationScopeHook(app.ctx.db));
  await app.register(organizationLocationRoutes);
  await app.register(refundRoutes);
  await app.register(canonicalReceiptRoutes);
};
