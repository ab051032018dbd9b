import type { FastifyBaseLogger } from 'fastify';
import type { Dispatcher } from 'undici';
import type { SecretBox } from '../lib/secretBox.js';
import { PollingWorker } from '../lib/pollingWorker.js';
import type { DeliveryQueue, DeliveryVerdict, HeldDelivery } from './deliveryQueue.js';
import type { DestinationPolicy } from './destinationPolicy.js';
import { eventPayload } from './eventPayload.js';
import { nextAttemptAt } from './retrySchedule.js';
import { postWebhook } from './webhookRequest.js';
import { SIGNATURE_HEADER, signatureHeader } from './webhookSignature.js';

export interface DeliveryWorkerOptions {
  queue: DeliveryQueue;
  secrets: SecretBox;
  log: FastifyBaseLogger;
  pollMs: number;
  /** How many deliveries are in flight at once, so one slow endpoint does not hold up the others. */
  concurrency: number;
  timeoutMs: number;
  retry: { firstDelayMs: number; maxDelayMs: number };
  policy: DestinationPolicy;
  dispatcher: Dispatcher;
}

const USER_AGENT = 'FiscalizationService-Webhooks/1.1';

/**
 * Delivers events to webhook endpoints from the webhook_deliveries queue, in
 * the server process or in `npm run worker`: each attempt POSTs the event,
 * signed with the endpoint's secret; a 2xx answer delivers it, anything else
 * (another status, a timeout, no connection) is retried with exponential
 * backoff until the retry window closes. A delivery whose worker died is taken
 * over after its lease, so every event is delivered at least once.
 */
export class DeliveryWorker {
  private readonly loops: PollingWorker[];

  constructor(private readonly options: DeliveryWorkerOptions) {
    this.loops = Array.from(
      { length: options.concurrency },
      () => new PollingWorker({ name: 'webhook delivery', log: options.log, pollMs: options.pollMs, runOne: (workerId) => this.runOne(workerId) }),
    );
  }

  start(): void {
    for (const loop of this.loops) loop.start();
  }

  /** Looks for work now (an event was just recorded in this process). */
  wake(): void {
    for (const loop of this.loops) loop.wake();
  }

  async stop(): Promise<void> {
    await Promise.all(this.loops.map((loop) => loop.stop()));
    await this.options.dispatcher.close();
  }

  private async runOne(workerId: string): Promise<boolean> {
    const delivery = await this.options.queue.claim(workerId);
    if (!delivery) return false;
    await this.attempt(delivery);
    return true;
  }

  private async attempt(delivery: HeldDelivery): Promise<void> {
    const { queue, secrets, log, timeoutMs, policy, dispatcher } = this.options;
    const body = JSON.stringify(eventPayload(delivery.event));
    const attemptedAt = new Date();
    const timestamp = Math.floor(attemptedAt.getTime() / 1000);
    const outcome = await postWebhook({
      url: delivery.endpoint.url,
      body,
      headers: {
        'content-type': 'application/json',
        'user-agent': USER_AGENT,
        [SIGNATURE_HEADER]: signatureHeader(secrets.open(delivery.endpoint.sealedSecret), timestamp, body),
      },
      timeoutMs,
      policy,
      dispatcher,
    });
    const finishedAt = new Date();
    const verdict: DeliveryVerdict = outcome.delivered ? { status: 'succeeded' } : this.retryOrGiveUp(delivery, finishedAt);
    const settled = await queue.settle(
      delivery,
      {
        attemptedAt,
        durationMs: finishedAt.getTime() - attemptedAt.getTime(),
        statusCode: outcome.statusCode,
        error: outcome.delivered ? null : outcome.error,
      },
      verdict,
    );
    log.info(
      {
        delivery_id: delivery.id,
        event_id: delivery.eventId,
        endpoint_id: delivery.endpointId,
        attempt: delivery.attempts,
        status_code: outcome.statusCode,
        verdict: settled ? verdict.status : 'taken_over',
      },
      'webhook delivery attempt',
    );
  }

  private retryOrGiveUp(delivery: HeldDelivery, now: Date): DeliveryVerdict {
    const at = nextAttemptAt(delivery.attempts, delivery.event.createdAt, now, this.options.retry);
    return at ? { status: 'retry', at } : { status: 'failed' };
  }
}
