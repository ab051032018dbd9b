import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorResponses } from '../common/responses.js';
import { IdParams } from '../common/schemas.js';
import { BothStylesHeaders } from '../styleO/docs.js';
import { merchantOrOrganizationScopeHook } from '../styleO/merchantOrOrganizationScope.js';
import { presentEvent, presentEventList } from './presenter.js';
import { Event, EventList, ListEventsQuery } from './schemas.js';
import { getEvent, listEvents } from './service.js';

const SCOPE =
  'Both styles: with X-Service-Merchant the merchant\'s events, without it the organization\'s (Service-Organization as for every Style O call); the same events either way. Another merchant\'s event is 404.';

/** The events of a merchant (= organization): what changed, in the transaction that changed it (DESIGN "Events and webhooks"). */
export const eventRoutes: FastifyPluginAsyncZod = async (app) => {
  app.addHook('onRequest', merchantOrOrganizationScopeHook(app.ctx.db));
  const tags = ['Events'];

  app.get(
    '/v1/events',
    {
      schema: {
        tags,
        operationId: 'listEvents',
        summary: 'List events, newest first',
        description: `Filter by type; pages of \`limit\` (1-200, default 50), continued with the returned \`cursor\`. ${SCOPE}`,
        headers: BothStylesHeaders,
        querystring: ListEventsQuery,
        response: {
          200: EventList.describe('A page of events, newest first; `cursor` names the next page and is null on the last'),
          ...errorResponses(400, 403, 404, 422),
        },
      },
    },
    async (request) => presentEventList(await listEvents(app.ctx, request.merchant, request.query)),
  );

  app.get(
    '/v1/events/:id',
    {
      schema: {
        tags,
        operationId: 'getEvent',
        summary: 'Get an event',
        description: `The event exactly as webhooks deliver it. ${SCOPE}`,
        headers: BothStylesHeaders,
        params: IdParams,
        response: { 200: Event.describe('The event'), ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => presentEvent(await getEvent(app.ctx, request.merchant, request.params.id)),
  );
};
