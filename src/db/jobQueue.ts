import { Prisma as Sql } from './generated/client.js';
import type { Prisma } from './database.js';

/** The tables that are job queues: each has status, worker_id, attempts, locked_until, run_after and created_at. */
export type JobTable = 'export_jobs' | 'rt_transmission_jobs' | 'webhook_deliveries' | 'invoice_transmission_jobs' | 'finanz_online_submissions';

/** A job as its holder knows it: the lease is this worker's for this attempt. */
export interface HeldJob {
  id: string;
  workerId: string | null;
  attempts: number;
}

/**
 * A table as a queue of jobs (exports, RT transmissions, webhook deliveries, invoice transmissions). A worker claims the
 * oldest pending job that is due, or a running one whose lease expired (its
 * worker died), with FOR UPDATE SKIP LOCKED, so two workers never take the same
 * job; while working it renews the lease; it changes the job only while it
 * still holds it (same worker, same attempt).
 */
export class JobQueue {
  private readonly table: Sql.Sql;

  constructor(
    private readonly db: Prisma,
    table: JobTable,
    private readonly leaseMs: number,
    /** A further condition a job must meet to be claimed (the table's name qualifies its columns), e.g. that the jobs before it are done. */
    private readonly claimable: Sql.Sql = Sql.sql`TRUE`,
  ) {
    this.table = Sql.raw(table);
  }

  /** The claimed job's id, or null when none is due. */
  async claim(workerId: string): Promise<string | null> {
    const rows = await this.db.$queryRaw<{ id: string }[]>`
      UPDATE ${this.table}
         SET status = 'running', worker_id = ${workerId}, attempts = attempts + 1,
             locked_until = now() + make_interval(secs => ${this.leaseMs / 1000})
       WHERE id = (
         SELECT id FROM ${this.table}
          WHERE ((status = 'pending' AND run_after <= now()) OR (status = 'running' AND locked_until < now())) AND ${this.claimable}
          ORDER BY created_at
          FOR UPDATE SKIP LOCKED
          LIMIT 1)
      RETURNING id`;
    return rows[0]?.id ?? null;
  }

  /** The condition that this attempt still holds `job`. */
  held(job: HeldJob): Sql.Sql {
    return Sql.sql`id = ${job.id} AND worker_id = ${job.workerId} AND attempts = ${job.attempts} AND status = 'running'`;
  }

  /** Extends the lease; false when the job was taken over (this worker must stop). */
  async renew(job: HeldJob): Promise<boolean> {
    const updated = await this.db.$executeRaw`
      UPDATE ${this.table} SET locked_until = now() + make_interval(secs => ${this.leaseMs / 1000}) WHERE ${this.held(job)}`;
    return updated === 1;
  }

  /** Gives the job back to the queue, due again after `delayMs`. */
  async release(job: HeldJob, delayMs = 0): Promise<boolean> {
    const updated = await this.db.$executeRaw`
      UPDATE ${this.table}
         SET status = 'pending', locked_until = NULL, worker_id = NULL, run_after = now() + make_interval(secs => ${delayMs / 1000})
       WHERE ${this.held(job)}`;
    return updated === 1;
  }
}
