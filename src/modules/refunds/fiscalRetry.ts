import type { FastifyBaseLogger } from 'fastify';
import { Prisma } from '../../db/generated/client.js';
import { sqlOf } from '../../db/sql.js';
import type { AppContext } from '../../context.js';
import { DomainError } from '../../domain/errors.js';
import { deviceTransactionOptions } from '../common/transactions.js';
import { recordRefundFiscalState } from '../events/refundEvents.js';
import { reissueReceipt } from '../receipts/service.js';
import { deviceDescriptionOf } from '../registers/presenter.js';
import { findRegister } from '../registers/service.js';
import { fiscalUpdate, signRefund, type SigningOutcome } from './signing.js';

export interface FiscalRetryPassOptions {
  /** Treat this as the current time when choosing refunds that are due (tests look ahead). */
  now?: Date;
  /** At most this many refunds per pass. */
  limit?: number;
}

export interface FiscalRetryPassResult {
  attempted: number;
  succeeded: string[];
  failed: string[];
}

/**
 * One pass of the fiscal retry: every completed refund whose signing failed
 * (or never ran) and is due is signed again, each in its own transaction.
 * A refund is claimed with FOR UPDATE SKIP LOCKED, so several instances may
 * run passes side by side and none signs a refund twice; a refund that fails
 * again is rescheduled with a growing delay. Returns what it did.
 */
export async function runFiscalRetryPass(ctx: AppContext, options: FiscalRetryPassOptions = {}): Promise<FiscalRetryPassResult> {
  const limit = options.limit ?? 100;
  const result: FiscalRetryPassResult = { attempted: 0, succeeded: [], failed: [] };
  const tried: string[] = [];
  while (result.attempted < limit) {
    const dueBy = options.now ?? new Date();
    const done = await ctx.db.$transaction(async (tx) => {
      const skip = tried.length ? Prisma.sql`AND id NOT IN (${Prisma.join(tried)})` : Prisma.empty;
      const rows = await tx.$queryRaw<{ id: string }[]>`
        SELECT id FROM operations
         WHERE type = 'refund' AND status = 'completed' AND fiscal_state IN ('failed', 'pending')
           AND (fiscal_retry_at IS NULL OR fiscal_retry_at <= ${dueBy}) ${skip}
         ORDER BY fiscal_retry_at ASC NULLS FIRST, id
         LIMIT 1
         FOR UPDATE SKIP LOCKED`;
      if (!rows.length) return null;
      const refund = await tx.operation.findUniqueOrThrow({ where: { id: rows[0].id } });
      const organization = await tx.merchant.findUniqueOrThrow({ where: { id: refund.merchantId } });
      const register = await findRegister(tx, organization, refund.registerId!);
      // A refund's receipt is issued when it completes, so the signature names that receipt's page.
      const receipt = await tx.receipt.findUniqueOrThrow({ where: { operationId: refund.id }, select: { publicToken: true } });
      let outcome: SigningOutcome;
      try {
        outcome = await signRefund(ctx, tx, register, refund, receipt.publicToken);
      } catch (error) {
        // The register can no longer sign (decommissioned, device inactive): keep it failed, try later.
        if (!(error instanceof DomainError) || error.kind !== 'unprocessable') throw error;
        const device = deviceDescriptionOf(register);
        outcome = {
          ok: false,
          failure: {
            phase: null,
            reason: 'register_cannot_sign',
            message: error.message,
            failed_at: new Date().toISOString(),
            tse_serial: device.serial,
            client_id: device.clientId,
            signature_algorithm: device.signatureAlgorithm,
            suite: device.suite,
          },
        };
      }
      const now = new Date();
      const updated = await tx.operation.update({
        where: { id: refund.id },
        data: { ...fiscalUpdate(outcome, refund.fiscalAttempts + 1, now), resourceVersion: { increment: 1 }, updatedAt: now },
      });
      if (outcome.ok) await reissueReceipt(tx, organization, updated);
      await recordRefundFiscalState(sqlOf(tx), updated, refund.fiscalState);
      return { id: refund.id, ok: outcome.ok };
    }, deviceTransactionOptions(ctx.config.deviceTimeoutMs));
    if (!done) break;
    tried.push(done.id);
    result.attempted += 1;
    (done.ok ? result.succeeded : result.failed).push(done.id);
  }
  return result;
}

/**
 * Runs runFiscalRetryPass every `pollMs` in the server process (DESIGN: a
 * refund whose device failed is signed later in the background). Started and
 * stopped with the app (onReady / onClose).
 */
export class FiscalRetryWorker {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;

  constructor(
    private readonly ctx: AppContext,
    private readonly log: FastifyBaseLogger,
    private readonly pollMs = 5_000,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      if (this.stopped || this.running) return;
      this.running = this.pass().finally(() => {
        this.running = undefined;
        if (!this.stopped) this.schedule();
      });
    }, this.pollMs);
    this.timer.unref();
  }

  private async pass(): Promise<void> {
    try {
      const result = await runFiscalRetryPass(this.ctx);
      if (result.attempted) {
        this.log.info({ signed: result.succeeded, still_failing: result.failed }, 'fiscal retry pass');
      }
    } catch (error) {
      this.log.warn({ err: error }, 'fiscal retry pass failed');
    }
  }
}
