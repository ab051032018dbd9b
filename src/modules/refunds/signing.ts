import type { Register } from '../../db/generated/client.js';
import { Prisma, type Operation } from '../../db/generated/client.js';
import type { AppContext } from '../../context.js';
import { backoffDelayMs } from '../../domain/backoff.js';
import { cancellableSqlOf } from '../../db/sql.js';
import type { GoodsMovementToSign, ReturnedOriginal } from '../../fiscal/fiscalDevice.js';
import { returnedOriginalOf } from '../operations/returnedOriginal.js';
import { signOrRecordFailure } from '../common/fiscalSigning.js';
import { lineItemsOf, paymentsOf, type StoredLineItem, type StoredPayment } from '../../db/records/operation.js';
import { deviceDescriptionOf } from '../registers/presenter.js';
import { hostedReceiptUrl } from '../receipts/presenter.js';
import { fiscalRegisterOf } from '../registers/service.js';
import type { Tx } from '../../db/transaction.js';
import type { StoredFiscalFailure, StoredRefundFiscal } from './records.js';
import { deviceFailedIn, recordSignatureDeviceHealth } from '../registers/signatureDeviceHealth.js';

/**
 * A refund as its register's device signs it: the refund's mirrored Style M
 * lines and payments, all negative, so the signed amounts are negative as for
 * any goods coming back.
 */
export function refundToSign(
  refund: { id: string; sequenceNumber: number | null; lineItems: StoredLineItem[]; payments: StoredPayment[] },
  original: ReturnedOriginal | null,
  receiptUrl: string,
): GoodsMovementToSign {
  return {
    kind: 'goods_movement',
    operationId: refund.id,
    documentNumber: String(refund.sequenceNumber),
    receiptUrl,
    operationType: 'return',
    lineItems: refund.lineItems,
    cartLevelDiscounts: [],
    tipAmount: '0',
    payments: refund.payments,
    lotteryCode: null,
    original,
  };
}

export type SigningOutcome = { ok: true; record: StoredRefundFiscal } | { ok: false; failure: StoredFiscalFailure };

const BACKOFF_BASE_MS = 5_000;
const BACKOFF_MAX_MS = 15 * 60_000;

/** When to try again after the `attempts`-th failure: 5 s, 10 s, 20 s, ... up to 15 minutes. */
export function nextAttemptAt(attempts: number, now: Date): Date {
  return new Date(now.getTime() + backoffDelayMs(attempts, BACKOFF_BASE_MS, BACKOFF_MAX_MS));
}

/**
 * Signs a refund with the register's device inside the caller's transaction
 * (the one signing flow, src/fiscal/signing.ts). A register that cannot sign
 * is 422; a device failure is returned, its partial work rolled back, so the
 * caller can record the refund as completed with fiscal_state failed.
 */
export async function signRefund(ctx: AppContext, tx: Tx, register: Register, refund: Operation, receiptToken: string): Promise<SigningOutcome> {
  const sql = await cancellableSqlOf(tx, ctx.sql);
  const original = await returnedOriginalOf(sql, refund.merchantId, refund);
  const movement = refundToSign(
    { id: refund.id, sequenceNumber: refund.sequenceNumber, lineItems: lineItemsOf(refund), payments: paymentsOf(refund) },
    original,
    hostedReceiptUrl(ctx.publicBaseUrl, receiptToken),
  );
  const outcome = await signOrRecordFailure(ctx, sql, fiscalRegisterOf(register), movement);
  await recordSignatureDeviceHealth(sql, register, outcome.ok ? deviceFailedIn(outcome.record) : true);
  if (outcome.ok) return { ok: true, record: outcome.record! };
  const device = deviceDescriptionOf(register);
  return {
    ok: false,
    failure: {
      regime: outcome.failure.regime,
      phase: outcome.failure.phase,
      reason: outcome.failure.reason,
      message: outcome.failure.message,
      failed_at: outcome.failure.failedAt.toISOString(),
      tse_serial: device.serial,
      client_id: device.clientId,
      signature_algorithm: device.signatureAlgorithm,
      suite: device.suite,
    },
  };
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
