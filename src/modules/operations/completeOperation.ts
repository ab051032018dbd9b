import type { Merchant, Operation, Register } from '../../db/generated/client.js';
import type { AppContext } from '../../context.js';
import { formatAmount } from '../../domain/money.js';
import { checkOperationTransition, type OperationStatus, type VoidReason } from '../../domain/operations/operationMachine.js';
import type { GoodsMovementType, OperationType, PaymentInput } from '../../domain/operations/operationInput.js';
import { validatePayments } from '../../domain/operations/paymentRules.js';
import { KassenbelegMappingError, kassenbelegProcessData } from '../../fiscal/kassensichv/kassenbeleg.js';
import { assertCurrentVersion } from '../../http/concurrency.js';
import { conflict, notFound, unprocessable, validationError } from '../../http/errors.js';
import { newId } from '../../lib/ids.js';
import { findRegister } from '../registers/service.js';
import { deviceTransactionOptions, type Finalize, type Tx } from '../common/transactions.js';
import { issueReceipt } from '../receipts/service.js';
import { violationError } from './createGoodsMovement.js';
import { signProcess } from './fiscalSigning.js';
import { discountsOf, lineItemsOf, type StoredPayment } from './records.js';
import type { z } from 'zod';
import type { CompleteOperationBody } from './schemas.js';

/** Style O refunds share the table; Style M neither shows nor changes them (its Operation union has no refund). */
export const STYLE_M_TYPES = { not: 'refund' } as const;

/** Locks the operation row for the rest of the transaction. */
async function lockOperation(tx: Tx, merchant: Merchant, id: string): Promise<Operation> {
  await tx.$queryRaw`SELECT id FROM operations WHERE id = ${id} FOR UPDATE`;
  const operation = await tx.operation.findFirst({ where: { id, merchantId: merchant.id, type: STYLE_M_TYPES } });
  if (!operation) throw notFound('operation', id);
  return operation;
}

function assertTransition(operation: Operation, action: 'complete' | 'void'): void {
  const check = checkOperationTransition(operation.status as OperationStatus, operation.type as OperationType, action);
  if (!check.ok) {
    throw conflict('operation_invalid_state', `Cannot ${action} a ${operation.status} ${operation.type} operation`, {
      status: operation.status,
      type: operation.type,
    });
  }
}

function storedPayments(payments: z.infer<typeof CompleteOperationBody>['payments'], currency: string): StoredPayment[] {
  return payments.map((payment) => ({
    id: newId('pay'),
    payment_id: payment.payment_id ?? null,
    method: payment.method,
    amount: formatAmount(payment.amount),
    currency: payment.currency ?? currency,
    status: payment.status ?? 'captured',
    processor: payment.processor ?? null,
    card_brand: payment.card_brand ?? null,
    processor_reference: payment.processor_reference ?? null,
    processed_at: payment.processed_at ?? null,
    gift_card_id: payment.gift_card_id ?? null,
  }));
}

/**
 * open -> completed (contract 3.1): payments attached and, for POS
 * operations, signed by the register's TSE; the receipt is issued in the same
 * transaction, so a completion is either wholly recorded or not at all.
 */
export async function completeOperation(
  ctx: AppContext,
  merchant: Merchant,
  id: string,
  body: z.infer<typeof CompleteOperationBody>,
  expectedVersion: number,
  finalize?: Finalize<Operation>,
): Promise<Operation> {
  return ctx.db.$transaction(async (tx) => {
    const operation = await lockOperation(tx, merchant, id);
    assertTransition(operation, 'complete');
    assertCurrentVersion(expectedVersion, operation.resourceVersion);
    const type = operation.type as GoodsMovementType;
    const stored = storedPayments(body.payments, operation.currency);
    const payments: PaymentInput[] = stored.map((payment) => ({ ...payment, payment_id: payment.payment_id ?? '' }));
    const violations = validatePayments(type, operation.totalAmount!.toFixed(), payments, operation.currency);
    if (violations.length) throw violationError(violations);

    let fiscalInformation: object | null = null;
    let register: Register | null = null;
    if (operation.source === 'POS') {
      if (!operation.registerId) throw validationError('A POS operation needs a register to complete', { field: 'register_id' });
      const signer = await findRegister(tx, merchant, operation.registerId);
      register = signer;
      let processData: string;
      try {
        processData = kassenbelegProcessData({
          line_items: lineItemsOf(operation),
          cart_level_discounts: discountsOf(operation),
          tip_amount: operation.tipAmount!.toFixed(),
          payments: stored,
        });
      } catch (error) {
        if (error instanceof KassenbelegMappingError) {
          throw unprocessable('regime_validation_failed', error.message, { field: error.field, regime: 'KassenSichV' });
        }
        throw error;
      }
      const record = await signProcess(ctx, tx, signer, {
        processType: 'Kassenbeleg-V1',
        processData,
        documentNumber: String(operation.sequenceNumber),
        documentType: 'Beleg',
      });
      fiscalInformation = { ...record };
    }

    const now = new Date();
    const changes = {
      status: 'completed',
      payments: stored as object[],
      completedAt: body.completed_at ? new Date(body.completed_at) : now,
      fiscalInformation: fiscalInformation ?? undefined,
      resourceVersion: operation.resourceVersion + 1,
      updatedAt: now,
    };
    // The receipt is built from the completed state before it is written, so the operation is updated once.
    const receipt = await issueReceipt(tx, merchant, { ...operation, ...changes, fiscalInformation }, now, { register });
    const completed = await tx.operation.update({ where: { id }, data: { ...changes, receiptId: receipt.id } });
    await finalize?.(tx, completed);
    return completed;
  }, deviceTransactionOptions(ctx.config.deviceTimeoutMs));
}

/** open -> voided; nothing was signed for an open operation, so nothing is left to cancel at the TSE. */
export async function voidOperation(
  ctx: AppContext,
  merchant: Merchant,
  id: string,
  reason: VoidReason,
  expectedVersion: number,
  finalize?: Finalize<Operation>,
): Promise<Operation> {
  return ctx.db.$transaction(async (tx) => {
    const operation = await lockOperation(tx, merchant, id);
    assertTransition(operation, 'void');
    assertCurrentVersion(expectedVersion, operation.resourceVersion);
    const now = new Date();
    const voided = await tx.operation.update({
      where: { id },
      data: { status: 'voided', voidReason: reason, voidedAt: now, resourceVersion: { increment: 1 }, updatedAt: now },
    });
    await finalize?.(tx, voided);
    return voided;
  });
}

export async function getOperation(ctx: AppContext, merchant: Merchant, id: string): Promise<Operation> {
  const operation = await ctx.db.operation.findFirst({ where: { id, merchantId: merchant.id, type: STYLE_M_TYPES } });
  if (!operation) throw notFound('operation', id);
  return operation;
}
