import type { FastifyBaseLogger } from 'fastify';
import type { Prisma } from '../../../db/database.js';
import { JobQueue, type HeldJob } from '../../../db/jobQueue.js';
import type { Tx } from '../../../db/transaction.js';
import { backoffDelayMs } from '../../../domain/backoff.js';
import { PollingWorker } from '../../../lib/pollingWorker.js';
import type { CorrispettiviAuthority } from './sandboxAuthority.js';

/** Retries of an unreachable authority back off to at most this far apart (DESIGN "Italy: RT"). */
export const MAX_RETRY_DELAY_MS = 30_000;

export interface TransmissionWorkerOptions {
  db: Prisma;
  log: FastifyBaseLogger;
  clock: () => Date;
  pollMs: number;
  leaseMs: number;
  /** The first retry's delay; each next one doubles, up to MAX_RETRY_DELAY_MS. */
  retryMs: number;
  authority: CorrispettiviAuthority;
  /** Runs in the transaction that records the authority's answer (transmitted or rejected). */
  onAnswered?: (tx: Tx, closureId: string) => Promise<void>;
}

/** The delay before the next attempt after `attempts` failed ones. */
export const retryDelayMs = (attempts: number, firstMs: number) => backoffDelayMs(attempts, firstMs, MAX_RETRY_DELAY_MS);

/**
 * Transmits daily closures' COR10 files to the authority from the
 * rt_transmission_jobs queue (the job mechanism of exports): accepted ->
 * transmitted, rejected -> rejected with the authority's errors (not retried),
 * unreachable -> failed and retried with backoff until transmitted.
 */
export class TransmissionWorker {
  private readonly queue: JobQueue;
  private readonly loop: PollingWorker;

  constructor(private readonly options: TransmissionWorkerOptions) {
    this.queue = new JobQueue(options.db, 'rt_transmission_jobs', options.leaseMs);
    this.loop = new PollingWorker({ name: 'rt transmission', log: options.log, pollMs: options.pollMs, runOne: (workerId) => this.runOne(workerId) });
  }

  start(): void {
    this.loop.start();
  }

  wake(): void {
    this.loop.wake();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  private async runOne(workerId: string): Promise<boolean> {
    const { db, log, clock } = this.options;
    const id = await this.queue.claim(workerId);
    if (!id) return false;
    const job = await db.rtTransmissionJob.findUniqueOrThrow({ where: { id }, include: { closure: { include: { device: true } } } });
    const held: HeldJob = job;
    const answer = this.options.authority.transmit(job.closure.cor10 ?? '', job.closure.device.authoritySimulation);
    if (answer.outcome === 'unreachable') {
      await db.rtDailyClosure.update({ where: { id: job.closureId }, data: { transmissionStatus: 'failed', transmissionErrors: answer.errors } });
      const delayMs = retryDelayMs(job.attempts, this.options.retryMs);
      await this.queue.release(held, delayMs);
      log.info({ closure_id: job.closureId, attempts: job.attempts, retry_in_ms: delayMs }, 'COR10 transmission failed, retrying');
      return true;
    }
    await db.$transaction(async (tx) => {
      const finished = await tx.$executeRaw`UPDATE rt_transmission_jobs SET status = 'done', locked_until = NULL WHERE ${this.queue.held(held)}`;
      if (finished !== 1) return;
      await tx.rtDailyClosure.update({
        where: { id: job.closureId },
        data:
          answer.outcome === 'accepted'
            ? { transmissionStatus: 'transmitted', transmittedAt: clock(), transmissionErrors: [] }
            : { transmissionStatus: 'rejected', transmissionErrors: answer.errors },
      });
      await this.options.onAnswered?.(tx, job.closureId);
    });
    log.info({ closure_id: job.closureId, outcome: answer.outcome }, 'COR10 transmission answered');
    return true;
  }
}
