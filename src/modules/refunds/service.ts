import { Decimal } from 'decimal.js';
import type { Merchant, Operation, Prisma as PrismaNs } from '../../db/generated/client.js';
import type { AppContext } from '../../context.js';
import { formatAmount, fromMinorUnits } from '../../domain/money.js';
import { planRefund, type RefundSelection } from '../../domain/styleO/refundPlan.js';
import { computeTotals, lineAmounts, type Minor } from '../../domain/styleO/totals.js';
import { checkSessionEvent } from '../../domain/sessions/sessionMachine.js';
import { KassenbelegMappingError } from '../../fiscal/kassensichv/kassenbeleg.js';
import { conflict, notFound, unprocessable, validationError } from '../../domain/errors.js';
import { newId } from '../../lib/ids.js';
import type { Tx } from '../../db/transaction.js';
import { deviceTransactionOptions, type Finalize } from '../common/transactions.js';
import type { StoredLineItem, StoredPayment } from '../../db/records/operation.js';
import { assertCompletableInSession, lockedSessionOf, type BoundSession } from '../operations/boundSession.js';
import { issueReceipt, receiptPlaceOf } from '../receipts/service.js';
import { findRegister, lockRegister } from '../registers/service.js';
import { refundDataOf, type StoredRefundData } from './records.js';
import type { CreateRefundInput, OrganizationLineItemView, OrganizationPaymentView } from './schemas.js';
import { fiscalUpdate, refundProcessData, signRefund } from './signing.js';
import { lineFigures, styleOViewOfGoodsMovement, type StyleODocument } from './styleMView.js';
import { sqlOf } from '../../db/sql.js';

const sumMinor = (values: readonly Minor[]) => values.reduce((a, b) => a + b, 0);
const negate = (value: Minor) => (value === 0 ? 0 : -value);

/**
 * What earlier refunds (open or completed) of the sale already take back: the
 * quantity per original line item, and the part of the sale's rounding_adjustment.
 */
async function earlierRefunds(tx: Tx, saleId: string): Promise<{ quantities: Map<string, Decimal>; rounding: Minor }> {
  const earlier = await tx.operation.findMany({
    where: { relatedOperationId: saleId, type: 'refund', status: { in: ['open', 'completed'] } },
  });
  const quantities = new Map<string, Decimal>();
  let rounding = 0;
  for (const refund of earlier) {
    const data = refundDataOf(refund);
    rounding += data.totals.rounding_adjustment;
    for (const line of data.line_items) {
      if (!line.original_line_item_id) continue;
      const before = quantities.get(line.original_line_item_id) ?? new Decimal(0);
      quantities.set(line.original_line_item_id, before.plus(String(line.quantity)));
    }
  }
  return { quantities, rounding };
}

/** Whether the sale is wholly refunded once `lines` are added to what earlier refunds took. */
function completesSale(sale: StyleODocument, earlier: Map<string, Decimal>, lines: OrganizationLineItemView[]): boolean {
  const taken = new Map(earlier);
  for (const line of lines) {
    const id = line.original_line_item_id!;
    taken.set(id, (taken.get(id) ?? new Decimal(0)).plus(String(line.quantity)));
  }
  return sale.line_items.every((line) => (taken.get(line.id) ?? new Decimal(0)).eq(String(line.quantity)));
}

function refundLines(sale: StyleODocument, plan: Extract<ReturnType<typeof planRefund>, { ok: true }>): OrganizationLineItemView[] {
  const byId = new Map(sale.line_items.map((line) => [line.id, line]));
  return plan.lines.map((share, i) => {
    const original = byId.get(share.line_id)!;
    const lineDiscounts = original.line_discounts.map((discount, k) => ({ ...discount, amount: share.line_discounts[k].amount }));
    const allocations = original.cart_discount_allocations.map((allocation, k) => ({
      ...allocation,
      amount: share.cart_discount_allocations[k].amount,
    }));
    const amounts = lineAmounts({
      subtotal_gross: share.subtotal_gross,
      line_discounts: lineDiscounts,
      cart_discount_allocations: allocations,
      tax_rate: original.tax.rate,
      tax_amount: share.tax_amount,
    });
    return {
      id: newId('li'),
      position: i + 1,
      description: original.description,
      quantity: share.quantity,
      unit: original.unit,
      unit_price_gross: original.unit_price_gross,
      product_ref: original.product_ref,
      flags: [...original.flags],
      subtotal_gross: amounts.subtotal_gross,
      line_discounts: lineDiscounts,
      line_discount_amount: amounts.line_discount_amount,
      subtotal_after_line_discounts: amounts.subtotal_after_line_discounts,
      cart_discount_allocations: allocations,
      cart_discount_amount: amounts.cart_discount_amount,
      total_gross: amounts.total_gross,
      tax: { ...original.tax, taxable_amount: amounts.taxable_amount, tax_amount: amounts.tax_amount },
      total_net: amounts.total_net,
      original_line_item_id: original.id,
    };
  });
}

type PaymentInput = NonNullable<CreateRefundInput['payments']>[number];

function fromInput(payment: PaymentInput, currency: string): OrganizationPaymentView {
  const orNull = <T>(value: T | undefined) => value ?? null;
  return {
    id: newId('pay'),
    method: payment.method,
    direction: 'refund',
    amount: payment.amount,
    currency,
    reference: orNull(payment.reference),
    status: 'refunded',
    ...(payment.cash ? { cash: { amount_tendered: orNull(payment.cash.amount_tendered) } } : {}),
    ...(payment.card
      ? {
          card: {
            scheme: orNull(payment.card.scheme),
            last4: orNull(payment.card.last4),
            authorization_code: orNull(payment.card.authorization_code),
            terminal_id: orNull(payment.card.terminal_id),
            application_id: orNull(payment.card.application_id),
          },
        }
      : {}),
    ...(payment.wallet
      ? {
          wallet: {
            provider: orNull(payment.wallet.provider),
            scheme: orNull(payment.wallet.scheme),
            last4: orNull(payment.wallet.last4),
            authorization_code: orNull(payment.wallet.authorization_code),
          },
        }
      : {}),
    ...(payment.voucher ? { voucher: { code: orNull(payment.voucher.code), type: orNull(payment.voucher.type) } } : {}),
    ...(payment.gift_card ? { gift_card: { gift_card_id: orNull(payment.gift_card.gift_card_id), last4: orNull(payment.gift_card.last4) } } : {}),
    ...(payment.online
      ? { online: { provider: orNull(payment.online.provider), transaction_reference: orNull(payment.online.transaction_reference) } }
      : {}),
  };
}

/**
 * How the money goes back. Sent: the amounts must sum to the refund's
 * total_gross, in the sale's currency. Not sent: a full refund repeats the
 * sale's payments when they add up to it; otherwise a sale paid by a single
 * method is refunded by that method; a sale paid by several needs them sent.
 */
function refundPayments(body: CreateRefundInput, sale: StyleODocument, total: Minor): OrganizationPaymentView[] {
  const currency = sale.currency;
  if (body.payments) {
    body.payments.forEach((payment, i) => {
      if (payment.currency && payment.currency !== currency) {
        throw validationError(`A refund payment must be in the sale's currency ${currency}`, { field: `payments[${i}].currency`, currency });
      }
      if (payment.method === 'gift_card' && !payment.gift_card?.gift_card_id?.trim()) {
        throw unprocessable('gift_card_id_required', 'A gift_card payment must carry gift_card.gift_card_id', {
          field: `payments[${i}].gift_card.gift_card_id`,
        });
      }
    });
    const paid = sumMinor(body.payments.map((payment) => payment.amount));
    if (paid !== total) {
      throw validationError('The refund payments must sum to the refund total (totals.total_gross)', {
        field: 'payments',
        payments_total: paid,
        refund_total: total,
      });
    }
    return body.payments.map((payment) => fromInput(payment, currency));
  }
  const original = sale.payments;
  const asRefund = (payment: OrganizationPaymentView, amount: Minor): OrganizationPaymentView => ({
    ...payment,
    id: newId('pay'),
    direction: 'refund',
    amount,
    status: 'refunded',
  });
  if (body.refund_type === 'full' && original.length > 0 && sumMinor(original.map((payment) => payment.amount)) === total) {
    return original.map((payment) => asRefund(payment, payment.amount));
  }
  if (total === 0) return [];
  const methods = new Set(original.map((payment) => payment.method));
  if (methods.size === 1) return [asRefund(original[0], total)];
  throw validationError(
    original.length
      ? 'The sale was paid by several methods; send payments to say how the money goes back'
      : 'The sale has no payments to refund to; send payments to say how the money goes back',
    { field: 'payments', refund_total: total },
  );
}

/** The Style M columns of a refund, mirrored as a return holds them (negative decimal strings). */
function mirroredStyleM(data: StoredRefundData) {
  const decimal = (minor: Minor) => formatAmount(fromMinorUnits(negate(minor), data.currency));
  const lineItems: StoredLineItem[] = data.line_items.map((line) => ({
    id: line.id,
    type: line.flags.includes('gift_card') ? 'gift_card' : 'item',
    title: line.description,
    quantity: line.quantity,
    unit_price: decimal(line.unit_price_gross),
    total_amount: decimal(line.total_gross),
    sku_identifier: line.product_ref ?? '',
    taxes: [{ id: newId('tax'), name: 'VAT', rate: line.tax.rate, tax_amount: decimal(line.tax.tax_amount) }],
    gift_card_id: null,
  }));
  const payments: StoredPayment[] = data.payments.map((payment) => ({
    id: payment.id,
    payment_id: null,
    method: payment.method,
    amount: decimal(payment.amount),
    currency: payment.currency,
    status: 'refunded',
    processor: null,
    card_brand: payment.card?.scheme ?? null,
    processor_reference: payment.reference,
    processed_at: null,
    gift_card_id: payment.gift_card?.gift_card_id ?? null,
  }));
  return {
    lineItems,
    payments,
    totalAmount: decimal(data.totals.total_gross),
    taxAmount: decimal(data.totals.total_tax),
    pretaxAmount: decimal(data.totals.total_net),
    tipAmount: '0.00',
  };
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
    const plan = planRefund(
      sale.line_items.map((line) => ({
        id: line.id,
        quantity: line.quantity,
        total_gross: line.total_gross,
        tax_amount: line.tax.tax_amount,
        line_discounts: line.line_discounts,
        cart_discount_allocations: line.cart_discount_allocations,
      })),
      earlier.quantities,
      selection,
    );
    if (!plan.ok) throw validationError(plan.violation.message, { field: plan.violation.field, ...plan.violation.details });

    const lines = refundLines(sale, plan);
    // A sale whose Style M amounts were finer than the minor unit carries a rounding_adjustment;
    // the refund that returns its last items returns it too, so refunds add up to the sale exactly.
    const rounding = completesSale(sale, earlier.quantities, lines) ? sale.totals.rounding_adjustment - earlier.rounding : 0;
    const totals = computeTotals(
      lines.map((line) => ({ ...lineFigures(line), tax_rate: line.tax.rate, tax_category: line.tax.category })),
      { direction: 'refund', rounding_adjustment: rounding },
    );
    const usedDiscounts = new Set(lines.flatMap((line) => line.cart_discount_allocations.map((allocation) => allocation.discount_id)));
    const data: StoredRefundData = {
      currency: sale.currency,
      line_items: lines,
      cart_discounts: sale.cart_discounts
        .filter((discount) => usedDiscounts.has(discount.id))
        .map((discount) => ({
          ...discount,
          total_amount: sumMinor(
            lines.flatMap((line) => line.cart_discount_allocations.filter((a) => a.discount_id === discount.id).map((a) => a.amount)),
          ),
        })),
      payments: refundPayments(body, sale, totals.total_gross),
      totals,
    };
    const mirrored = mirroredStyleM(data);
    if (register.regime === 'KassenSichV') {
      try {
        refundProcessData(mirrored);
      } catch (error) {
        if (error instanceof KassenbelegMappingError) {
          throw unprocessable('regime_validation_failed', `The sale cannot be refunded on a KassenSichV register: ${error.message}`, {
            field: 'original_operation_id',
            regime: 'KassenSichV',
          });
        }
        throw error;
      }
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
 * open -> completed, signing the refund with the register's TSE in the same
 * transaction (DESIGN "Fiscal devices"); 409 once its session is counted or
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
    const outcome = await signRefund(ctx, tx, register, refund);
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
    const receiptId = await issueReceipt(sqlOf(tx), organization, completed, now, await receiptPlaceOf(tx, completed));
    const withReceipt = await tx.operation.update({ where: { id }, data: { receiptId } });
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
