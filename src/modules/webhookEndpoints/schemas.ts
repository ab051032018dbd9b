import { z } from 'zod';
import { EVERY_EVENT_TYPE } from '../../outbox/eventTypes.js';
import { EVENT_TYPE_LIST } from '../events/schemas.js';
import { PageQuery, ResourceId, Timestamp } from '../common/schemas.js';

export const CreateWebhookEndpointBody = z.strictObject({
  url: z
    .string()
    .min(1)
    .max(2048)
    .describe(
      'Where events are POSTed: an absolute http or https URL, without credentials (the signature authenticates a webhook). In production its host must be, and resolve to, a public address (loopback, private, link-local and unique-local addresses are 422), checked again at every delivery.',
    ),
  events: z
    .array(z.string().min(1).max(100))
    .min(1)
    .max(20)
    .describe(`The event types to receive: any of ${EVENT_TYPE_LIST}; or ["${EVERY_EVENT_TYPE}"] for every type. An unknown type is 422 validation_error naming it.`),
  description: z.string().max(500).optional(),
});

export type CreateWebhookEndpointInput = z.infer<typeof CreateWebhookEndpointBody>;

export const WebhookEndpoint = z
  .object({
    id: z.string(),
    object: z.literal('webhook_endpoint'),
    url: z.string(),
    events: z.array(z.string()),
    description: z.string().nullable(),
    created_at: Timestamp,
  })
  .meta({ id: 'WebhookEndpoint' });

export type WebhookEndpointView = z.infer<typeof WebhookEndpoint>;

export const CreatedWebhookEndpoint = WebhookEndpoint.extend({
  secret: z
    .string()
    .describe('whsec_...: the key of the endpoint\'s Service-Signature HMAC, shown only in this answer (stored sealed; it cannot be read again)'),
}).meta({ id: 'CreatedWebhookEndpoint' });

export type CreatedWebhookEndpointView = z.infer<typeof CreatedWebhookEndpoint>;

export const WebhookEndpointList = z.object({ object: z.literal('list'), data: z.array(WebhookEndpoint), cursor: z.string().nullable() });

export const DeletedWebhookEndpoint = z.object({ id: z.string(), object: z.literal('webhook_endpoint'), deleted: z.literal(true) });

export const ListWebhookEndpointsQuery = z.strictObject({ ...PageQuery });

const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;

export const WebhookDeliveryAttempt = z.object({
  attempt: z.number().int().describe('1 for the first attempt'),
  attempted_at: Timestamp,
  duration_ms: z.number().int(),
  status_code: z.number().int().nullable().describe('The endpoint\'s HTTP status; null when none came (timeout, no connection, refused address)'),
  error: z.string().nullable().describe('Why the attempt did not deliver; null when it did'),
});

export const WebhookDelivery = z
  .object({
    id: z.string(),
    object: z.literal('webhook_delivery'),
    endpoint_id: z.string(),
    event_id: z.string(),
    event_type: z.string(),
    status: z
      .enum(DELIVERY_STATUSES)
      .describe('pending: waiting for its next attempt (or in one); succeeded: a 2xx answer; failed: given up, 3 days after the event'),
    attempt_count: z.number().int(),
    next_attempt_at: Timestamp.nullable().describe('When the next attempt is due; null once succeeded or failed'),
    delivered_at: Timestamp.nullable(),
    created_at: Timestamp,
    attempts: z.array(WebhookDeliveryAttempt).describe('The latest attempts, newest first (at most 10; attempt_count counts all)'),
  })
  .meta({ id: 'WebhookDelivery' });

export type WebhookDeliveryView = z.infer<typeof WebhookDelivery>;

export const WebhookDeliveryList = z.object({ object: z.literal('list'), data: z.array(WebhookDelivery), cursor: z.string().nullable() });

export const ListDeliveriesQuery = z.strictObject({
  status: z.enum(DELIVERY_STATUSES).optional(),
  event_id: ResourceId.optional(),
  ...PageQuery,
});
