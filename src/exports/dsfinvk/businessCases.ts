import { Decimal } from 'decimal.js';
import { sumAmounts, toAmount } from '../../domain/money.js';
import { isGiftCardPayment, paymentMethodOf, type ZahlartTyp } from '../../domain/paymentMethods.js';
import { allocateDiscountByGross } from '../../domain/vatAllocation.js';
import { DsfinvkDataError, type DsfinvkOperation } from './model.js';
import { NOT_TAXABLE_KEY, vatKey, vatKeyForRate, type VatKey } from './vatKeys.js';

/**
 * How one operation becomes one DSFinV-K Vorgang (reference §6-9, contract
 * 2.5): its BON_TYP, its lines with GV_TYP and VAT split, its payments and
 * references. Pure; amounts are Decimals.
 *
 * Rounding: the API carries amounts to 8 places (tax amounts always), the
 * columns hold fewer, and the CSV writer refuses a value finer than its
 * column. So every value is rounded here, once, half away from zero, to the
 * places of the column it is written to (reference §4): 5 for line and VAT
 * split amounts and STK_BR, 2 for UMS_BRUTTO and payments (the amounts printed
 * and paid, as the TSE signs them), 3 for MENGE. Nets are gross minus VAT of
 * those rounded values, and the closing sums add them up, so nothing written
 * is rounded twice or disagrees with its sum.
 *
 * - sale / return / exchange: `Beleg`; `Umsatz` per goods line (negative on a
 *   return), `MehrzweckgutscheinKauf` (key 5) per gift card line, one `Rabatt`
 *   per cart-level discount, `TrinkgeldAN` (key 5) for a tip, then one
 *   `MehrzweckgutscheinEinloesung` (key 5, negative, GUTSCHEIN_NR) per gift
 *   card payment, which is no payment type. Returns and exchanges reference
 *   their original.
 * - voided: `AVBelegabbruch`, lines as entered, no payments (reference §8).
 * - session events move cash only, which the reference (§6) books as `Beleg`
 *   with key 5 and a Bar payment, so the closing's cash sum is the drawer:
 *   open -> `Anfangsbestand`; cash adjustment -> `Geldtransit` (till to safe
 *   or bank and back; nothing says it is the owner's money, which
 *   Privateinlage / Privatentnahme would claim); cash count ->
 *   `DifferenzSollIst` of counted minus expected; close with an adjustment ->
 *   `Geldtransit`; close without one -> `AVSonstige` "Kassenabschluss", no
 *   lines, so that its BON_NR is not missing.
 */

export type BonTyp = 'Beleg' | 'AVBelegabbruch' | 'AVSonstige';

export type GvTyp =
  | 'Umsatz'
  | 'Rabatt'
  | 'TrinkgeldAN'
  | 'MehrzweckgutscheinKauf'
  | 'MehrzweckgutscheinEinloesung'
  | 'Anfangsbestand'
  | 'Geldtransit'
  | 'DifferenzSollIst';

/** One line's (or one Vorgang's) amounts under one VAT key, at the 5 places of the *_vat tables. */
export interface VatShare {
  key: number;
  gross: Decimal;
  net: Decimal;
  vat: Decimal;
}

export interface BonLine {
  /** POS_ZEILE: 1, 2, ... within the Vorgang. */
  posZeile: string;
  gvTyp: GvTyp;
  /** ARTIKELTEXT, untrimmed (the CSV writer cuts it to 255). */
  text: string;
  /** GUTSCHEIN_NR */
  voucherId: string | null;
  /** ART_NR, MENGE, STK_BR: set for goods and vouchers sold. */
  articleNumber: string | null;
  quantity: Decimal | null;
  unitGross: Decimal | null;
  vat: VatShare[];
}

export interface BonPayment {
  type: ZahlartTyp;
  /** ZAHLART_NAME: the method's name (paymentMethods.ts), empty for cash. */
  name: string;
  currency: string;
  amount: Decimal;
}

export interface BonReference {
  type: 'Transaktion' | 'ExterneSonstige';
  /** REF_NAME (ExterneSonstige). */
  name: string | null;
  /** REF_DATUM: Z_ERSTELLUNG of the referenced closing, when known. */
  closedAt: Date | null;
  registerId: string | null;
  closingNumber: number | null;
  /** REF_BON_ID: the original's BON_ID (operation id) or the external document number. */
  bonId: string;
}

export interface Vorgang {
  bonId: string;
  bonNr: number;
  bonTyp: BonTyp;
  bonName: string | null;
  start: Date;
  end: Date;
  /** UMS_BRUTTO */
  grossTotal: Decimal;
  lines: BonLine[];
  /** transactions_vat: the lines' shares summed per key, ascending by key. */
  vat: VatShare[];
  payments: BonPayment[];
  references: BonReference[];
  tse: DsfinvkOperation['tse'];
}

export interface ClosingContext {
  registerId: string;
  closingNumber: number;
  closedAt: Date;
  baseCurrency: string;
  /** Fallback for a session_open operation without an opening amount. */
  openingAmount: string;
}

const ZERO = toAmount('0');
const cents = (value: Decimal) => value.toDecimalPlaces(2, Decimal.ROUND_HALF_UP);
const fivePlaces = (value: Decimal) => value.toDecimalPlaces(5, Decimal.ROUND_HALF_UP);
/** MENGE: quantities are JSON numbers of any precision. */
const quantityPlaces = (value: Decimal) => value.toDecimalPlaces(3, Decimal.ROUND_HALF_UP);

const noItem = { voucherId: null, articleNumber: null, quantity: null, unitGross: null } as const;

const share = (key: number, gross: Decimal, vat: Decimal): VatShare => ({ key, gross, vat, net: gross.minus(vat) });

/** VAT contained in a gross amount at the key's rate. */
const vatIn = (gross: Decimal, key: VatKey) => fivePlaces(gross.times(key.rate).dividedBy(key.rate.plus(1)));

/** The VAT share of a goods line: its gross total and its own tax amount under the key of its single rate. */
function lineVat(line: DsfinvkOperation['lineItems'][number]): VatShare {
  const gross = fivePlaces(toAmount(line.totalAmount));
  // A voucher sold is not taxable (§ 3 (15) UStG); contract 2.2 forces its taxes to 0.
  if (line.type === 'gift_card' || line.taxes.length === 0) return share(NOT_TAXABLE_KEY, gross, ZERO);
  if (line.taxes.length > 1) {
    throw new DsfinvkDataError('A line item carries more than one tax rate; a DSFinV-K line has one VAT key', { line_item_id: line.id });
  }
  const [tax] = line.taxes;
  return share(vatKeyForRate(tax.rate).key, gross, fivePlaces(toAmount(tax.taxAmount)));
}

/**
 * Spreads a discount total over VAT keys in proportion to their gross, in
 * cents, the remainder going to the key with the largest gross (ties: lowest
 * key): the rule kassenbeleg.ts applies to the signed processData (both
 * call allocateDiscountByGross), so the export and the TSE agree. Returns
 * positive shares that sum to `amount`.
 */
export function allocateDiscount(amount: Decimal, grossByKey: ReadonlyMap<number, Decimal>): Map<number, Decimal> {
  const keys = [...grossByKey.keys()].sort((a, b) => a - b);
  if (keys.length === 0) return new Map([[NOT_TAXABLE_KEY, amount]]);
  return allocateDiscountByGross(amount, new Map(keys.map((key) => [key, grossByKey.get(key)!])), 2);
}

/**
 * The VAT split of each cart-level discount. Each discount's shares are the
 * allocation of the running total minus that of the total before it, so that
 * over all discounts the split equals allocateDiscount of their sum (what the
 * TSE signed), while every discount's shares still sum to its own amount.
 */
export function discountShares(amounts: readonly Decimal[], grossByKey: ReadonlyMap<number, Decimal>): Map<number, Decimal>[] {
  let before = new Map<number, Decimal>();
  let running = ZERO;
  return amounts.map((amount) => {
    running = running.plus(amount);
    const upTo = allocateDiscount(running, grossByKey);
    const own = new Map([...upTo].map(([key, value]) => [key, value.minus(before.get(key) ?? ZERO)] as const));
    before = upTo;
    return own;
  });
}

function sumShares(lines: readonly BonLine[]): VatShare[] {
  const byKey = new Map<number, VatShare>();
  for (const line of lines) {
    for (const part of line.vat) {
      const sum = byKey.get(part.key);
      byKey.set(part.key, sum ? share(part.key, sum.gross.plus(part.gross), sum.vat.plus(part.vat)) : part);
    }
  }
  return [...byKey.values()].sort((a, b) => a.key - b.key);
}

function goodsLines(op: DsfinvkOperation, redeemed: DsfinvkOperation['payments']): BonLine[] {
  const lines: BonLine[] = [];
  const next = () => String(lines.length + 1);
  const grossByKey = new Map<number, Decimal>();

  for (const item of op.lineItems) {
    const vat = lineVat(item);
    grossByKey.set(vat.key, (grossByKey.get(vat.key) ?? ZERO).plus(vat.gross));
    const total = toAmount(item.totalAmount);
    // Quantity carries the sign of the amount (a return line is -1 × price), the unit price stays positive.
    const quantity = quantityPlaces(toAmount(new Decimal(item.quantity)).abs());
    lines.push({
      posZeile: next(),
      gvTyp: item.type === 'gift_card' ? 'MehrzweckgutscheinKauf' : 'Umsatz',
      text: item.title,
      voucherId: item.type === 'gift_card' ? item.giftCardId : null,
      articleNumber: item.skuIdentifier,
      quantity: total.isNegative() ? quantity.negated() : quantity,
      unitGross: fivePlaces(toAmount(item.unitPrice).abs()),
      vat: [vat],
    });
  }

  const discounts = op.cartLevelDiscounts.map((discount) => fivePlaces(toAmount(discount.amount)));
  discountShares(discounts, grossByKey).forEach((shares, index) => {
    const parts = [...shares]
      .filter(([, value]) => !value.isZero())
      .sort(([a], [b]) => a - b)
      .map(([key, value]) => share(key, value.negated(), vatIn(value, vatKey(key)).negated()));
    lines.push({
      posZeile: next(),
      gvTyp: 'Rabatt',
      text: op.cartLevelDiscounts[index].description || 'Rabatt',
      ...noItem,
      vat: parts.length ? parts : [share(NOT_TAXABLE_KEY, discounts[index].negated(), ZERO)],
    });
  });

  const tip = toAmount(op.tipAmount);
  if (!tip.isZero()) {
    // A tip for the staff passes through the till without tax (key 5); kassenbeleg.ts signs it in the 0 % position.
    lines.push({ posZeile: next(), gvTyp: 'TrinkgeldAN', text: 'Trinkgeld', ...noItem, vat: [share(NOT_TAXABLE_KEY, fivePlaces(tip), ZERO)] });
  }

  for (const payment of redeemed) {
    lines.push({
      posZeile: next(),
      gvTyp: 'MehrzweckgutscheinEinloesung',
      text: 'Gutscheineinlösung',
      ...noItem,
      voucherId: payment.giftCardId,
      vat: [share(NOT_TAXABLE_KEY, fivePlaces(toAmount(payment.amount)).negated(), ZERO)],
    });
  }
  return lines;
}

function references(op: DsfinvkOperation, ctx: ClosingContext): BonReference[] {
  const related = op.relatedOperation;
  if (related) {
    if (related.registerId === null) {
      // An ONLINE original has no register and so no DSFinV-K Vorgang to point at.
      return [{ type: 'ExterneSonstige', name: 'Online-Vorgang', closedAt: null, registerId: null, closingNumber: null, bonId: related.operationId }];
    }
    const sameClosing = related.registerId === ctx.registerId && related.closingNumber === ctx.closingNumber;
    return [
      {
        type: 'Transaktion',
        name: null,
        closedAt: sameClosing ? ctx.closedAt : (related.closedAt ?? null),
        registerId: related.registerId,
        closingNumber: related.closingNumber,
        bonId: related.operationId,
      },
    ];
  }
  const external = op.externalRelatedOperation;
  if (external) {
    return [
      { type: 'ExterneSonstige', name: external.description, closedAt: null, registerId: null, closingNumber: null, bonId: external.externalOperationId },
    ];
  }
  return [];
}

function cashLine(gvTyp: GvTyp, text: string, amount: Decimal): BonLine {
  return { posZeile: '1', gvTyp, text, ...noItem, vat: [share(NOT_TAXABLE_KEY, fivePlaces(amount), ZERO)] };
}

/** BON_TYP, lines, UMS_BRUTTO and payments of one operation. */
function content(op: DsfinvkOperation, ctx: ClosingContext): Pick<Vorgang, 'bonTyp' | 'bonName' | 'lines' | 'grossTotal' | 'payments'> {
  const cash = (amount: Decimal): BonPayment[] =>
    amount.isZero() ? [] : [{ type: 'Bar', name: '', currency: op.currency, amount: cents(amount) }];
  const movement = (gvTyp: GvTyp, text: string, amount: Decimal) => ({
    bonTyp: 'Beleg' as const,
    bonName: null,
    lines: [cashLine(gvTyp, text, amount)],
    grossTotal: cents(amount),
    payments: op.status === 'voided' ? [] : cash(amount),
  });
  const session = op.session ?? {};

  switch (op.type) {
    case 'sale':
    case 'return':
    case 'refund': // a Style O refund is stored like a return: negative amounts, related to the sale
    case 'exchange': {
      const completed = op.status === 'completed';
      // Nothing is paid on an aborted Vorgang (AVBelegabbruch allows no payment).
      const paid = completed ? op.payments : [];
      const redeemed = paid.filter((payment) => isGiftCardPayment(payment.method));
      const payments = new Map<string, BonPayment>();
      for (const payment of paid) {
        const method = paymentMethodOf(payment.method);
        // A gift card redeemed is one of the lines (goodsLines), not a payment type.
        if (method.zahlart === null) continue;
        const type = method.zahlart;
        const name = type === 'Bar' ? '' : method.name;
        const mapKey = `${type}\u0000${name}\u0000${payment.currency}`;
        const amount = toAmount(payment.amount);
        const entry = payments.get(mapKey);
        if (entry) entry.amount = entry.amount.plus(amount);
        else payments.set(mapKey, { type, name, currency: payment.currency, amount });
      }
      return {
        bonTyp: 'Beleg',
        bonName: null,
        lines: goodsLines(op, redeemed),
        // Contract 2.5: the full amount is reduced by the vouchers redeemed, which are lines, not payments.
        grossTotal: cents(toAmount(op.totalAmount).minus(sumAmounts(redeemed.map((payment) => payment.amount)))),
        payments: [...payments.values()].map((payment) => ({ ...payment, amount: cents(payment.amount) })),
      };
    }
    case 'session_open':
      return movement('Anfangsbestand', 'Anfangsbestand', toAmount(session.openingAmount ?? ctx.openingAmount));
    case 'session_cash_adjustment':
      return movement('Geldtransit', 'Geldtransit', toAmount(session.amount ?? '0'));
    case 'session_cash_count':
      return movement('DifferenzSollIst', 'Kassendifferenz', toAmount(session.closingCashcountDiff ?? '0'));
    case 'session_close': {
      const adjustment = toAmount(session.closingAdjustmentAmount ?? '0');
      if (!adjustment.isZero()) return movement('Geldtransit', 'Geldtransit bei Kassenabschluss', adjustment);
      return { bonTyp: 'AVSonstige', bonName: 'Kassenabschluss', lines: [], grossTotal: ZERO, payments: [] };
    }
  }
}

/** The Vorgang of one operation, or null for an open one (not exported). */
export function mapOperation(op: DsfinvkOperation, ctx: ClosingContext): Vorgang | null {
  if (op.status === 'open') return null;
  const currencies = [op.currency, ...op.payments.map((payment) => payment.currency)];
  const foreign = currencies.find((currency) => currency !== ctx.baseCurrency);
  if (foreign) {
    // Nothing converts the amounts to the base currency (no rate is recorded).
    throw new DsfinvkDataError(`Operation ${op.id} is in ${foreign}, not the register's base currency ${ctx.baseCurrency}`, {
      operation_id: op.id,
      currency: foreign,
    });
  }
  const body = content(op, ctx);
  const voided = op.status === 'voided';
  return {
    bonId: op.id,
    bonNr: op.sequenceNumber,
    ...body,
    bonTyp: voided ? 'AVBelegabbruch' : body.bonTyp,
    start: op.createdAt,
    end: (voided ? op.voidedAt : op.completedAt) ?? op.createdAt,
    vat: sumShares(body.lines),
    references: references(op, ctx),
    tse: op.tse,
  };
}
