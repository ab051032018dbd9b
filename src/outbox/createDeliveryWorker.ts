import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { Prisma } from '../db/database.js';
import type { SecretBox } from '../lib/secretBox.js';
import { DeliveryQueue } from './deliveryQueue.js';
import { DeliveryWorker } from './deliveryWorker.js';
import { destinationPolicyFor } from './destinationPolicy.js';
import { maxRetryDelayMs } from './retrySchedule.js';
import { webhookDispatcher } from './webhookRequest.js';

/** Deliveries in flight at once per worker process. */
const CONCURRENCY = 4;

/** The webhook delivery worker with the settings of `config`: the queue's poll interval, the timeout, the retry schedule and the SSRF policy of its environment. */
export function createDeliveryWorker(db: Prisma, secrets: SecretBox, config: Config, log: FastifyBaseLogger): DeliveryWorker {
  const policy = destinationPolicyFor(config.environment);
  return new DeliveryWorker({
    // The lease outlasts an attempt (bounded by the timeout), so a live worker never loses one.
    queue: new DeliveryQueue(db, Math.max(config.exportLeaseMs, 3 * config.webhookTimeoutMs)),
    secrets,
    log,
    pollMs: config.exportPollMs,
    concurrency: CONCURRENCY,
    timeoutMs: config.webhookTimeoutMs,
    retry: { firstDelayMs: config.webhookRetryMs, maxDelayMs: maxRetryDelayMs(config.environment) },
    policy,
    dispatcher: webhookDispatcher(policy, config.webhookTimeoutMs),
  });
}
