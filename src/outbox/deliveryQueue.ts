import type { Event, WebhookDelivery, WebhookEndpoint } from '../db/generated/client.js';
import type { Prisma } from '../db/database.js';
import { JobQueue } from '../db/jobQueue.js';

/** A claimed delivery with what its attempt needs: the event and the endpoint (its secret still sealed). */
export type HeldDelivery = WebhookDelivery & { event: Event; endpoint: WebhookEndpoint };

/** One attempt as the delivery log keeps it. */
export interface AttemptRecord {
  attemptedAt: Date;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
}

/** After an attempt: delivered, tried again at a time, or given up (the retry window is over). */
export type DeliveryVerdict = { status: 'succeeded' } | { status: 'retry'; at: Date } | { status: 'failed' };

const ERROR_LIMIT = 500;

/**
 * The webhook_deliveries table as a job queue (src/db/jobQueue.ts): claiming
 * and leases are the queue's; each attempt is logged and its verdict written in
 * one transaction, only while this worker still holds the delivery.
 */
export class DeliveryQueue {
  private readonly jobs: JobQueue;

  constructor(
    private readonly db: Prisma,
    leaseMs: number,
  ) {
    this.jobs = new JobQueue(db, 'webhook_deliveries', leaseMs);
  }

  async claim(workerId: string): Promise<HeldDelivery | null> {
    const id = await this.jobs.claim(workerId);
    if (!id) return null;
    return this.db.webhookDelivery.findUnique({ where: { id }, include: { event: true, endpoint: true } });
  }

  /** Logs the attempt and applies the verdict; false when the delivery was taken over or deleted meanwhile. */
  async settle(delivery: HeldDelivery, attempt: AttemptRecord, verdict: DeliveryVerdict): Promise<boolean> {
    return this.db.$transaction(async (tx) => {
      const [held] = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM webhook_deliveries WHERE ${this.jobs.held(delivery)} FOR UPDATE`;
      if (!held) return false;
      await tx.webhookDeliveryAttempt.create({
        data: {
          deliveryId: delivery.id,
          attempt: delivery.attempts,
          attemptedAt: attempt.attemptedAt,
          durationMs: attempt.durationMs,
          statusCode: attempt.statusCode,
          error: attempt.error?.slice(0, ERROR_LIMIT) ?? null,
        },
      });
      await tx.webhookDelivery.update({
        where: { id: delivery.id },
        data: {
          workerId: null,
          lockedUntil: null,
          ...(verdict.status === 'succeeded' ? { status: 'succeeded', deliveredAt: attempt.attemptedAt } : {}),
          ...(verdict.status === 'retry' ? { status: 'pending', runAfter: verdict.at } : {}),
          ...(verdict.status === 'failed' ? { status: 'failed' } : {}),
        },
      });
      return true;
    });
  }
}
