import type { Merchant, Operation, Prisma as PrismaNs } from '../../db/generated/client.js';
import type { AppContext } from '../../context.js';
import { buildRefundDocument, earlierRefundsOf, mirroredStyleM, type EarlierRefunds } from '../../domain/styleO/refundDocument.js';
import type { RefundSelection } from '../../domain/styleO/refundPlan.js';
import { checkSessionEvent } from '../../domain/sessions/sessionMachine.js';
import { RegimeRuleError } from '../../fiscal/fiscalDevice.js';
import { regimeNamed } from '../../fiscal/regimes.js';
import { conflict, notFound, unprocessable, validationError } from '../../domain/errors.js';
import { newId } from '../../lib/ids.js';
import type { Tx } from '../../db/transaction.js';
import { deviceTransactionOptions, type Finalize } from '../common/transactions.js';
import { assertCompletableInSession, lockedSessionOf, type BoundSession } from '../operations/boundSession.js';
import { issueReceipt, newReceiptToken, receiptPlaceOf } from '../receipts/service.js';
import { findRegister, lockRegister } from '../registers/service.js';
import { refundDataOf, type StoredRefundData } from './records.js';
import type { CreateRefundInput } from './schemas.js';
import { fiscalUpdate, signRefund } from './signing.js';
import { returnedOriginalOf } from '../operations/returnedOriginal.js';
import { styleOViewOfGoodsMovement } from './styleMView.js';
import { sqlOf } from '../../db/sql.js';
import { recordRefundFiscalState } from '../events/refundEvents.js';

/** What the sale's earlier refunds (open or completed) already take back; they count against it. */
async function earlierRefunds(tx: Tx, saleId: string): Promise<EarlierRefunds> {
  const earlier = await tx.operation.findMany({
    where: { relatedOperationId: saleId, type: 'refund', status: { in: ['open', 'completed'] } },
  });
  return earlierRefundsOf(earlier.map(refundDataOf));
}

/**
 * Creates a refund of a completed sale of the organization at one of its
 * registers (contract 2.8, 4.3): state open, fiscal_state pending, the
 * register's next sequence number. The sale's row is locked, so concurrent
 * refunds of one sale are counted against each other.
 */
export async function createRefund(
  ctx: AppContext,
  organization: Merchant,
  registerId: string,
  body: CreateRefundInput,
  finalize?: Finalize<Operation>,
): Promise<Operation> {
  return ctx.db.$transaction(async (tx) => {
    await findRegister(tx, organization, registerId);

    await tx.$queryRaw`SELECT id FROM operations WHERE id = ${body.original_operation_id} FOR UPDATE`;
    const original = await tx.operation.findFirst({ where: { id: body.original_operation_id, merchantId: organization.id } });
    if (!original || original.type !== 'sale' || original.status !== 'completed') {
      throw validationError('original_operation_id must name a completed sale of this organization', {
        field: 'original_operation_id',
        original_operation_id: body.original_operation_id,
        ...(original ? { type: original.type, status: original.status } : {}),
      });
    }

    const register = await lockRegister(tx, organization, registerId);
    const session = register.currentSessionId ? await tx.registerSession.findUnique({ where: { id: register.currentSessionId } }) : null;
    const check = checkSessionEvent(session ? { status: session.status as 'open' | 'counted' | 'closed' } : null, 'goods_movement');
    if (!check.ok) {
      throw conflict(check.code, check.message, {
        register_id: register.id,
        ...(check.code === 'no_open_session' ? { alias: 'register_no_open_session' } : {}),
      });
    }

    const sale = styleOViewOfGoodsMovement(original, organization.countryCode);
    const selection: RefundSelection =
      body.refund_type === 'partial' ? { refund_type: 'partial', line_items: body.line_items ?? [] } : { refund_type: 'full' };
    const earlier = await earlierRefunds(tx, original.id);
    const built = buildRefundDocument(sale, earlier, { selection, payments: body.payments }, newId);
    if (!built.ok) {
      const { code, message, field, details } = built.violation;
      throw unprocessable(code, message, { field, ...details });
    }
    const data: StoredRefundData = built.document;
    const mirrored = mirroredStyleM(data, newId);
    // A refund its register's regime could never sign is refused now, not left to fail at completion.
    try {
      regimeNamed(register.regime)?.checkGoodsMovement({
        operationType: 'return',
        lineItems: mirrored.lineItems,
        cartLevelDiscounts: [],
        tipAmount: '0',
        payments: mirrored.payments,
        lotteryCode: null,
        original: await returnedOriginalOf(sqlOf(tx), organization.id, { id: null, relatedOperationId: original.id, externalRelatedOperation: null }),
      });
    } catch (error) {
      if (!(error instanceof RegimeRuleError)) throw error;
      throw unprocessable('regime_validation_failed', `The sale cannot be refunded on a ${error.regime} register: ${error.message}`, {
        field: 'original_operation_id',
        regime: error.regime,
      });
    }

    await tx.register.update({ where: { id: register.id }, data: { nextSequenceNumber: { increment: 1 } } });
    const refund = await tx.operation.create({
      data: {
        id: newId('op'),
        merchantId: organization.id,
        type: 'refund',
        source: 'POS',
        status: 'open',
        currency: sale.currency,
        registerId: register.id,
        locationId: register.locationId,
        sessionId: session!.id,
        sequenceNumber: register.nextSequenceNumber,
        externalId: body.external_id ?? null,
        ...mirrored,
        lineItems: mirrored.lineItems as object[],
        payments: mirrored.payments as object[],
        cartLevelDiscounts: [],
        relatedOperationId: original.id,
        fiscalState: 'pending',
        refundType: body.refund_type,
        reason: body.reason ?? null,
        cashier: body.cashier ? { id: body.cashier.id, display_name: body.cashier.display_name ?? null } : undefined,
        metadata: (body.metadata ?? {}) as PrismaNs.InputJsonValue,
        styleOData: data as unknown as PrismaNs.InputJsonValue,
      },
    });
    await finalize?.(sqlOf(tx), refund);
    return refund;
  });
}

/** Locks an operation of the organization for the rest of the transaction. */
async function lockOperation(tx: Tx, organization: Merchant, id: string): Promise<Operation> {
  await tx.$queryRaw`SELECT id FROM operations WHERE id = ${id} FOR UPDATE`;
  const operation = await tx.operation.findFirst({ where: { id, merchantId: organization.id } });
  if (!operation) throw notFound('operation', id);
  return operation;
}

/** Contract 3.4: open -> completed | cancelled; anything else is 409 operation_invalid_state. */
function assertOpenRefund(operation: Operation, action: 'complete' | 'cancel'): void {
  if (operation.type !== 'refund') {
    throw conflict(
      'operation_invalid_state',
      `A ${operation.type} operation is not completed or cancelled in Style O; use its Style M calls (X-Service-Merchant)`,
      { type: operation.type, state: operation.status },
    );
  }
  if (operation.status !== 'open') {
    throw conflict('operation_invalid_state', `Cannot ${action} a ${operation.status} refund; only an open one`, {
      type: operation.type,
      state: operation.status,
    });
  }
}

/**
 * open -> completed, signing the refund with the register's fiscal device in
 * the same transaction (DESIGN "Fiscal devices"); 409 once its session is counted or
 * closed, as for a Style M sale. A register that cannot sign at all is
 * 422 and the refund stays open; a device failure completes the refund with
 * fiscal_state failed and the reason recorded, for the background retry.
 * The receipt is issued either way.
 */
export async function completeRefund(ctx: AppContext, organization: Merchant, id: string, finalize?: Finalize<Operation>): Promise<Operation> {
  return ctx.db.$transaction(async (tx) => {
    const refund = await lockOperation(tx, organization, id);
    assertOpenRefund(refund, 'complete');
    // A refund pays cash out of its session's drawer and is a Vorgang of its closing, as a sale is.
    const [session] = refund.sessionId ? await sqlOf(tx).query<BoundSession>(lockedSessionOf('$1'), [refund.sessionId]) : [];
    assertCompletableInSession(session ?? null);
    const register = await findRegister(tx, organization, refund.registerId!);
    const receiptToken = newReceiptToken();
    const outcome = await signRefund(ctx, tx, register, refund, receiptToken);
    const now = new Date();
    const completed = await tx.operation.update({
      where: { id },
      data: {
        status: 'completed',
        completedAt: now,
        ...fiscalUpdate(outcome, refund.fiscalAttempts + 1, now),
        resourceVersion: { increment: 1 },
        updatedAt: now,
      },
    });
    const receiptId = await issueReceipt(sqlOf(tx), organization, completed, now, await receiptPlaceOf(tx, completed), receiptToken);
    const withReceipt = await tx.operation.update({ where: { id }, data: { receiptId } });
    await recordRefundFiscalState(sqlOf(tx), withReceipt, refund.fiscalState);
    await finalize?.(sqlOf(tx), withReceipt);
    return withReceipt;
  }, deviceTransactionOptions(ctx.config.deviceTimeoutMs));
}

/** open -> cancelled; nothing was signed, and the refunded quantities are free again. */
export async function cancelRefund(ctx: AppContext, organization: Merchant, id: string, finalize?: Finalize<Operation>): Promise<Operation> {
  return ctx.db.$transaction(async (tx) => {
    const refund = await lockOperation(tx, organization, id);
    assertOpenRefund(refund, 'cancel');
    const now = new Date();
    const cancelled = await tx.operation.update({
      where: { id },
      data: { status: 'cancelled', voidedAt: now, resourceVersion: { increment: 1 }, updatedAt: now },
    });
    await finalize?.(sqlOf(tx), cancelled);
    return cancelled;
  });
}

export async function getRefund(ctx: AppContext, organization: Merchant, id: string): Promise<Operation> {
  const refund = await ctx.db.operation.findFirst({ where: { id, merchantId: organization.id, type: 'refund' } });
  if (!refund) throw notFound('operation', id);
  return refund;
}
