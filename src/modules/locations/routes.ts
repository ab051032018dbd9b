import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Location as LocationRecord } from '../../db/generated/client.js';
import { etagOf, parseIfMatch } from '../../http/concurrency.js';
import { runIdempotentService, sendResult, type HttpResult } from '../../http/idempotency.js';
import { errorResponses, IdempotencyHeaders, StyleMHeaders, UpdateHeaders } from '../common/responses.js';
import { DeletedResponse, IdParams, listOf } from '../common/schemas.js';
import { presentLocation } from './presenter.js';
import { CreateLocationBody, Location, UpdateLocationBody } from './schemas.js';
import { createLocation, deleteLocation, getLocation, listLocations, updateLocation } from './service.js';

const locationResult = (location: LocationRecord, status: number): HttpResult => ({
  status,
  body: presentLocation(location),
  headers: { etag: etagOf(location.resourceVersion) },
});

/** Style M locations (merchant-scoped through X-Service-Merchant). */
export const locationRoutes: FastifyPluginAsyncZod = async (app) => {
  const tags = ['Locations'];
  const config = { merchantScoped: true };

  app.post(
    '/locations',
    {
      config,
      schema: {
        tags,
        operationId: 'createLocation',
        summary: 'Create a location',
        headers: StyleMHeaders.merge(IdempotencyHeaders),
        body: CreateLocationBody,
        response: { 201: Location.describe('The location created; ETag carries its resource_version'), ...errorResponses(400, 403, 404, 409, 422) },
      },
    },
    (request, reply) =>
      runIdempotentService(
        app.ctx.idempotency, request, reply, { required: false },
        (location: LocationRecord) => locationResult(location, 201),
        (finalize) => createLocation(app.ctx, request.merchant, request.body, finalize),
      ),
  );

  app.get(
    '/locations',
    {
      config,
      schema: {
        tags,
        operationId: 'listLocations',
        summary: 'List locations',
        headers: StyleMHeaders,
        response: { 200: listOf(Location).describe("The merchant's locations"), ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => ({ data: (await listLocations(app.ctx, request.merchant)).map(presentLocation) }),
  );

  app.get(
    '/locations/:id',
    {
      config,
      schema: {
        tags,
        operationId: 'getLocation',
        summary: 'Get a location',
        headers: StyleMHeaders,
        params: IdParams,
        response: { 200: Location.describe('The location; ETag carries its resource_version'), ...errorResponses(400, 403, 404) },
      },
    },
    async (request, reply) => sendResult(reply, locationResult(await getLocation(app.ctx, request.merchant, request.params.id), 200)),
  );

  app.patch(
    '/locations/:id',
    {
      config,
      schema: {
        tags,
        operationId: 'updateLocation',
        summary: 'Update a location (only the fields sent change)',
        headers: StyleMHeaders.merge(UpdateHeaders),
        params: IdParams,
        body: UpdateLocationBody,
        response: { 200: Location.describe('The location as updated, with its new resource_version'), ...errorResponses(400, 403, 404, 409, 412, 422) },
      },
    },
    (request, reply) => {
      // A malformed If-Match is answered before the key is looked at, so it is never stored under it.
      const expected = parseIfMatch(request.headers['if-match'], false);
      return runIdempotentService(
        app.ctx.idempotency, request, reply, { required: false },
        (location: LocationRecord) => locationResult(location, 200),
        (finalize) => updateLocation(app.ctx, request.merchant, request.params.id, request.body, expected, finalize),
      );
    },
  );

  app.delete(
    '/locations/:id',
    {
      config,
      schema: {
        tags,
        operationId: 'deleteLocation',
        summary: 'Delete a location without registers',
        headers: StyleMHeaders,
        params: IdParams,
        response: { 200: DeletedResponse.describe('The location was deleted'), ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (request) => {
      await deleteLocation(app.ctx, request.merchant, request.params.id);
      return { id: request.params.id, deleted: true as const };
    },
  );
};
