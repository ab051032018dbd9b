import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Location as LocationRecord } from '../../db/generated/client.js';
import { runIdempotentService } from '../../http/idempotency.js';
import { errorResponses } from '../common/responses.js';
import { IdParams } from '../common/schemas.js';
import { BothStylesUpdateHeaders, describeBothStyles } from '../styleO/docs.js';
import { STYLE_O_IDEMPOTENCY, StyleOMutationHeaders } from '../styleO/schemas.js';
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
        operationId: 'updateLocation',
        summary: 'Update a location (only the fields sent change)',
        description:
          'Style M (with X-Service-Merchant): the Style M location, optional If-Match. Style O (without it): name, address (only the address fields sent change), timezone, metadata (keys merged; null removes a key); answers the Style O location.',
        headers: BothStylesUpdateHeaders,
        params: IdParams,
        body: z.union([UpdateLocationBody, UpdateOrganizationLocationBody]),
        response: {
          200: z
            .union([Location, OrganizationLocation])
            .describe('The location as updated: Style M its Style M form with the new resource_version, Style O its Style O form.'),
          ...errorResponses(400, 403, 404, 409, 412, 422),
        },
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
