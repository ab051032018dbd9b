import { Prisma, type Operation } from '../../db/generated/client.js';
import type { AppContext } from '../../context.js';
import { cancellableSqlOf } from '../../db/sql.js';
import { FiscalDeviceError } from '../../fiscal/deviceErrors.js';
import { buildFiscalRecord } from '../../fiscal/kassensichv/fiscalInformation.js';
import { kassenbelegProcessData } from '../../fiscal/kassensichv/kassenbeleg.js';
import { runDeviceTransaction, signingDeviceFor } from '../operations/fiscalSigning.js';
import { lineItemsOf, paymentsOf, type StoredLineItem, type StoredPayment } from '../../db/records/operation.js';
import type { RegisterWithDevice } from '../registers/presenter.js';
import type { Tx } from '../../db/transaction.js';
import type { StoredFiscalFailure, StoredRefundFiscal } from './records.js';

/**
 * processData of a refund (Kassenbeleg-V1, Vorgangstyp Beleg): the refund's
 * mirrored Style M lines and payments, all negative, so the signed amounts are
 * negative as for any goods coming back.
 */
export function refundProcessData(refund: { lineItems: StoredLineItem[]; payments: StoredPayment[] }): string {
  return kassenbelegProcessData({
    line_items: refund.lineItems,
    cart_level_discounts: [],
    tip_amount: '0',
    payments: refund.payments,
  });
}

export type SigningOutcome = { ok: true; record: StoredRefundFiscal } | { ok: false; failure: StoredFiscalFailure };

const BACKOFF_BASE_MS = 5_000;
const BACKOFF_MAX_MS = 15 * 60_000;

/** When to try again after the `attempts`-th failure: 5 s, 10 s, 20 s, ... up to 15 minutes. */
export function nextAttemptAt(attempts: number, now: Date): Date {
  const delay = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, attempts - 1));
  return new Date(now.getTime() + delay);
}

/**
 * Signs a refund with the register's TSE inside the caller's transaction.
 * Register preconditions (not fiscalized, no active device) throw the 422 of
 * signingDeviceFor. A device failure does not: the device's partial work is
 * rolled back to a savepoint and the failure is returned, so the caller can
 * record the refund as completed with fiscal_state failed.
 */
export async function signRefund(ctx: AppContext, tx: Tx, register: RegisterWithDevice, refund: Operation): Promise<SigningOutcome> {
  const { device, clientId } = signingDeviceFor(ctx, register);
  const identity = device.identity();
  const processData = refundProcessData({ lineItems: lineItemsOf(refund), payments: paymentsOf(refund) });
  const sql = await cancellableSqlOf(tx, ctx.sql);
  await tx.$executeRawUnsafe('SAVEPOINT refund_signing');
  try {
    const process = { processType: 'Kassenbeleg-V1', processData };
    const { start, finish } = await runDeviceTransaction(device, sql, clientId, process, ctx.config.deviceTimeoutMs);
    await tx.$executeRawUnsafe('RELEASE SAVEPOINT refund_signing');
    const record = buildFiscalRecord({
      tse: identity,
      clientId,
      start,
      finish,
      documentNumber: String(refund.sequenceNumber),
      documentType: 'Beleg',
    });
    return { ok: true, record: { ...record, start_signature: start.signature } };
  } catch (error) {
    if (!(error instanceof FiscalDeviceError)) throw error;
    await tx.$executeRawUnsafe('ROLLBACK TO SAVEPOINT refund_signing');
    return {
      ok: false,
      failure: {
        phase: error.phase,
        reason: error.reason,
        message: error.message,
        failed_at: new Date().toISOString(),
        tse_serial: identity.serialNumber,
        client_id: clientId,
        signature_algorithm: identity.algorithm,
      },
    };
  }
}

/** The fiscal columns after a signing attempt (the attempt count includes this one). */
export function fiscalUpdate(outcome: SigningOutcome, attempts: number, now: Date) {
  return outcome.ok
    ? {
        fiscalState: 'succeeded',
        fiscalInformation: { ...outcome.record },
        fiscalError: Prisma.DbNull,
        fiscalAttempts: attempts,
        fiscalRetryAt: null,
      }
    : {
        fiscalState: 'failed',
        fiscalError: { ...outcome.failure },
        fiscalAttempts: attempts,
        fiscalRetryAt: nextAttemptAt(attempts, now),
      };
}
