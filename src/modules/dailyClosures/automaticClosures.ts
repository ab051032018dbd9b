import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '../../context.js';
import { sqlOf } from '../../db/sql.js';
import { isAtOrAfterLocalTime, startOfLocalDay } from '../../domain/localTime.js';
import { closeRtDay } from '../../fiscal/rt/dailyClosure.js';
import { signingDependencies } from '../common/fiscalSigning.js';
import { deviceTransactionOptions } from '../common/transactions.js';
import { recordClosureOutcome } from '../events/dailyClosureEvents.js';

const ITALY = 'Europe/Rome';

/**
 * RT devices whose open fiscal day has documents and that made no closure
 * since the local day began: what the automatic closure closes (one Z per
 * device per day).
 */
const DUE = `
  d.status = 'active'
  AND EXISTS (SELECT 1 FROM rt_documents doc WHERE doc.rt_device_id = d.id AND doc.fiscal_day = d.fiscal_day)
  AND NOT EXISTS (SELECT 1 FROM rt_daily_closures c WHERE c.rt_device_id = d.id AND c.closed_at >= $1)`;

const DUE_DEVICES = `SELECT d.id, d.register_id FROM rt_devices d WHERE ${DUE}`;

/**
 * One due device, locked for its closure. SKIP LOCKED leaves a device another
 * instance is closing alone; re-read under the lock, a device closed meanwhile
 * (its fiscal day moved on) is no longer due.
 */
const LOCK_DUE_DEVICE = `SELECT d.id FROM rt_devices d WHERE ${DUE} AND d.id = $2 FOR UPDATE SKIP LOCKED`;

/**
 * Closes, at RT_CLOSURE_TIME (Italian time), every RT register that issued
 * documents in its open fiscal day and has not closed today. Runs in every
 * server instance, checking every RT_CLOSURE_CHECK_MS by the service's clock.
 */
export class AutomaticClosures {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly ctx: AppContext,
    private readonly log: FastifyBaseLogger,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      this.running ??= this.closeDue().finally(() => (this.running = undefined));
    }, this.ctx.config.rtClosureCheckMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** Closes every device due now; one failing device does not hold up the others. */
  async closeDue(): Promise<void> {
    const now = this.ctx.clock();
    if (!isAtOrAfterLocalTime(now, this.ctx.config.rtClosureTime, ITALY)) return;
    const since = startOfLocalDay(now, ITALY);
    const candidates = await this.ctx.sql.query<{ id: string; register_id: string }>(DUE_DEVICES, [since]);
    for (const candidate of candidates) {
      try {
        await this.ctx.db.$transaction(async (tx) => {
          const [due] = await sqlOf(tx).query<{ id: string }>(LOCK_DUE_DEVICE, [since, candidate.id]);
          if (!due) return;
          const id = await closeRtDay(sqlOf(tx), signingDependencies(this.ctx), candidate.id);
          await recordClosureOutcome(tx, id, this.ctx.publicBaseUrl);
          this.log.info({ register_id: candidate.register_id, closure_id: id }, 'automatic daily closure');
        }, deviceTransactionOptions(this.ctx.config.deviceTimeoutMs));
      } catch (error) {
        this.log.error({ err: error, register_id: candidate.register_id }, 'automatic daily closure failed');
      }
    }
    if (candidates.length) this.ctx.transmissionWorker?.wake();
  }
}
