import type { WebhookDelivery, WebhookDeliveryAttempt, WebhookEndpoint } from '../../db/generated/client.js';
import type { z } from 'zod';
import type { CreatedWebhookEndpointView, DeletedWebhookEndpoint, WebhookDeliveryList, WebhookDeliveryView, WebhookEndpointList, WebhookEndpointView } from './schemas.js';

export const presentWebhookEndpoint = (endpoint: WebhookEndpoint): WebhookEndpointView => ({
  id: endpoint.id,
  object: 'webhook_endpoint',
  url: endpoint.url,
  events: endpoint.events,
  description: endpoint.description,
  created_at: endpoint.createdAt.toISOString(),
});

/** The answer to its creation, the only one that shows the secret. */
export const presentCreatedWebhookEndpoint = (endpoint: WebhookEndpoint, secret: string): CreatedWebhookEndpointView => ({
  ...presentWebhookEndpoint(endpoint),
  secret,
});

export type DeliveryWithLog = WebhookDelivery & { event: { type: string }; attemptLog: WebhookDeliveryAttempt[] };

/** A delivery in the endpoint's log; one being attempted is still pending to the merchant. */
export function presentDelivery(delivery: DeliveryWithLog): WebhookDeliveryView {
  const status = delivery.status === 'running' ? 'pending' : (delivery.status as WebhookDeliveryView['status']);
  return {
    id: delivery.id,
    object: 'webhook_delivery',
    endpoint_id: delivery.endpointId,
    event_id: delivery.eventId,
    event_type: delivery.event.type,
    status,
    attempt_count: delivery.attempts,
    next_attempt_at: status === 'pending' ? delivery.runAfter.toISOString() : null,
    delivered_at: delivery.deliveredAt?.toISOString() ?? null,
    created_at: delivery.createdAt.toISOString(),
    attempts: delivery.attemptLog.map((attempt) => ({
      attempt: attempt.attempt,
      attempted_at: attempt.attemptedAt.toISOString(),
      duration_ms: attempt.durationMs,
      status_code: attempt.statusCode,
      error: attempt.error,
    })),
  };
}

export const presentWebhookEndpointList = (list: { endpoints: WebhookEndpoint[]; cursor: string | null }): z.infer<typeof WebhookEndpointList> => ({
  object: 'list',
  data: list.endpoints.map(presentWebhookEndpoint),
  cursor: list.cursor,
});

export const presentDeletedWebhookEndpoint = (id: string): z.infer<typeof DeletedWebhookEndpoint> => ({ id, object: 'webhook_endpoint', deleted: true });

export const presentDeliveryList = (list: { deliveries: DeliveryWithLog[]; cursor: string | null }): z.infer<typeof WebhookDeliveryList> => ({
  object: 'list',
  data: list.deliveries.map(presentDelivery),
  cursor: list.cursor,
});
