import type { Decimal } from 'decimal.js';
import { toAmount } from '../../domain/money.js';
import type { ZahlartTyp } from '../../domain/paymentMethods.js';
import type { GvTyp, Vorgang } from './businessCases.js';

export interface BusinessCaseSum {
  gvTyp: GvTyp;
  key: number;
  gross: Decimal;
  net: Decimal;
  vat: Decimal;
}

export interface PaymentSum {
  type: ZahlartTyp;
  name: string;
  amount: Decimal;
}

/**
 * The Kassenabschluss module of one closing (reference §4.3, §10): only `Beleg`
 * Vorgänge are summed. Holds a handful of sums per closing, never rows.
 */
export class ClosingSums {
  /** businesscases.csv: lines_vat summed per (GV_TYP, GV_NAME, AGENTUR_ID, UST_SCHLUESSEL); GV_NAME and AGENTUR_ID are constant here. */
  readonly businessCases = new Map<string, BusinessCaseSum>();
  /** payment.csv: datapayment BASISWAEH_BETRAG per (type, name). */
  readonly payments = new Map<string, PaymentSum>();
  /** cash_per_currency.csv: Bar per currency, in that currency. */
  readonly cashPerCurrency = new Map<string, Decimal>();
  /** vat.csv: every key a row of the closing uses, booked or not. */
  readonly vatKeys = new Set<number>();
  /** Z_SE_ZAHLUNGEN, Z_SE_BARZAHLUNGEN */
  allPayments = toAmount('0');
  cashPayments = toAmount('0');
  /** Z_START_ID, Z_ENDE_ID */
  firstBonId: string | null = null;
  lastBonId: string | null = null;

  add(vorgang: Vorgang): void {
    this.firstBonId ??= vorgang.bonId;
    this.lastBonId = vorgang.bonId;
    for (const line of vorgang.lines) for (const share of line.vat) this.vatKeys.add(share.key);
    if (vorgang.bonTyp !== 'Beleg') return;

    for (const line of vorgang.lines) {
      for (const share of line.vat) {
        const mapKey = `${line.gvTyp}\u0000${share.key}`;
        const sum = this.businessCases.get(mapKey);
        if (sum) {
          sum.gross = sum.gross.plus(share.gross);
          sum.net = sum.net.plus(share.net);
          sum.vat = sum.vat.plus(share.vat);
        } else {
          this.businessCases.set(mapKey, { gvTyp: line.gvTyp, key: share.key, gross: share.gross, net: share.net, vat: share.vat });
        }
      }
    }
    for (const payment of vorgang.payments) {
      const mapKey = `${payment.type}\u0000${payment.name}`;
      const sum = this.payments.get(mapKey);
      if (sum) sum.amount = sum.amount.plus(payment.amount);
      else this.payments.set(mapKey, { type: payment.type, name: payment.name, amount: payment.amount });
      this.allPayments = this.allPayments.plus(payment.amount);
      if (payment.type === 'Bar') {
        this.cashPayments = this.cashPayments.plus(payment.amount);
        this.cashPerCurrency.set(payment.currency, (this.cashPerCurrency.get(payment.currency) ?? toAmount('0')).plus(payment.amount));
      }
    }
  }
}
