import { Decimal } from 'decimal.js';
import { quantityShare, type Minor } from './totals.js';

/** A line of the original sale as Style O sees it (minor units, after every discount). */
export interface RefundableLine {
  id: string;
  /** Quantity sold; positive. */
  quantity: number;
  total_gross: Minor;
  tax_amount: Minor;
  line_discounts: readonly { id: string; amount: Minor }[];
  cart_discount_allocations: readonly { discount_id: string; amount: Minor }[];
}

export type RefundSelection =
  | { refund_type: 'full' }
  | { refund_type: 'partial'; line_items: readonly { line_item_id: string; quantity: number }[] };

/** What one refund gives back of one original line. */
export interface LineRefund {
  line_id: string;
  quantity: number;
  subtotal_gross: Minor;
  line_discounts: { id: string; amount: Minor }[];
  cart_discount_allocations: { discount_id: string; amount: Minor }[];
  total_gross: Minor;
  tax_amount: Minor;
}

export interface RefundViolation {
  field: string;
  message: string;
  details?: Record<string, unknown>;
}

export type RefundPlan = { ok: true; lines: LineRefund[] } | { ok: false; violation: RefundViolation };

const D = Decimal.clone({ precision: 60 });
const quantity = (value: Decimal.Value) => new D(typeof value === 'number' ? String(value) : value);

/**
 * The amounts a refund returns (contract 2.8 refund_type). `full` returns
 * every line of a sale that has no refund yet; `partial` returns the named
 * quantities. Amounts are the quantity's share of each of the line's amounts
 * (total, tax, every discount), computed so that refunds of the same line
 * telescope: together they never return more than the line, and returning
 * its last unit returns exactly what is left. `alreadyRefunded` holds the
 * quantity per line id that earlier refunds (open or completed) took.
 */
export function planRefund(
  lines: readonly RefundableLine[],
  alreadyRefunded: ReadonlyMap<string, Decimal.Value>,
  selection: RefundSelection,
): RefundPlan {
  const refunded = (id: string) => quantity(alreadyRefunded.get(id) ?? 0);

  let wanted: { line: RefundableLine; quantity: Decimal; field: string }[];
  if (selection.refund_type === 'full') {
    const taken = lines.filter((line) => refunded(line.id).gt(0));
    if (taken.length > 0) {
      return {
        ok: false,
        violation: {
          field: 'refund_type',
          message: 'The sale already has refunds; a full refund would return more than the sale. Refund the remaining items with refund_type partial.',
          details: { refunded_line_item_ids: taken.map((line) => line.id) },
        },
      };
    }
    wanted = lines.map((line) => ({ line, quantity: quantity(line.quantity), field: 'refund_type' }));
  } else {
    const byId = new Map(lines.map((line) => [line.id, line]));
    const seen = new Set<string>();
    wanted = [];
    for (const [i, item] of selection.line_items.entries()) {
      const line = byId.get(item.line_item_id);
      if (!line) {
        return {
          ok: false,
          violation: {
            field: `line_items[${i}].line_item_id`,
            message: `The original sale has no line item ${item.line_item_id}`,
            details: { line_item_id: item.line_item_id },
          },
        };
      }
      if (seen.has(line.id)) {
        return {
          ok: false,
          violation: { field: `line_items[${i}].line_item_id`, message: 'Each line item may be named once per refund', details: { line_item_id: line.id } },
        };
      }
      seen.add(line.id);
      wanted.push({ line, quantity: quantity(item.quantity), field: `line_items[${i}].quantity` });
    }
  }

  const result: LineRefund[] = [];
  for (const { line, quantity: q, field } of wanted) {
    const whole = quantity(line.quantity);
    const before = refunded(line.id);
    const after = before.plus(q);
    if (!q.gt(0) || after.gt(whole)) {
      return {
        ok: false,
        violation: {
          field,
          message: 'Refunds together may not return more than the original line item',
          details: {
            line_item_id: line.id,
            quantity_sold: line.quantity,
            quantity_refunded: before.toNumber(),
            quantity_refundable: whole.minus(before).toNumber(),
          },
        },
      };
    }
    const share = (amount: Minor) => quantityShare(amount, before, after, whole);
    const lineDiscounts = line.line_discounts.map((discount) => ({ id: discount.id, amount: share(discount.amount) }));
    const allocations = line.cart_discount_allocations.map((allocation) => ({
      discount_id: allocation.discount_id,
      amount: share(allocation.amount),
    }));
    const totalGross = share(line.total_gross);
    const discounts = [...lineDiscounts, ...allocations].reduce((sum, d) => sum + d.amount, 0);
    result.push({
      line_id: line.id,
      quantity: q.toNumber(),
      // Built up from the total and the discounts, so it is never below them.
      subtotal_gross: totalGross + discounts,
      line_discounts: lineDiscounts,
      cart_discount_allocations: allocations,
      total_gross: totalGross,
      tax_amount: share(line.tax_amount),
    });
  }
  return { ok: true, lines: result };
}
