// Event retention: events older than EVENT_RETENTION_DAYS go with their deliveries and attempts,
// every merchant's, a batch at a time; an event whose delivery is still pending stays, as do newer ones.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { MIN_EVENT_RETENTION_DAYS } from '../../src/domain/webhookDeliveryWindow.js';
import { pruneExpiredEvents } from '../../src/outbox/eventRetention.js';
import { createAndCompleteSale, fiscalizedRegisterWithSession, type OperationsFixture } from '../support/operations.js';
import { createTenantWithKey, createTestApp, json, type TestApp } from '../support/testApp.js';

let t: TestApp;
let shop: OperationsFixture;
let otherShop: OperationsFixture;

beforeAll(async () => {
  // No worker: each delivery stays as the test sets it.
  t = await createTestApp({ EXPORT_WORKER: 'off' });
  shop = await fiscalizedRegisterWithSession(t.app, (await createTenantWithKey(t.database)).apiKey);
  otherShop = await fiscalizedRegisterWithSession(t.app, (await createTenantWithKey(t.database)).apiKey);
});
afterAll(async () => {
  await t.close();
});

/** The event of a completed sale, with its delivery to the merchant's endpoint. */
async function saleEvent(fixture: OperationsFixture, endpointId: string) {
  const sale = await createAndCompleteSale(t.app, fixture);
  const [event] = await t.database.sql.query<{ id: string; delivery_id: string }>(
    `SELECT e.id, d.id AS delivery_id FROM events e JOIN webhook_deliveries d ON d.event_id = e.id
      WHERE e.data->'object'->>'id' = $1 AND d.endpoint_id = $2`,
    [sale.id, endpointId],
  );
  return event;
}

async function endpointOf(fixture: OperationsFixture) {
  const response = await t.app.inject({
    method: 'POST',
    url: '/v1/webhook-endpoints',
    headers: fixture.headers,
    payload: { url: 'http://127.0.0.1:9/hooks', events: ['*'] },
  });
  expect(response.statusCode, response.body).toBe(201);
  return json(response).id as string;
}

async function settle(deliveryId: string, status: 'succeeded' | 'failed' | 'pending') {
  await t.database.sql.query(`UPDATE webhook_deliveries SET status = $2, attempts = 1 WHERE id = $1`, [deliveryId, status]);
  await t.database.sql.query(
    `INSERT INTO webhook_delivery_attempts (delivery_id, attempt, attempted_at, duration_ms, status_code, error) VALUES ($1, 1, now(), 12, $2, NULL)`,
    [deliveryId, status === 'succeeded' ? 200 : 500],
  );
}

const ageDays = (eventId: string, days: number) =>
  t.database.sql.query(`UPDATE events SET created_at = now() - make_interval(days => $2) WHERE id = $1`, [eventId, days]);

const eventStatus = async (fixture: OperationsFixture, eventId: string) =>
  (await t.app.inject({ method: 'GET', url: `/v1/events/${eventId}`, headers: fixture.headers })).statusCode;

const rowsOf = async (deliveryId: string) => {
  const [{ deliveries, attempts }] = await t.database.sql.query<{ deliveries: number; attempts: number }>(
    `SELECT (SELECT count(*)::int FROM webhook_deliveries WHERE id = $1) AS deliveries,
            (SELECT count(*)::int FROM webhook_delivery_attempts WHERE delivery_id = $1) AS attempts`,
    [deliveryId],
  );
  return { deliveries, attempts };
};

describe('pruneExpiredEvents', () => {
  it('deletes the events past the retention whose deliveries ended, with their deliveries and attempts, and keeps the rest', async () => {
    const endpoint = await endpointOf(shop);
    const otherEndpoint = await endpointOf(otherShop);
    const delivered = await saleEvent(shop, endpoint);
    const givenUp = await saleEvent(shop, endpoint);
    const stillPending = await saleEvent(shop, endpoint);
    const recent = await saleEvent(shop, endpoint);
    const otherMerchants = await saleEvent(otherShop, otherEndpoint);
    await settle(delivered.delivery_id, 'succeeded');
    await settle(givenUp.delivery_id, 'failed');
    await settle(stillPending.delivery_id, 'pending');
    await settle(recent.delivery_id, 'succeeded');
    await settle(otherMerchants.delivery_id, 'succeeded');
    for (const event of [delivered, givenUp, stillPending, otherMerchants]) await ageDays(event.id, 31);
    await ageDays(recent.id, 29);

    // A batch of one: the sweep goes on until a batch comes back short.
    expect(await pruneExpiredEvents(t.database.sql, 30, new Date(), 1)).toBe(3);

    for (const gone of [delivered, givenUp]) {
      expect(await eventStatus(shop, gone.id)).toBe(404);
      expect(await rowsOf(gone.delivery_id)).toEqual({ deliveries: 0, attempts: 0 });
    }
    expect(await eventStatus(otherShop, otherMerchants.id)).toBe(404);
    expect(await eventStatus(shop, stillPending.id)).toBe(200);
    expect(await rowsOf(stillPending.delivery_id)).toEqual({ deliveries: 1, attempts: 1 });
    expect(await eventStatus(shop, recent.id)).toBe(200);
    const listed = json(await t.app.inject({ method: 'GET', url: '/v1/events?limit=200', headers: shop.headers })).data.map((event: { id: string }) => event.id);
    expect(listed).toEqual(expect.arrayContaining([stillPending.id, recent.id]));
    expect(listed).not.toContain(delivered.id);

    expect(await pruneExpiredEvents(t.database.sql, 30, new Date())).toBe(0);
  });
});

describe('EVENT_RETENTION_DAYS', () => {
  it('defaults to 30 days and must outlast the 3-day retry window', () => {
    expect(loadConfig({}).eventRetentionDays).toBe(30);
    expect(MIN_EVENT_RETENTION_DAYS).toBe(4);
    expect(loadConfig({ EVENT_RETENTION_DAYS: '4' }).eventRetentionDays).toBe(4);
    expect(() => loadConfig({ EVENT_RETENTION_DAYS: '3' })).toThrow(/EVENT_RETENTION_DAYS/);
    expect(() => loadConfig({ EVENT_RETENTION_DAYS: '7.5' })).toThrow(/EVENT_RETENTION_DAYS/);
  });
});
