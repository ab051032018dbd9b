import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Location as LocationRecord } from '../../db/generated/client.js';
import { runIdempotentService } from '../../http/idempotency.js';
import { errorResponses, MutationHeaders, StyleMHeaders } from '../common/responses.js';
import { IdParams } from '../common/schemas.js';
import { describeBothStyles } from '../styleO/docs.js';
import { STYLE_O_IDEMPOTENCY, StyleOHeaders, StyleOMutationHeaders } from '../styleO/schemas.js';
import { STYLE_O } from '../styleO/styleConstraint.js';
import { Location, UpdateLocationBody } from './schemas.js';
import { OrganizationLocation, organizationLocationResult, UpdateOrganizationLocationBody, updateOrganizationLocation } from './styleO.js';

/**
 * Style O locations (contract 2.7, 4.3): the same records as the Style M
 * locations of ./routes.ts; created under /v1/organizations (modules/organizations).
 */
export const locationStyleORoutes: FastifyPluginAsyncZod = async (app) => {
  const tags = ['Locations'];

  app.patch(
    '/v1/locations/:id',
    {
      constraints: STYLE_O,
      config: describeBothStyles({
        tags,
        summary: 'Update a location (only the fields sent change)',
        description:
          'Style M (with X-Service-Merchant): the Style M location, optional If-Match. Style O (without it): name, address (only the address fields sent change), timezone, metadata (keys merged; null removes a key); answers the Style O location.',
        headers: StyleMHeaders.merge(MutationHeaders).merge(StyleOHeaders),
        params: IdParams,
        body: z.union([UpdateLocationBody, UpdateOrganizationLocationBody]),
        response: { 200: z.union([Location, OrganizationLocation]), ...errorResponses(400, 403, 404, 409, 412, 422) },
      }),
      schema: {
        tags,
        summary: 'Update a location (Style O; only the fields sent change)',
        headers: StyleOMutationHeaders,
        params: IdParams,
        body: UpdateOrganizationLocationBody,
        response: { 200: OrganizationLocation, ...errorResponses(400, 403, 404, 409, 422) },
      },
    },
    (request, reply) =>
      runIdempotentService(
        app.ctx.idempotency, request, reply, STYLE_O_IDEMPOTENCY,
        (location: LocationRecord) => organizationLocationResult(location, 200),
        (finalize) => updateOrganizationLocation(app.ctx, request.merchant, request.params.id, request.body, finalize),
      ),
  );
};
