// At least once across a restart: an event recorded while no worker runs is delivered by the next
// instance, and a delivery whose worker died in the middle of an attempt is taken over after its lease.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeliveryQueue } from '../../src/outbox/deliveryQueue.js';
import { createAndCompleteSale, fiscalizedRegisterWithSession, type OperationsFixture } from '../support/operations.js';
import { createPeerApp, createTenantWithKey, createTestApp, json, type TestApp } from '../support/testApp.js';
import { eventually, startReceiver, verifySignature, type WebhookReceiver } from '../support/webhookReceiver.js';

const WORKER_SETTINGS = { EXPORT_POLL_MS: '50', WEBHOOK_RETRY_MS: '50', EXPORT_LEASE_MS: '1000', WEBHOOK_TIMEOUT_MS: '300' };

let t: TestApp;
let fx: OperationsFixture;
let receiver: WebhookReceiver;

beforeAll(async () => {
  // The first instance runs no worker: its events wait in the outbox.
  t = await createTestApp({ ...WORKER_SETTINGS, EXPORT_WORKER: 'off' });
  const tenant = await createTenantWithKey(t.database);
  fx = await fiscalizedRegisterWithSession(t.app, tenant.apiKey);
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await t.close();
});

describe('after a restart', () => {
  it('the next instance delivers what the last one recorded, also a delivery abandoned mid-attempt', async () => {
    const created = json(
      await t.app.inject({ method: 'POST', url: '/v1/webhook-endpoints', headers: fx.headers, payload: { url: receiver.url, events: ['*'] } }),
    );
    const first = await createAndCompleteSale(t.app, fx);
    const second = await createAndCompleteSale(t.app, fx);
    // A worker took the first sale's delivery and died before it answered: its lease runs out.
    const dead = await new DeliveryQueue(t.database.prisma, 1000).claim('worker-that-died');
    expect(dead).not.toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(receiver.received).toEqual([]);

    // The instance stops; another starts on the same database with its worker.
    await t.app.close();
    const next = await createPeerApp(t, WORKER_SETTINGS);
    try {
      const requests = await receiver.waitFor(2);
      const delivered = requests.map((request) => JSON.parse(request.rawBody).data.object.id).sort();
      expect(delivered).toEqual([first.id, second.id].sort());
      for (const request of requests) expect(verifySignature(request.rawBody, request.headers['service-signature'] as string, created.secret)).toBe(true);
      const taken = await eventually(async () => {
        const log = json(await next.app.inject({ method: 'GET', url: `/v1/webhook-endpoints/${created.id}/deliveries`, headers: fx.headers }));
        return log.data.find((delivery: any) => delivery.id === dead!.id && delivery.status !== 'pending');
      });
      // The dead worker's attempt counts, though it never finished: the next one is the second.
      expect(taken).toMatchObject({ status: 'succeeded', attempt_count: 2, attempts: [{ attempt: 2, status_code: 200 }] });
    } finally {
      await next.close();
    }
  });
});
