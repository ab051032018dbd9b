import type { z } from 'zod';
import type { Merchant, WebhookEndpoint } from '../../db/generated/client.js';
import type { AppContext } from '../../context.js';
import { conflict, notFound, validationError } from '../../domain/errors.js';
import { newId } from '../../lib/ids.js';
import { checkDestination, destinationPolicyFor, RefusedDestinationError } from '../../outbox/destinationPolicy.js';
import { EVERY_EVENT_TYPE, isEventType } from '../../outbox/eventTypes.js';
import { newEndpointSecret } from '../../outbox/webhookSignature.js';
import { afterCursor, NEWEST_FIRST, pageOf } from '../common/cursor.js';
import { EVENT_TYPE_LIST } from '../events/schemas.js';
import type { DeliveryWithLog } from './presenter.js';
import type { CreateWebhookEndpointInput, ListDeliveriesQuery, ListWebhookEndpointsQuery } from './schemas.js';

/** Every event fans out to each subscribed endpoint in its own transaction: a bound on that work (Stripe allows 16 too). */
export const MAX_ENDPOINTS_PER_MERCHANT = 16;

/** The delivery log shows this many attempts of each delivery. */
const ATTEMPTS_SHOWN = 10;

/** The URL events will be POSTed to: absolute http(s) and, in production, a public destination. */
async function acceptedUrl(ctx: AppContext, text: string): Promise<URL> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw validationError('url must be an absolute http or https URL', { field: 'url' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw validationError(`url must be http or https, not ${url.protocol.slice(0, -1)}`, { field: 'url' });
  }
  // Deliveries would drop them: the signature is what authenticates a webhook.
  if (url.username || url.password) throw validationError('url must not carry credentials (user:password@); receivers check the signature', { field: 'url' });
  try {
    await checkDestination(url, destinationPolicyFor(ctx.config.environment));
  } catch (error) {
    if (error instanceof RefusedDestinationError) throw validationError(`url is refused: ${error.message}`, { field: 'url' });
    throw error;
  }
  return url;
}

/** The subscription: known types, each once, or "*" alone. */
function subscribedTypes(events: readonly string[]): string[] {
  const unknown = events.findIndex((name) => name !== EVERY_EVENT_TYPE && !isEventType(name));
  if (unknown >= 0) {
    throw validationError(`Unknown event type ${events[unknown]}; the types are ${EVENT_TYPE_LIST}, or "${EVERY_EVENT_TYPE}" for all`, {
      field: `events[${unknown}]`,
    });
  }
  if (events.includes(EVERY_EVENT_TYPE) && events.length > 1) {
    throw validationError(`"${EVERY_EVENT_TYPE}" subscribes to every type and stands alone`, { field: 'events' });
  }
  return [...new Set(events)];
}

/**
 * Registers an endpoint of the merchant; the secret is returned here only and
 * stored sealed (SECRETS_KEY). The merchant's row is locked while its endpoints
 * are counted, so concurrent registrations cannot pass the limit.
 */
export async function createWebhookEndpoint(ctx: AppContext, merchant: Merchant, body: CreateWebhookEndpointInput): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const events = subscribedTypes(body.events);
  const url = await acceptedUrl(ctx, body.url);
  const secret = newEndpointSecret();
  const endpoint = await ctx.db.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT id FROM merchants WHERE id = ${merchant.id} FOR UPDATE`;
    if ((await tx.webhookEndpoint.count({ where: { merchantId: merchant.id } })) >= MAX_ENDPOINTS_PER_MERCHANT) {
      throw conflict('resource_conflict', `A merchant has at most ${MAX_ENDPOINTS_PER_MERCHANT} webhook endpoints; delete one first`, {
        limit: MAX_ENDPOINTS_PER_MERCHANT,
      });
    }
    return tx.webhookEndpoint.create({
      data: {
        id: newId('we'),
        merchantId: merchant.id,
        url: url.href,
        events,
        description: body.description ?? null,
        sealedSecret: ctx.secrets.seal(secret),
      },
    });
  });
  return { endpoint, secret };
}

export async function listWebhookEndpoints(
  ctx: AppContext,
  merchant: Merchant,
  query: z.infer<typeof ListWebhookEndpointsQuery>,
): Promise<{ endpoints: WebhookEndpoint[]; cursor: string | null }> {
  const rows = await ctx.db.webhookEndpoint.findMany({
    where: { merchantId: merchant.id, ...afterCursor(query.cursor) },
    orderBy: NEWEST_FIRST,
    take: query.limit + 1,
  });
  const { page, cursor } = pageOf(rows, query.limit);
  return { endpoints: page, cursor };
}

export async function getWebhookEndpoint(ctx: AppContext, merchant: Merchant, id: string): Promise<WebhookEndpoint> {
  const endpoint = await ctx.db.webhookEndpoint.findFirst({ where: { id, merchantId: merchant.id } });
  if (!endpoint) throw notFound('webhook_endpoint', id);
  return endpoint;
}

/** Deletes the endpoint with its deliveries: nothing more is sent to it, not even retries. */
export async function deleteWebhookEndpoint(ctx: AppContext, merchant: Merchant, id: string): Promise<void> {
  const { count } = await ctx.db.webhookEndpoint.deleteMany({ where: { id, merchantId: merchant.id } });
  if (count === 0) throw notFound('webhook_endpoint', id);
}

/** The endpoint's delivery log, newest first, each delivery with its latest attempts. */
export async function listDeliveries(
  ctx: AppContext,
  merchant: Merchant,
  endpointId: string,
  query: z.infer<typeof ListDeliveriesQuery>,
): Promise<{ deliveries: DeliveryWithLog[]; cursor: string | null }> {
  await getWebhookEndpoint(ctx, merchant, endpointId);
  const status = query.status === 'pending' ? { in: ['pending', 'running'] } : query.status;
  const rows = await ctx.db.webhookDelivery.findMany({
    where: { endpointId, ...(status ? { status } : {}), ...(query.event_id ? { eventId: query.event_id } : {}), ...afterCursor(query.cursor) },
    orderBy: NEWEST_FIRST,
    take: query.limit + 1,
    include: { event: { select: { type: true } }, attemptLog: { orderBy: { attempt: 'desc' }, take: ATTEMPTS_SHOWN } },
  });
  const { page, cursor } = pageOf(rows, query.limit);
  return { deliveries: page, cursor };
}
