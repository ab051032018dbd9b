import { Prisma, type Merchant, type Operation } from '../../db/generated/client.js';
import type { AppContext } from '../../context.js';
import { formatAmount, sumAmounts, toAmount } from '../../domain/money.js';
import { validateGoodsMovement } from '../../domain/operations/goodsMovementRules.js';
import type { GoodsMovementInput } from '../../domain/operations/operationInput.js';
import { checkSessionEvent } from '../../domain/sessions/sessionMachine.js';
import type { RuleViolation } from '../../domain/violation.js';
import { conflict, notFound, unprocessable, validationError, type DomainError } from '../../domain/errors.js';
import { newId } from '../../lib/ids.js';
import type { SqlClient } from '../../db/sql.js';
import type { Finalize } from '../common/transactions.js';
import { lineItemsOf, type StoredDiscount, type StoredLineItem } from '../../db/records/operation.js';
import type { GoodsMovementBody } from './schemas.js';
import type { GoodsMovementContent } from '../../fiscal/fiscalDevice.js';
import { regimeNamed } from '../../fiscal/regimes.js';
import { returnedOriginalOf } from './returnedOriginal.js';
import { assertRegisterInService } from '../../domain/registers/inService.js';
import { fiscalFailureAsDomainError } from '../common/fiscalSigning.js';

export function violationError(violations: RuleViolation[]): DomainError {
  const first = violations[0];
  return unprocessable(first.code, first.message, { field: first.field, ...first.details, violations });
}

/** Fills the amounts the body may leave out: no tip, the lines' taxes, the rest as pretax. */
function toDomainInput(body: GoodsMovementBody): GoodsMovementInput {
  const tip = body.tip_amount ?? '0';
  const tax =
    body.tax_amount ?? formatAmount(sumAmounts(body.line_items.flatMap((line) => line.taxes.map((tax) => tax.tax_amount))));
  const pretax = body.pretax_amount ?? formatAmount(toAmount(body.total_amount).minus(toAmount(tax)).minus(toAmount(tip)));
  return {
    ...body,
    pretax_amount: pretax,
    tax_amount: tax,
    tip_amount: tip,
    cart_level_discounts: body.type === 'sale' ? body.cart_level_discounts : undefined,
  };
}

function storedLines(input: GoodsMovementInput): StoredLineItem[] {
  return input.line_items.map((line) => ({
    id: newId('li'),
    type: line.type ?? 'item',
    title: line.title,
    quantity: line.quantity,
    unit_price: formatAmount(line.unit_price),
    total_amount: formatAmount(line.total_amount),
    sku_identifier: line.sku_identifier,
    taxes: line.taxes.map((tax) => ({ id: newId('tax'), name: tax.name, rate: toAmount(tax.rate).toString(), tax_amount: formatAmount(tax.tax_amount) })),
    gift_card_id: line.gift_card_id ?? null,
  }));
}

async function assertRelatedSale(sql: SqlClient, merchant: Merchant, relatedId: string): Promise<void> {
  const [related] = await sql.query<{ type: string; status: string }>(
    `SELECT type, status FROM operations WHERE id = $1 AND merchant_id = $2`,
    [relatedId, merchant.id],
  );
  if (!related || related.type !== 'sale' || related.status !== 'completed') {
    throw validationError('related_operation_id must name a completed sale of this merchant', {
      field: 'related_operation_id',
      related_operation_id: relatedId,
    });
  }
}

interface Placement {
  registerId: string;
  locationId: string;
  sessionId: string;
  sequenceNumber: number;
  /** The regime the register signs under, once fiscalized. */
  regime: string | null;
}

/**
 * Takes the register's next sequence number; the UPDATE locks the register
 * row, the serialization point of its sessions, so the session read after it
 * (its own statement, with a snapshot taken once the lock is held, sent in the
 * same round trip) is the current one: a sale never joins a session closed
 * meanwhile.
 */
async function placeOnRegister(sql: SqlClient, merchant: Merchant, registerId: string): Promise<Placement> {
  const [[register], [session]] = await Promise.all([
    sql.query<{
      id: string;
      location_id: string;
      current_session_id: string | null;
      sequence_number: number;
      regime: string | null;
      fiscalization_status: string;
    }>(
      `UPDATE registers SET next_sequence_number = next_sequence_number + 1
        WHERE id = $1 AND merchant_id = $2
       RETURNING id, location_id, current_session_id, next_sequence_number - 1 AS sequence_number, regime, fiscalization_status`,
      [registerId, merchant.id],
    ),
    sql.query<{ status: 'open' | 'counted' | 'closed' }>(
      `SELECT s.status FROM registers r JOIN register_sessions s ON s.id = r.current_session_id WHERE r.id = $1 AND r.merchant_id = $2`,
      [registerId, merchant.id],
    ),
  ]);
  if (!register) throw notFound('register', registerId);
  assertRegisterInService({ id: register.id, fiscalizationStatus: register.fiscalization_status });
  const check = checkSessionEvent(session ?? null, 'goods_movement');
  if (!check.ok) throw conflict(check.code, check.message, { register_id: register.id, alias: 'register_no_open_session' });
  return {
    registerId: register.id,
    locationId: register.location_id,
    sessionId: register.current_session_id!,
    sequenceNumber: register.sequence_number,
    regime: register.regime,
  };
}

/** A goods movement its register's regime could never sign is refused at create (422 regime_validation_failed), not left to fail at completion. */
function assertSignableOn(placement: Placement, movement: GoodsMovementContent): void {
  try {
    regimeNamed(placement.regime)?.checkGoodsMovement(movement);
  } catch (error) {
    throw fiscalFailureAsDomainError(error, placement.registerId);
  }
}

const INSERT_OPERATION = `
  INSERT INTO operations (id, merchant_id, type, source, status, currency, register_id, location_id, session_id,
                          sequence_number, external_id, pretax_amount, tax_amount, tip_amount, total_amount,
                          line_items, cart_level_discounts, payments, related_operation_id, external_related_operation, note,
                          lottery_code, fiscal_attempts, resource_version, created_at, updated_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16::json, $17::json, $18::json, $19,
          $20::json, $21, $22, $23, $24, $25, $26)`;

/** An operation as `open` (contract 3.1), every column as a read of the inserted row returns it. */
function openOperation(merchant: Merchant, input: GoodsMovementInput, discounts: StoredDiscount[], placement: Placement | null): Operation {
  const now = new Date();
  return {
    id: newId('op'),
    merchantId: merchant.id,
    type: input.type,
    source: input.source,
    status: 'open',
    currency: input.currency,
    registerId: placement?.registerId ?? null,
    locationId: placement?.locationId ?? null,
    sessionId: placement?.sessionId ?? null,
    sequenceNumber: placement?.sequenceNumber ?? null,
    externalId: input.external_id ?? null,
    lotteryCode: input.type === 'sale' ? (input.lottery_code ?? null) : null,
    pretaxAmount: new Prisma.Decimal(input.pretax_amount),
    taxAmount: new Prisma.Decimal(input.tax_amount),
    tipAmount: new Prisma.Decimal(input.tip_amount),
    totalAmount: new Prisma.Decimal(input.total_amount),
    lineItems: storedLines(input) as unknown as Prisma.JsonArray,
    cartLevelDiscounts: discounts as unknown as Prisma.JsonArray,
    payments: [],
    relatedOperationId: input.related_operation_id ?? null,
    externalRelatedOperation: (input.external_related_operation as Prisma.JsonObject | undefined) ?? null,
    sessionDetails: null,
    fiscalInformation: null,
    pendingTseTransaction: null,
    note: input.note ?? null,
    voidReason: null,
    voidedAt: null,
    completedAt: null,
    receiptId: null,
    fiscalState: null,
    fiscalError: null,
    fiscalAttempts: 0,
    fiscalRetryAt: null,
    refundType: null,
    reason: null,
    cashier: null,
    metadata: null,
    styleOData: null,
    resourceVersion: 1,
    createdAt: now,
    updatedAt: now,
  };
}

const json = (value: Prisma.JsonValue | null) => (value === null ? null : JSON.stringify(value));

/**
 * Records a sale, return or exchange as `open` (contract 3.1); POS ones join the register's open session.
 * The row is written with the commit (SqlClient.write): the response is built from what is written.
 */
export async function createGoodsMovement(
  ctx: AppContext,
  merchant: Merchant,
  body: GoodsMovementBody,
  finalize?: Finalize<Operation>,
): Promise<Operation> {
  const input = toDomainInput(body);
  const violations = validateGoodsMovement(input);
  if (violations.length) throw violationError(violations);
  const discounts: StoredDiscount[] = (input.cart_level_discounts ?? []).map((discount) => ({
    id: newId('dis'),
    amount: formatAmount(discount.amount),
    description: discount.description ?? null,
  }));

  return ctx.sql.transaction(async (sql) => {
    if (input.related_operation_id) await assertRelatedSale(sql, merchant, input.related_operation_id);
    const placement = input.source === 'POS' ? await placeOnRegister(sql, merchant, input.register_id!) : null;
    const operation = openOperation(merchant, input, discounts, placement);
    if (placement) {
      assertSignableOn(placement, {
        operationType: input.type,
        lineItems: lineItemsOf(operation),
        cartLevelDiscounts: discounts,
        tipAmount: input.tip_amount,
        payments: [],
        lotteryCode: operation.lotteryCode,
        original: await returnedOriginalOf(sql, merchant.id, operation),
      });
    }
    await sql.write(INSERT_OPERATION, [
      operation.id,
      operation.merchantId,
      operation.type,
      operation.source,
      operation.status,
      operation.currency,
      operation.registerId,
      operation.locationId,
      operation.sessionId,
      operation.sequenceNumber,
      operation.externalId,
      input.pretax_amount,
      input.tax_amount,
      input.tip_amount,
      input.total_amount,
      json(operation.lineItems),
      json(operation.cartLevelDiscounts),
      json(operation.payments),
      operation.relatedOperationId,
      json(operation.externalRelatedOperation),
      operation.note,
      operation.lotteryCode,
      operation.fiscalAttempts,
      operation.resourceVersion,
      operation.createdAt,
      operation.updatedAt,
    ]);
    await finalize?.(sql, operation);
    return operation;
  });
}
