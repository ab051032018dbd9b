// Webhook delivery: every event reaches each subscribed endpoint signed, as a receiver verifies it;
// a 5xx, a timeout or a refused connection is retried with backoff and logged attempt by attempt;
// after the retry window the delivery is given up; a deleted endpoint gets nothing more.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAndCompleteSale, fiscalizedRegisterWithSession, type OperationsFixture } from '../support/operations.js';
import { createTenantWithKey, createTestApp, json, type TestApp } from '../support/testApp.js';
import { eventually, startReceiver, TOLERANCE_SECONDS, verifySignature, type WebhookReceiver } from '../support/webhookReceiver.js';

let t: TestApp;
let fx: OperationsFixture;
let receiver: WebhookReceiver;

beforeAll(async () => {
  t = await createTestApp({ EXPORT_POLL_MS: '50', WEBHOOK_RETRY_MS: '50', WEBHOOK_TIMEOUT_MS: '2000' });
  const tenant = await createTenantWithKey(t.database);
  fx = await fiscalizedRegisterWithSession(t.app, tenant.apiKey);
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await t.close();
});

async function register(url: string, events: string[] = ['operation.fiscal_state_changed']) {
  const response = await t.app.inject({ method: 'POST', url: '/v1/webhook-endpoints', headers: fx.headers, payload: { url, events } });
  expect(response.statusCode, response.body).toBe(201);
  return json(response);
}

const remove = (id: string) => t.app.inject({ method: 'DELETE', url: `/v1/webhook-endpoints/${id}`, headers: fx.headers });

const deliveriesOf = async (endpointId: string) =>
  json(await t.app.inject({ method: 'GET', url: `/v1/webhook-endpoints/${endpointId}/deliveries`, headers: fx.headers })).data as any[];

/** The endpoint's deliveries once `done` holds for the newest one. */
const settledDelivery = (endpointId: string, done: (delivery: any) => boolean) =>
  eventually(async () => {
    const [latest] = await deliveriesOf(endpointId);
    return latest && done(latest) ? latest : undefined;
  });

describe('a delivered event', () => {
  it('is POSTed as JSON with a Service-Signature that a receiver verifies over the raw body', async () => {
    const endpoint = await register(receiver.url);
    const before = receiver.received.length;
    const sale = await createAndCompleteSale(t.app, fx);
    const [request] = (await receiver.waitFor(before + 1)).slice(before);
    await remove(endpoint.id);

    expect(request.headers['content-type']).toBe('application/json');
    const header = request.headers['service-signature'] as string;
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(verifySignature(request.rawBody, header, endpoint.secret)).toBe(true);
    // What a receiver must refuse: another body, another secret, a replay outside the tolerance.
    expect(verifySignature(request.rawBody.replace(sale.id, 'op_forged'), header, endpoint.secret)).toBe(false);
    expect(verifySignature(request.rawBody, header, `${endpoint.secret}x`)).toBe(false);
    const signedAt = Number(/t=(\d+)/.exec(header)![1]);
    expect(verifySignature(request.rawBody, header, endpoint.secret, signedAt + TOLERANCE_SECONDS + 1)).toBe(false);

    const event = JSON.parse(request.rawBody);
    expect(event).toMatchObject({ object: 'event', type: 'operation.fiscal_state_changed', organization_id: fx.merchantId, data: { object: { id: sale.id } } });
    // The body is the event exactly as the API shows it.
    const shown = await t.app.inject({ method: 'GET', url: `/v1/events/${event.id}`, headers: fx.headers });
    expect(json(shown)).toEqual(event);
  });

  it('is logged: status, attempts with time, duration and HTTP status, no next attempt', async () => {
    const endpoint = await register(receiver.url);
    const sale = await createAndCompleteSale(t.app, fx);
    const delivery = await settledDelivery(endpoint.id, (d) => d.status === 'succeeded');
    await remove(endpoint.id);
    expect(delivery).toMatchObject({
      object: 'webhook_delivery',
      endpoint_id: endpoint.id,
      event_type: 'operation.fiscal_state_changed',
      status: 'succeeded',
      attempt_count: 1,
      next_attempt_at: null,
      delivered_at: expect.any(String),
      attempts: [{ attempt: 1, status_code: 200, error: null, attempted_at: expect.any(String), duration_ms: expect.any(Number) }],
    });
    const event = json(await t.app.inject({ method: 'GET', url: `/v1/events/${delivery.event_id}`, headers: fx.headers }));
    expect(event.data.object.id).toBe(sale.id);
  });
});

describe('retries', () => {
  it('a 500 and a 503 are retried with growing delays until a 2xx', async () => {
    const endpoint = await register(receiver.url);
    receiver.answerWith({ status: 500 }, { status: 503 });
    const before = receiver.received.length;
    await createAndCompleteSale(t.app, fx);
    const requests = (await receiver.waitFor(before + 3)).slice(before);
    const delivery = await settledDelivery(endpoint.id, (d) => d.status === 'succeeded');
    await remove(endpoint.id);

    // The same event each time, each attempt signed afresh.
    expect(new Set(requests.map((request) => JSON.parse(request.rawBody).id)).size).toBe(1);
    for (const request of requests) expect(verifySignature(request.rawBody, request.headers['service-signature'] as string, endpoint.secret)).toBe(true);
    expect(delivery.attempt_count).toBe(3);
    expect(delivery.attempts.map((attempt: any) => [attempt.attempt, attempt.status_code])).toEqual([
      [3, 200],
      [2, 503],
      [1, 500],
    ]);
    expect(delivery.attempts[2].error).toContain('HTTP 500');
    // Backoff: 50 ms after the first failure, 100 ms after the second (WEBHOOK_RETRY_MS doubling).
    const [first, second, third] = requests.map((request) => request.receivedAt);
    expect(second - first).toBeGreaterThanOrEqual(40);
    expect(third - second).toBeGreaterThanOrEqual(90);
  });

  it('an answer later than the timeout is retried', async () => {
    const endpoint = await register(receiver.url);
    receiver.answerWith({ status: 200, delayMs: 3000 });
    await createAndCompleteSale(t.app, fx);
    const delivery = await settledDelivery(endpoint.id, (d) => d.status === 'succeeded');
    await remove(endpoint.id);
    expect(delivery.attempt_count).toBe(2);
    expect(delivery.attempts[1]).toMatchObject({ attempt: 1, status_code: null, error: 'The endpoint did not answer within 2000 ms' });
    expect(delivery.attempts[1].duration_ms).toBeLessThan(3000);
    expect(delivery.attempts[0]).toMatchObject({ attempt: 2, status_code: 200 });
  });

  it('a refused connection is retried, the next attempt shown while pending', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const endpoint = await register(`http://127.0.0.1:${port}/hooks`);
    await createAndCompleteSale(t.app, fx);
    const delivery = await settledDelivery(endpoint.id, (d) => d.attempts.length >= 2);
    await remove(endpoint.id);
    expect(delivery.status).toBe('pending');
    expect(delivery.next_attempt_at).toEqual(expect.any(String));
    expect(delivery.attempts[0]).toMatchObject({ status_code: null, error: expect.stringContaining('could not be reached') });
  });

  it('is given up once the event is older than the 3-day retry window', async () => {
    const endpoint = await register(receiver.url);
    receiver.answerWith(...Array.from({ length: 1000 }, () => ({ status: 500 })));
    try {
      await createAndCompleteSale(t.app, fx);
      const pending = await settledDelivery(endpoint.id, (d) => d.attempt_count >= 1);
      await t.database.sql.query(`UPDATE events SET created_at = now() - interval '3 days' WHERE id = $1`, [pending.event_id]);
      const failed = await settledDelivery(endpoint.id, (d) => d.status === 'failed');
      expect(failed).toMatchObject({ status: 'failed', next_attempt_at: null, delivered_at: null });
      const attempts = failed.attempt_count;
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect((await deliveriesOf(endpoint.id))[0].attempt_count).toBe(attempts);
    } finally {
      receiver.answerWith();
      await remove(endpoint.id);
    }
  });
});

describe('subscriptions', () => {
  it('an endpoint gets the types it subscribed to; "*" gets every type; a deleted endpoint nothing more', async () => {
    const exportsOnly = await register(receiver.url, ['export.completed', 'export.failed']);
    const everything = await register(receiver.url, ['*']);
    const sale = await createAndCompleteSale(t.app, fx);
    const delivered = await settledDelivery(everything.id, (d) => d.status === 'succeeded');
    expect(json(await t.app.inject({ method: 'GET', url: `/v1/events/${delivered.event_id}`, headers: fx.headers })).data.object.id).toBe(sale.id);
    expect(await deliveriesOf(exportsOnly.id)).toEqual([]);

    expect((await remove(everything.id)).statusCode).toBe(200);
    const before = receiver.received.length;
    await createAndCompleteSale(t.app, fx);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received.length).toBe(before);
    await remove(exportsOnly.id);
  });
});
