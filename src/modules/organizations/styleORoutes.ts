import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Location as LocationRecord } from '../../db/generated/client.js';
import { runIdempotentService } from '../../http/idempotency.js';
import { errorResponses } from '../common/responses.js';
import {
  CreateOrganizationLocationBody,
  createOrganizationLocation,
  OrganizationLocation,
  organizationLocationResult,
} from '../locations/styleO.js';
import { OrganizationParams, STYLE_O_IDEMPOTENCY, StyleOMutationHeaders } from '../styleO/schemas.js';
import { STYLE_O } from '../styleO/styleConstraint.js';

/** Style O routes under /v1/organizations/{organizationId} (contract 2.7, 4.3): a location is created there. */
export const organizationStyleORoutes: FastifyPluginAsyncZod = async (app) => {
  const tags = ['Locations'];

  app.post(
    '/v1/organizations/:organizationId/locations',
    {
      constraints: STYLE_O,
      schema: {
        tags,
        operationId: 'createOrganizationLocation',
        summary: 'Create a location of an organization (Style O)',
        description: 'The country is two-letter (alpha-2); the same location shows its alpha-3 country in Style M.',
        headers: StyleOMutationHeaders,
        params: OrganizationParams,
        body: CreateOrganizationLocationBody,
        response: { 201: OrganizationLocation.describe('The location created'), ...errorResponses(400, 403, 404, 409, 422) },
      },
    },
    (request, reply) =>
      runIdempotentService(
        app.ctx.idempotency, request, reply, STYLE_O_IDEMPOTENCY,
        (location: LocationRecord) => organizationLocationResult(location, 201),
        (finalize) => createOrganizationLocation(app.ctx, request.merchant, request.body, finalize),
      ),
  );
};
