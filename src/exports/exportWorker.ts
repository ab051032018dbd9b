import type { Writable } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import type { ExportJob } from '../db/generated/client.js';
import { PollingWorker } from '../lib/pollingWorker.js';
import { ChunkWriter } from './chunkWriter.js';
import type { ExportQueue } from './exportQueue.js';

const MAX_ATTEMPTS = 3;

/** A build failure the merchant must see on the job (contract 2.5 `error`), not a crash. */
export class ExportBuildError extends Error {
  constructor(
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'ExportBuildError';
  }
}

/** Writes the archive of one job to `output`; throws ExportBuildError for problems in the data. */
export type ExportBuilder = (job: ExportJob, output: Writable) => Promise<void>;

export interface ExportWorkerOptions {
  queue: ExportQueue;
  build: ExportBuilder;
  log: FastifyBaseLogger;
  pollMs: number;
  leaseMs: number;
}

/**
 * Takes jobs from the queue one at a time, in the server process or in
 * `npm run worker`. A job whose worker dies is taken over after its lease.
 */
export class ExportWorker {
  private readonly loop: PollingWorker;

  constructor(private readonly options: ExportWorkerOptions) {
    this.loop = new PollingWorker({
      name: 'export',
      log: options.log,
      pollMs: options.pollMs,
      runOne: async (workerId) => {
        const job = await options.queue.claim(workerId);
        if (!job) return false;
        await this.run(job);
        return true;
      },
    });
  }

  get id(): string {
    return this.loop.id;
  }

  start(): void {
    this.loop.start();
  }

  /** Looks for work now (a job was just created in this process). */
  wake(): void {
    this.loop.wake();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** Builds one job under a renewed lease; losing the lease abandons the attempt. */
  async run(job: ExportJob): Promise<void> {
    const { queue, log } = this.options;
    let lost = false;
    const heartbeat = setInterval(() => {
      queue
        .renew(job)
        .then((owned) => {
          if (!owned) lost = true;
        })
        .catch(() => undefined);
    }, Math.max(250, this.options.leaseMs / 3));
    try {
      await queue.discardEarlierAttempts(job);
      const writer = new ChunkWriter(async (sequence, data) => {
        if (lost) throw new Error('export job lease lost');
        await queue.appendChunk(job, sequence, data);
      });
      await this.options.build(job, writer);
      if (!writer.writableFinished) {
        await new Promise<void>((resolve, reject) => {
          writer.once('finish', resolve).once('error', reject);
          if (!writer.writableEnded) writer.end();
        });
      }
      if (!lost && (await queue.complete(job, writer.byteSize, writer.sha256))) {
        log.info({ export_id: job.id, bytes: writer.byteSize }, 'export completed');
      }
    } catch (error) {
      if (error instanceof ExportBuildError) {
        await queue.fail(job, { message: error.message, ...(error.details ? { details: error.details } : {}) });
        log.info({ export_id: job.id, reason: error.message }, 'export failed');
      } else if (job.attempts >= MAX_ATTEMPTS) {
        log.error({ err: error, export_id: job.id }, 'export failed after its last attempt');
        await queue.fail(job, { message: 'The export could not be built', details: { attempts: job.attempts } }).catch(() => undefined);
      } else {
        // Unexpected (database gone, a bug): hand the job back for another attempt.
        log.error({ err: error, export_id: job.id }, 'export attempt aborted');
        await queue.release(job).catch(() => undefined);
      }
    } finally {
      clearInterval(heartbeat);
    }
  }
}
