import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Location as LocationRecord } from '../../db/generated/client.js';
import { runIdempotentService, type HttpResult } from '../../http/idempotency.js';
import { errorResponses, MutationHeaders, StyleMHeaders } from '../common/responses.js';
import { IdParams } from '../common/schemas.js';
import { Location, UpdateLocationBody } from '../locations/schemas.js';
import { describeBothStyles } from './docs.js';
import {
  CreateOrganizationLocationBody,
  createOrganizationLocation,
  OrganizationLocation,
  presentOrganizationLocation,
  UpdateOrganizationLocationBody,
  updateOrganizationLocation,
} from './locations.js';
import { OrganizationParams, StyleOHeaders, StyleOMutationHeaders } from './schemas.js';
import { STYLE_O } from './styleConstraint.js';

const locationResult = (location: LocationRecord, status: number): HttpResult => ({
  status,
  body: presentOrganizationLocation(location),
});

const IDEMPOTENCY = { required: false, format: 'uuid' } as const;

/** Style O locations (contract 2.7, 4.3): the same records as the Style M locations. */
export const organizationLocationRoutes: FastifyPluginAsyncZod = async (app) => {
  const tags = ['Locations'];

  app.post(
    '/v1/organizations/:organizationId/locations',
    {
      constraints: STYLE_O,
      schema: {
        tags,
        summary: 'Create a location of an organization (Style O)',
        description: 'The country is two-letter (alpha-2); the same location shows its alpha-3 country in Style M.',
        headers: StyleOMutationHeaders,
        params: OrganizationParams,
        body: CreateOrganizationLocationBody,
        response: { 201: OrganizationLocation, ...errorResponses(400, 403, 404, 409, 422) },
      },
    },
    (request, reply) =>
      runIdempotentService(
        app.ctx.idempotency, request, reply, IDEMPOTENCY,
        (location: LocationRecord) => locationResult(location, 201),
        (finalize) => createOrganizationLocation(app.ctx, request.merchant, request.body, finalize),
      ),
  );

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
        app.ctx.idempotency, request, reply, IDEMPOTENCY,
        (location: LocationRecord) => locationResult(location, 200),
        (finalize) => updateOrganizationLocation(app.ctx, request.merchant, request.params.id, request.body, finalize),
      ),
  );
};
