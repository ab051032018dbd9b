import type { ExportJob } from '../db/generated/client.js';
import type { Prisma } from '../db/database.js';
import { JobQueue } from '../db/jobQueue.js';
import type { Tx } from '../db/transaction.js';

/** Runs in the transaction that marks a job completed or failed (the service records its event there). */
export type ExportFinished = (tx: Tx, jobId: string) => Promise<void>;

/**
 * The export_jobs table as a job queue (src/db/jobQueue.ts): claiming and
 * leases are the queue's; the archive's pieces and the outcome are the exports'.
 */
export class ExportQueue {
  private readonly jobs: JobQueue;

  constructor(
    private readonly db: Prisma,
    leaseMs: number,
    private readonly onFinished?: ExportFinished,
  ) {
    this.jobs = new JobQueue(db, 'export_jobs', leaseMs);
  }

  async claim(workerId: string): Promise<ExportJob | null> {
    const id = await this.jobs.claim(workerId);
    if (!id) return null;
    await this.db.$executeRaw`UPDATE export_jobs SET started_at = COALESCE(started_at, now()) WHERE id = ${id}`;
    return this.db.exportJob.findUnique({ where: { id } });
  }

  /** Extends the lease; false when the job was taken over (this worker must stop). */
  renew(job: ExportJob): Promise<boolean> {
    return this.jobs.renew(job);
  }

  /** Appends one piece of the archive being built by this attempt. */
  async appendChunk(job: ExportJob, sequence: number, data: Buffer): Promise<void> {
    await this.db.exportChunk.create({ data: { jobId: job.id, attempt: job.attempts, sequence, data: new Uint8Array(data) } });
  }

  /** Drops pieces of earlier, abandoned attempts. */
  async discardEarlierAttempts(job: ExportJob): Promise<void> {
    await this.db.exportChunk.deleteMany({ where: { jobId: job.id, attempt: { lt: job.attempts } } });
  }

  /** Marks the job completed, only while this attempt still holds it. */
  complete(job: ExportJob, byteSize: number, sha256: string): Promise<boolean> {
    return this.finish(
      job,
      (tx) => tx.$executeRaw`
        UPDATE export_jobs
           SET status = 'completed', completed_at = now(), locked_until = NULL, error = NULL,
               byte_size = ${byteSize}, file_sha256 = ${sha256}
         WHERE ${this.jobs.held(job)}`,
    );
  }

  /** Gives the job back to the queue after an unexpected failure of this attempt. */
  async release(job: ExportJob): Promise<void> {
    await this.jobs.release(job);
  }

  fail(job: ExportJob, error: { message: string; details?: Record<string, unknown> }): Promise<boolean> {
    return this.finish(
      job,
      (tx) => tx.$executeRaw`
        UPDATE export_jobs
           SET status = 'failed', completed_at = now(), locked_until = NULL, error = ${JSON.stringify(error)}::jsonb
         WHERE ${this.jobs.held(job)}`,
    );
  }

  /** Applies the outcome and, when it took, runs onFinished in the same transaction. */
  private finish(job: ExportJob, update: (tx: Tx) => Promise<number>): Promise<boolean> {
    return this.db.$transaction(async (tx) => {
      if ((await update(tx)) !== 1) return false;
      await this.onFinished?.(tx, job.id);
      return true;
    });
  }
}
