import type { Merchant, Operation } from '../../db/generated/client.js';
import type { AppContext } from '../../context.js';
import { formatAmount, sumAmounts, toAmount } from '../../domain/money.js';
import { validateGoodsMovement } from '../../domain/operations/goodsMovementRules.js';
import type { GoodsMovementInput } from '../../domain/operations/operationInput.js';
import { checkSessionEvent } from '../../domain/sessions/sessionMachine.js';
import type { RuleViolation } from '../../domain/violation.js';
import { ApiError, conflict, unprocessable, validationError } from '../../http/errors.js';
import { newId } from '../../lib/ids.js';
import { lockRegister } from '../registers/service.js';
import { deviceTransactionOptions, type Finalize, type Tx } from '../common/transactions.js';
import type { StoredDiscount, StoredLineItem } from './records.js';
import type { GoodsMovementBody } from './schemas.js';

export function violationError(violations: RuleViolation[]): ApiError {
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

async function assertRelatedSale(tx: Tx, merchant: Merchant, relatedId: string): Promise<void> {
  const related = await tx.operation.findFirst({ where: { id: relatedId, merchantId: merchant.id } });
  if (!related || related.type !== 'sale' || related.status !== 'completed') {
    throw validationError('related_operation_id must name a completed sale of this merchant', {
      field: 'related_operation_id',
      related_operation_id: relatedId,
    });
  }
}

/** Records a sale, return or exchange as `open` (contract 3.1); POS ones join the register's open session. */
export async function createGoodsMovement(
  ctx: AppContext,
  merchant: Merchant,
  body: GoodsMovementBody,
  finalize?: Finalize<Operation>,
): Promise<Operation> {
  const input = toDomainInput(body);
  const violations = validateGoodsMovement(input);
  if (violations.length) throw violationError(violations);

  return ctx.db.$transaction(async (tx) => {
    if (input.related_operation_id) await assertRelatedSale(tx, merchant, input.related_operation_id);
    let placement: { registerId: string; locationId: string; sessionId: string; sequenceNumber: number } | null = null;
    if (input.source === 'POS') {
      const register = await lockRegister(tx, merchant, input.register_id!);
      const session = register.currentSessionId
        ? await tx.registerSession.findUnique({ where: { id: register.currentSessionId } })
        : null;
      const check = checkSessionEvent(session ? { status: session.status as 'open' | 'counted' | 'closed' } : null, 'goods_movement');
      if (!check.ok) throw conflict(check.code, check.message, { register_id: register.id, alias: 'register_no_open_session' });
      await tx.register.update({ where: { id: register.id }, data: { nextSequenceNumber: { increment: 1 } } });
      placement = {
        registerId: register.id,
        locationId: register.locationId,
        sessionId: session!.id,
        sequenceNumber: register.nextSequenceNumber,
      };
    }
    const discounts: StoredDiscount[] = (input.cart_level_discounts ?? []).map((discount) => ({
      id: newId('dis'),
      amount: formatAmount(discount.amount),
      description: discount.description ?? null,
    }));
    const operation = await tx.operation.create({
      data: {
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
        pretaxAmount: input.pretax_amount,
        taxAmount: input.tax_amount,
        tipAmount: input.tip_amount,
        totalAmount: input.total_amount,
        lineItems: storedLines(input) as object[],
        cartLevelDiscounts: discounts as object[],
        relatedOperationId: input.related_operation_id ?? null,
        externalRelatedOperation: input.external_related_operation ? { ...input.external_related_operation } : undefined,
        note: input.note ?? null,
      },
    });
    await finalize?.(tx, operation);
    return operation;
  }, deviceTransactionOptions(ctx.config.deviceTimeoutMs));
}
