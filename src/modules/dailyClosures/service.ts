import type { Merchant, RtDailyClosure } from '../../db/generated/client.js';
import type { AppContext } from '../../context.js';
import { sqlOf } from '../../db/sql.js';
import { notFound, validationError } from '../../domain/errors.js';
import { closeRtDay } from '../../fiscal/rt/dailyClosure.js';
import { deviceTransactionOptions, type Finalize } from '../common/transactions.js';
import { fiscalFailureAsDomainError, signingDependencies } from '../common/fiscalSigning.js';
import { findRegister, lockRegister } from '../registers/service.js';
import { recordClosureOutcome } from '../events/dailyClosureEvents.js';

/**
 * Closes the open fiscal day of an RT register (Z report): one transaction
 * holds the device's closure, the totals, the COR10 and its transmission job.
 */
export async function createDailyClosure(ctx: AppContext, merchant: Merchant, registerId: string, finalize?: Finalize<RtDailyClosure>): Promise<RtDailyClosure> {
  const closure = await ctx.db.$transaction(async (tx) => {
    const register = await lockRegister(tx, merchant, registerId);
    if (register.regime !== 'RT' || register.fiscalizationStatus !== 'fiscalized' || !register.deviceId) {
      throw validationError('Daily closures are made by the RT of a fiscalized Italian register', {
        field: 'register_id',
        regime: register.regime,
        fiscalization_status: register.fiscalizationStatus,
      });
    }
    let id: string;
    try {
      id = await closeRtDay(sqlOf(tx), signingDependencies(ctx), register.deviceId);
    } catch (error) {
      throw fiscalFailureAsDomainError(error, register.id);
    }
    const created = await tx.rtDailyClosure.findUniqueOrThrow({ where: { id } });
    await recordClosureOutcome(tx, id, ctx.publicBaseUrl);
    await finalize?.(sqlOf(tx), created);
    return created;
  }, deviceTransactionOptions(ctx.config.deviceTimeoutMs));
  ctx.transmissionWorker?.wake();
  return closure;
}

export async function listDailyClosures(ctx: AppContext, merchant: Merchant, registerId: string): Promise<RtDailyClosure[]> {
  await findRegister(ctx.db, merchant, registerId);
  return ctx.db.rtDailyClosure.findMany({ where: { registerId, merchantId: merchant.id }, orderBy: [{ closedAt: 'desc' }, { fiscalDay: 'desc' }] });
}

export async function getDailyClosure(ctx: AppContext, merchant: Merchant, id: string): Promise<RtDailyClosure> {
  const closure = await ctx.db.rtDailyClosure.findFirst({ where: { id, merchantId: merchant.id } });
  if (!closure) throw notFound('daily_closure', id);
  return closure;
}

/** The closure's signed COR10; a printer's closure has none (the printer transmits its own). */
export async function getDailyClosureCor10(ctx: AppContext, merchant: Merchant, id: string): Promise<string> {
  const closure = await getDailyClosure(ctx, merchant, id);
  if (closure.cor10 === null) throw notFound('cor10', id);
  return closure.cor10;
}
