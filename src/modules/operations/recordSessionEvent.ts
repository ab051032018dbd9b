import type { Merchant, Operation, Register, RegisterSession } from '../../db/generated/client.js';
import type { AppContext } from '../../context.js';
import { formatAmount, toAmount, type AmountLike } from '../../domain/money.js';
import { isCashPayment } from '../../domain/paymentMethods.js';
import { cashCountDifference, expectedClosingAmount, isPossibleDrawerAmount } from '../../domain/sessions/cashCount.js';
import { checkSessionEvent, type SessionStatus } from '../../domain/sessions/sessionMachine.js';
import type { FiscalRecord, SessionRecordToSign } from '../../fiscal/fiscalDevice.js';
import { conflict } from '../../domain/errors.js';
import { assertRegisterInService } from '../../domain/registers/inService.js';
import { newId } from '../../lib/ids.js';
import { fiscalRegisterOf, lockRegister } from '../registers/service.js';
import type { Tx } from '../../db/transaction.js';
import { deviceTransactionOptions, type Finalize } from '../common/transactions.js';
import { signOrReject } from '../common/fiscalSigning.js';
import { paymentsOf, sessionDetailsOf, type StoredSessionDetails } from '../../db/records/operation.js';
import type { SessionEventBody } from './schemas.js';
import { cancellableSqlOf, sqlOf } from '../../db/sql.js';
import { deviceFailedIn, recordSignatureDeviceHealth } from '../registers/signatureDeviceHealth.js';

const DEFAULT_CURRENCY = 'EUR';

/** Cash the drawer should hold: opening + cash payments of completed operations (refunds pay out) + adjustments. */
async function expectedDrawer(tx: Tx, session: RegisterSession): Promise<string> {
  const operations = await tx.operation.findMany({
    where: { sessionId: session.id, status: 'completed', type: { in: ['sale', 'return', 'exchange', 'refund', 'session_cash_adjustment'] } },
  });
  const cashPayments = operations.flatMap((op) => paymentsOf(op).filter((p) => isCashPayment(p.method)).map((p) => p.amount));
  const adjustments = operations
    .filter((op) => op.type === 'session_cash_adjustment')
    .map((op) => sessionDetailsOf<{ amount: string; note: string | null }>(op).amount);
  return formatAmount(expectedClosingAmount({ opening_amount: session.openingAmount.toFixed(), cash_payments: cashPayments, adjustments }));
}

const signsFor = (register: Register) => register.fiscalizationStatus === 'fiscalized';

/** Signs a session record with the register's device in the event's transaction. */
async function signSessionRecord(ctx: AppContext, tx: Tx, register: Register, record: SessionRecordToSign): Promise<FiscalRecord | null> {
  return signOrReject(ctx, await cancellableSqlOf(tx, ctx.sql), fiscalRegisterOf(register), record);
}

/**
 * Session events complete at once (contract 3.1, 3.2). The cash count is
 * signed, and so is a close that moves cash (non-zero closing adjustment),
 * when the register is fiscalized; a signing failure rolls everything back.
 */
export async function recordSessionEvent(
  ctx: AppContext,
  merchant: Merchant,
  body: SessionEventBody,
  finalize?: Finalize<Operation>,
): Promise<Operation> {
  return ctx.db.$transaction(async (tx) => {
    const register = await lockRegister(tx, merchant, body.register_id);
    if (body.type === 'session_open') assertRegisterInService(register);
    let session = register.currentSessionId ? await tx.registerSession.findUnique({ where: { id: register.currentSessionId } }) : null;
    const check = checkSessionEvent(session ? { status: session.status as SessionStatus } : null, body.type);
    if (!check.ok) {
      throw conflict(check.code, check.message, {
        register_id: register.id,
        session_id: session?.id ?? null,
        ...(check.code === 'no_open_session' ? { alias: 'register_no_open_session' } : {}),
      });
    }
    const assertPossibleDrawer = (amount: AmountLike, field: string, message: string) => {
      if (!isPossibleDrawerAmount(amount)) {
        throw conflict('session_invalid_state', message, { field, register_id: register.id, session_id: session?.id ?? null });
      }
    };
    const now = new Date();
    const currency = body.currency ?? DEFAULT_CURRENCY;
    const sequenceNumber = register.nextSequenceNumber;
    const documentNumber = String(sequenceNumber);
    let details: StoredSessionDetails;
    let fiscal: FiscalRecord | null = null;
    let registerChanges: { currentSessionId?: string | null; nextClosingNumber?: { increment: number } } = {};

    switch (body.type) {
      case 'session_open': {
        const opening = formatAmount(body.opening_amount ?? '0');
        assertPossibleDrawer(opening, 'opening_amount', 'opening_amount must not be negative');
        session = await tx.registerSession.create({
          data: { id: newId('ses'), merchantId: merchant.id, registerId: register.id, status: 'open', openingAmount: opening, openedAt: now },
        });
        details = { opening_amount: opening };
        registerChanges = { currentSessionId: session.id };
        break;
      }
      case 'session_cash_adjustment':
        details = { amount: formatAmount(body.amount), note: body.note ?? null };
        break;
      case 'session_cash_count': {
        const current = session!;
        const expected = await expectedDrawer(tx, current);
        const counted = formatAmount(body.counted_closing_amount);
        assertPossibleDrawer(counted, 'counted_closing_amount', 'counted_closing_amount must not be negative');
        const difference = formatAmount(cashCountDifference(counted, expected));
        if (signsFor(register)) {
          fiscal = await signSessionRecord(ctx, tx, register, { kind: 'cash_count', documentNumber, counted, expected, difference, currency });
        }
        session = await tx.registerSession.update({
          where: { id: current.id },
          data: {
            status: 'counted',
            expectedClosingAmount: expected,
            countedClosingAmount: counted,
            closingCashcountDiff: difference,
            countedAt: now,
            updatedAt: now,
          },
        });
        details = {
          counted_closing_amount: counted,
          expected_closing_amount: expected,
          closing_cashcount_diff: difference,
          discrepancy_note: body.discrepancy_note ?? null,
        };
        break;
      }
      case 'session_close': {
        const current = session!;
        const adjustment = body.closing_adjustment_amount === undefined ? null : formatAmount(body.closing_adjustment_amount);
        if (adjustment !== null) {
          assertPossibleDrawer(
            toAmount(current.countedClosingAmount!.toFixed()).plus(toAmount(adjustment)),
            'closing_adjustment_amount',
            'closing_adjustment_amount cannot take out more cash than was counted',
          );
        }
        if (adjustment !== null && !toAmount(adjustment).isZero() && signsFor(register)) {
          fiscal = await signSessionRecord(ctx, tx, register, { kind: 'cash_transfer', documentNumber, amount: adjustment, currency });
        }
        session = await tx.registerSession.update({
          where: { id: current.id },
          data: {
            status: 'closed',
            closingAdjustmentAmount: adjustment,
            closingNumber: register.nextClosingNumber,
            closedAt: now,
            updatedAt: now,
          },
        });
        details = { closing_adjustment_amount: adjustment, closing_adjustment_note: body.closing_adjustment_note ?? null };
        registerChanges = { currentSessionId: null, nextClosingNumber: { increment: 1 } };
        break;
      }
    }

    await tx.register.update({
      where: { id: register.id },
      data: { nextSequenceNumber: { increment: 1 }, ...registerChanges },
    });
    const operation = await tx.operation.create({
      data: {
        id: newId('op'),
        merchantId: merchant.id,
        type: body.type,
        source: 'POS',
        status: 'completed',
        currency,
        registerId: register.id,
        locationId: register.locationId,
        sessionId: session!.id,
        sequenceNumber,
        externalId: body.external_id ?? null,
        sessionDetails: details,
        fiscalInformation: fiscal ? { ...fiscal } : undefined,
        completedAt: now,
        createdAt: now,
        updatedAt: now,
      },
    });
    if (fiscal) await recordSignatureDeviceHealth(sqlOf(tx), register, deviceFailedIn(fiscal));
    await finalize?.(sqlOf(tx), operation);
    return operation;
  }, deviceTransactionOptions(ctx.config.deviceTimeoutMs));
}
