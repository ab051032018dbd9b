import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorResponses } from '../common/responses.js';
import { IdParams } from '../common/schemas.js';
import { BothStylesHeaders } from '../styleO/docs.js';
import { merchantOrOrganizationScopeHook } from '../styleO/merchantOrOrganizationScope.js';
import {
  presentCreatedWebhookEndpoint,
  presentDeletedWebhookEndpoint,
  presentDeliveryList,
  presentWebhookEndpoint,
  presentWebhookEndpointList,
} from './presenter.js';
import {
  CreatedWebhookEndpoint,
  CreateWebhookEndpointBody,
  DeletedWebhookEndpoint,
  ListDeliveriesQuery,
  ListWebhookEndpointsQuery,
  WebhookDeliveryList,
  WebhookEndpoint,
  WebhookEndpointList,
} from './schemas.js';
import { createWebhookEndpoint, deleteWebhookEndpoint, getWebhookEndpoint, listDeliveries, listWebhookEndpoints } from './service.js';

const SCOPE =
  'Both styles: with X-Service-Merchant the merchant\'s endpoints, without it the organization\'s (Service-Organization as for every Style O call); an endpoint receives the events of its merchant only. Another merchant\'s endpoint is 404.';

/** Webhook endpoints: where a merchant's events are POSTed, signed (DESIGN "Events and webhooks"). */
export const webhookEndpointRoutes: FastifyPluginAsyncZod = async (app) => {
  app.addHook('onRequest', merchantOrOrganizationScopeHook(app.ctx.db));
  const tags = ['Webhooks'];

  app.post(
    '/v1/webhook-endpoints',
    {
      schema: {
        tags,
        operationId: 'createWebhookEndpoint',
        summary: 'Register a webhook endpoint',
        description:
          'Every event of a subscribed type is POSTed to `url` as JSON (the event as GET /v1/events/{id} shows it) with the header ' +
          '`Service-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" keyed with the secret>`; a non-2xx answer, a timeout (10 s) ' +
          'or a failed connection is retried with exponential backoff for up to 3 days (sandbox: at most 30 s apart). ' +
          `Takes no Idempotency-Key: a replayed answer would have to keep the secret in clear. At most 16 endpoints per merchant (then 409 resource_conflict). ${SCOPE}`,
        headers: BothStylesHeaders,
        body: CreateWebhookEndpointBody,
        response: {
          201: CreatedWebhookEndpoint.describe('The endpoint, with its signing secret (shown only here)'),
          ...errorResponses(400, 403, 404, 409, 422),
        },
      },
    },
    async (request, reply) => {
      const { endpoint, secret } = await createWebhookEndpoint(app.ctx, request.merchant, request.body);
      return reply.code(201).send(presentCreatedWebhookEndpoint(endpoint, secret));
    },
  );

  app.get(
    '/v1/webhook-endpoints',
    {
      schema: {
        tags,
        operationId: 'listWebhookEndpoints',
        summary: 'List webhook endpoints, newest first',
        description: `Pages of \`limit\` (1-200, default 50), continued with the returned \`cursor\`. ${SCOPE}`,
        headers: BothStylesHeaders,
        querystring: ListWebhookEndpointsQuery,
        response: { 200: WebhookEndpointList.describe('A page of endpoints, newest first, without their secrets'), ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => presentWebhookEndpointList(await listWebhookEndpoints(app.ctx, request.merchant, request.query)),
  );

  app.get(
    '/v1/webhook-endpoints/:id',
    {
      schema: {
        tags,
        operationId: 'getWebhookEndpoint',
        summary: 'Get a webhook endpoint',
        description: SCOPE,
        headers: BothStylesHeaders,
        params: IdParams,
        response: { 200: WebhookEndpoint.describe('The endpoint, without its secret'), ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => presentWebhookEndpoint(await getWebhookEndpoint(app.ctx, request.merchant, request.params.id)),
  );

  app.delete(
    '/v1/webhook-endpoints/:id',
    {
      schema: {
        tags,
        operationId: 'deleteWebhookEndpoint',
        summary: 'Delete a webhook endpoint',
        description: `Nothing more is sent to it, not even retries of earlier events; its delivery log goes with it. ${SCOPE}`,
        headers: BothStylesHeaders,
        params: IdParams,
        response: { 200: DeletedWebhookEndpoint.describe('The endpoint is deleted'), ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => {
      await deleteWebhookEndpoint(app.ctx, request.merchant, request.params.id);
      return presentDeletedWebhookEndpoint(request.params.id);
    },
  );

  app.get(
    '/v1/webhook-endpoints/:id/deliveries',
    {
      schema: {
        tags,
        operationId: 'listWebhookDeliveries',
        summary: 'The delivery log of a webhook endpoint, newest first',
        description:
          'One delivery per event sent to the endpoint: its status, the next attempt while pending, and its latest attempts (time, duration, HTTP status, error). ' +
          `Filters status and event_id; pages of \`limit\` (1-200, default 50) with \`cursor\`. ${SCOPE}`,
        headers: BothStylesHeaders,
        params: IdParams,
        querystring: ListDeliveriesQuery,
        response: { 200: WebhookDeliveryList.describe('A page of deliveries, newest first'), ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => presentDeliveryList(await listDeliveries(app.ctx, request.merchant, request.params.id, request.query)),
  );
};
