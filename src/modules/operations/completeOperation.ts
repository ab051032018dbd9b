import { Prisma, type Merchant, type Operation } from '../../db/generated/client.js';
import type { AppContext } from '../../context.js';
import { formatAmount } from '../../domain/money.js';
import { checkOperationTransition, type OperationStatus, type VoidReason } from '../../domain/operations/operationMachine.js';
import type { GoodsMovementType, OperationType, PaymentInput } from '../../domain/operations/operationInput.js';
import { validatePayments } from '../../domain/operations/paymentRules.js';
import { assertCurrentVersion } from '../../domain/resourceVersion.js';
import { conflict, notFound, validationError } from '../../domain/errors.js';
import { newId } from '../../lib/ids.js';
import type { DeviceDetails, DeviceState, FiscalRecord, FiscalRegister } from '../../fiscal/fiscalDevice.js';
import { lockedDeviceStateOf } from '../../fiscal/regimes.js';
import { returnedOriginalOf } from './returnedOriginal.js';
import type { Finalize } from '../common/transactions.js';
import { issueReceipt, newReceiptToken } from '../receipts/service.js';
import { hostedReceiptUrl } from '../receipts/presenter.js';
import type { ReceiptPlace } from '../receipts/snapshot.js';
import { assertCompletableInSession, lockedSessionOf } from './boundSession.js';
import { violationError } from './createGoodsMovement.js';
import { signOrReject } from '../common/fiscalSigning.js';
import { OPERATION_COLUMNS, operationFromRow, type OperationRow } from '../../db/rows/operationRows.js';
import { discountsOf, lineItemsOf, type StoredPayment } from '../../db/records/operation.js';
import { recordOperationSigned } from '../events/operationEvents.js';
import { deviceFailedIn, recordSignatureDeviceHealth } from '../registers/signatureDeviceHealth.js';
import type { z } from 'zod';
import type { CompleteOperationBody } from './schemas.js';

/** Style O refunds share the table; Style M neither shows nor changes them (its Operation union has no refund). */
export const STYLE_M_TYPES = { not: 'refund' } as const;

const deviceState = lockedDeviceStateOf('r');

/**
 * The operation, locked for the rest of the transaction, with what completing
 * it needs in the same round trip: the register's fiscal state, its device's
 * state (locked when free, see FiscalRegime.lockedDeviceStateSql), the
 * location the receipt names and the session it is bound to, locked as
 * lockedSessionOf says. The operation is locked first (the CTE runs before the
 * lateral joins that need its row), as refund creation locks a sale before
 * its register; the session before the device, as session events do.
 */
const LOCK_FOR_COMPLETION = `
  WITH target AS MATERIALIZED (
    SELECT * FROM operations
     WHERE id = $1 AND merchant_id = $2 AND type <> 'refund'
       FOR UPDATE)
  SELECT ${OPERATION_COLUMNS},
         r.name AS register_name, r.fiscalization_status, r.regime, r.device_id, r.client_id, r.device_simulation, r.device_details, r.device_failed_since,
         l.name AS location_name, l.address AS location_address, l.timezone AS location_timezone,
         bound.status AS session_status, ${deviceState.column}
    FROM target o
    LEFT JOIN registers r ON r.id = o.register_id
    LEFT JOIN locations l ON l.id = o.location_id
    LEFT JOIN LATERAL (${lockedSessionOf('o.session_id')}) bound ON true
    ${deviceState.joins}`;

interface CompletionRow extends OperationRow {
  register_name: string | null;
  fiscalization_status: string | null;
  regime: string | null;
  device_id: string | null;
  client_id: string | null;
  device_simulation: string | null;
  device_details: Prisma.JsonValue | null;
  device_failed_since: Date | null;
  location_name: string | null;
  location_address: Prisma.JsonValue | null;
  location_timezone: string | null;
  session_status: string | null;
  device_state: DeviceState | null;
}

function fiscalRegisterOf(row: CompletionRow): FiscalRegister {
  return {
    id: row.register_id!,
    fiscalizationStatus: row.fiscalization_status!,
    regime: row.regime,
    deviceId: row.device_id,
    clientId: row.client_id,
    deviceSimulation: row.device_simulation!,
    deviceDetails: (row.device_details ?? {}) as DeviceDetails,
    lockedDeviceState: row.device_state,
  };
}

function placeOf(row: CompletionRow): ReceiptPlace {
  return {
    location: row.location_name === null ? null : { name: row.location_name, address: row.location_address!, timezone: row.location_timezone! },
    register: row.register_name === null ? null : { name: row.register_name },
  };
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
  return ctx.sql.transaction(async (sql) => {
    const [row] = await sql.query<CompletionRow>(LOCK_FOR_COMPLETION, [id, merchant.id]);
    if (!row) throw notFound('operation', id);
    const operation = operationFromRow(row);
    assertTransition(operation, 'complete');
    assertCompletableInSession(row.session_status === null ? null : { id: row.session_id!, status: row.session_status });
    assertCurrentVersion(expectedVersion, operation.resourceVersion);
    const type = operation.type as GoodsMovementType;
    const stored = storedPayments(body.payments, operation.currency);
    const payments: PaymentInput[] = stored.map((payment) => ({ ...payment, payment_id: payment.payment_id ?? '' }));
    const violations = validatePayments(type, operation.totalAmount!.toFixed(), payments, operation.currency);
    if (violations.length) throw violationError(violations);

    const receiptToken = newReceiptToken();
    let fiscalInformation: FiscalRecord | null = null;
    if (operation.source === 'POS') {
      if (!operation.registerId) throw validationError('A POS operation needs a register to complete', { field: 'register_id' });
      fiscalInformation = await signOrReject(ctx, sql, fiscalRegisterOf(row), {
        kind: 'goods_movement',
        operationId: operation.id,
        documentNumber: String(operation.sequenceNumber),
        receiptUrl: hostedReceiptUrl(ctx.publicBaseUrl, receiptToken),
        operationType: type,
        lineItems: lineItemsOf(operation),
        cartLevelDiscounts: discountsOf(operation),
        tipAmount: operation.tipAmount!.toFixed(),
        payments: stored,
        lotteryCode: operation.lotteryCode,
        original: await returnedOriginalOf(sql, merchant.id, operation),
      });
    }

    const now = new Date();
    const completed: Operation = {
      ...operation,
      status: 'completed',
      payments: stored as unknown as Prisma.JsonArray,
      completedAt: body.completed_at ? new Date(body.completed_at) : now,
      fiscalInformation: fiscalInformation as unknown as Prisma.JsonObject | null,
      resourceVersion: operation.resourceVersion + 1,
      updatedAt: now,
    };
    // The receipt is built from the completed state before it is written, so the operation is updated once.
    completed.receiptId = await issueReceipt(sql, merchant, completed, now, placeOf(row), receiptToken);
    await sql.write(
      `UPDATE operations
          SET status = 'completed', payments = $2::json, completed_at = $3, fiscal_information = $4::json,
              resource_version = $5, updated_at = $6, receipt_id = $7
        WHERE id = $1`,
      [
        id,
        JSON.stringify(stored),
        completed.completedAt,
        fiscalInformation && JSON.stringify(fiscalInformation),
        completed.resourceVersion,
        now,
        completed.receiptId,
      ],
    );
    if (fiscalInformation) {
      await recordOperationSigned(sql, completed);
      await recordSignatureDeviceHealth(sql, { id: row.register_id!, deviceFailedSince: row.device_failed_since }, deviceFailedIn(fiscalInformation));
    }
    await finalize?.(sql, completed);
    return completed;
  });
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
  return ctx.sql.transaction(async (sql) => {
    const [row] = await sql.query<OperationRow>(
      `SELECT ${OPERATION_COLUMNS} FROM operations o WHERE o.id = $1 AND o.merchant_id = $2 AND o.type <> 'refund' FOR UPDATE`,
      [id, merchant.id],
    );
    if (!row) throw notFound('operation', id);
    const operation = operationFromRow(row);
    assertTransition(operation, 'void');
    assertCurrentVersion(expectedVersion, operation.resourceVersion);
    const [voided] = await sql.query<OperationRow>(
      `UPDATE operations o
          SET status = 'voided', void_reason = $2, voided_at = $3, resource_version = resource_version + 1, updated_at = $3
        WHERE o.id = $1
       RETURNING ${OPERATION_COLUMNS}`,
      [id, reason, new Date()],
    );
    const result = operationFromRow(voided);
    await finalize?.(sql, result);
    return result;
  });
}

export async function getOperation(ctx: AppContext, merchant: Merchant, id: string): Promise<Operation> {
  const [row] = await ctx.sql.query<OperationRow>(
    `SELECT ${OPERATION_COLUMNS} FROM operations o WHERE o.id = $1 AND o.merchant_id = $2 AND o.type <> 'refund'`,
    [id, merchant.id],
  );
  if (!row) throw notFound('operation', id);
  return operationFromRow(row);
}
