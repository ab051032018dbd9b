import type { ExportJob } from '../db/generated/client.js';
import type { Prisma } from '../db/database.js';

/**
 * The export_jobs table as a queue. A worker claims the oldest pending job, or
 * a running one whose lease expired (its worker died), with FOR UPDATE SKIP
 * LOCKED, so two workers never take the same job; while building it renews
 * the lease; it finishes only if it still holds the job (same worker, same attempt).
 */
export class ExportQueue {
  constructor(
    private readonly db: Prisma,
    private readonly leaseMs: number,
  ) {}

  async claim(workerId: string): Promise<ExportJob | null> {
    const rows = await this.db.$queryRaw<{ id: string }[]>`
      UPDATE export_jobs
         SET status = 'running', worker_id = ${workerId}, attempts = attempts + 1,
             locked_until = now() + make_interval(secs => ${this.leaseMs / 1000}),
             started_at = COALESCE(started_at, now())
       WHERE id = (
         SELECT id FROM export_jobs
          WHERE status = 'pending' OR (status = 'running' AND locked_until < now())
          ORDER BY created_at
          FOR UPDATE SKIP LOCKED
          LIMIT 1)
      RETURNING id`;
    if (!rows.length) return null;
    return this.db.exportJob.findUnique({ where: { id: rows[0].id } });
  }

  /** Extends the lease; false when the job was taken over (this worker must stop). */
  async renew(job: ExportJob): Promise<boolean> {
    const updated = await this.db.$executeRaw`
      UPDATE export_jobs SET locked_until = now() + make_interval(secs => ${this.leaseMs / 1000})
       WHERE id = ${job.id} AND worker_id = ${job.workerId} AND attempts = ${job.attempts} AND status = 'running'`;
    return updated === 1;
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
  async complete(job: ExportJob, byteSize: number, sha256: string): Promise<boolean> {
    const updated = await this.db.$executeRaw`
      UPDATE export_jobs
         SET status = 'completed', completed_at = now(), locked_until = NULL, error = NULL,
             byte_size = ${byteSize}, file_sha256 = ${sha256}
       WHERE id = ${job.id} AND worker_id = ${job.workerId} AND attempts = ${job.attempts} AND status = 'running'`;
    return updated === 1;
  }

  /** Gives the job back to the queue after an unexpected failure of this attempt. */
  async release(job: ExportJob): Promise<void> {
    await this.db.$executeRaw`
      UPDATE export_jobs SET status = 'pending', locked_until = NULL, worker_id = NULL
       WHERE id = ${job.id} AND worker_id = ${job.workerId} AND attempts = ${job.attempts} AND status = 'running'`;
  }

  async fail(job: ExportJob, error: { message: string; details?: Record<string, unknown> }): Promise<boolean> {
    const updated = await this.db.$executeRaw`
      UPDATE export_jobs
         SET status = 'failed', completed_at = now(), locked_until = NULL, error = ${JSON.stringify(error)}::jsonb
       WHERE id = ${job.id} AND worker_id = ${job.workerId} AND attempts = ${job.attempts} AND status = 'running'`;
    return updated === 1;
  }
}
