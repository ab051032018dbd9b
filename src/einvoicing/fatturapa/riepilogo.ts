import type { Decimal } from 'decimal.js';
import { fromMinorUnits, sumAmounts } from '../../domain/money.js';
import type { InvoiceVatBreakdownRow } from '../invoiceDocument.js';
import { amount2, fatturaPaDecimal, percentage } from './amounts.js';
import { riferimentoNormativoOf } from './natura.js';

export interface DatiRiepilogo {
  AliquotaIVA: string;
  Natura?: string;
  Arrotondamento?: string;
  ImponibileImporto: string;
  Imposta: string;
  EsigibilitaIVA: 'I';
  RiferimentoNormativo?: string;
}

/** A DettaglioLinee as the summary groups it: AliquotaIVA, Natura and PrezzoTotale. */
export interface SummarizedLine {
  aliquotaIva: string;
  natura: string | null;
  prezzoTotale: Decimal;
}

const keyOf = (aliquotaIva: string, natura: string | null) => `${aliquotaIva}|${natura ?? ''}`;

/**
 * One DatiRiepilogo per (AliquotaIVA, Natura): the breakdown's rows, merged where only the
 * VAT category told them apart. ImponibileImporto and Imposta are the invoice's own rounded
 * amounts; Arrotondamento, when not zero, is ImponibileImporto minus the sum of the lines'
 * PrezzoTotale, so that ImponibileImporto = sum of PrezzoTotale + Arrotondamento holds exactly
 * (the SdI's check 00422). VAT is due immediately (EsigibilitaIVA I): the input has no
 * deferred or split-payment flag.
 */
export function datiRiepilogoOf(breakdown: InvoiceVatBreakdownRow[], lines: SummarizedLine[], currency: string): DatiRiepilogo[] {
  const groups = new Map<string, { aliquotaIva: string; natura: string | null; taxable: number; tax: number }>();
  for (const row of breakdown) {
    const aliquotaIva = percentage(row.vatRate);
    const key = keyOf(aliquotaIva, row.natureCode);
    const group = groups.get(key) ?? { aliquotaIva, natura: row.natureCode, taxable: 0, tax: 0 };
    group.taxable += row.taxableAmount;
    group.tax += row.taxAmount;
    groups.set(key, group);
  }
  for (const line of lines) {
    if (!groups.has(keyOf(line.aliquotaIva, line.natura))) {
      throw new RangeError(`no VAT breakdown row for rate ${line.aliquotaIva} and natura ${line.natura ?? 'none'}`);
    }
  }
  return [...groups.entries()].map(([key, group]) => {
    const linesTotal = sumAmounts(lines.filter((line) => keyOf(line.aliquotaIva, line.natura) === key).map((line) => line.prezzoTotale));
    const rounding = fromMinorUnits(group.taxable, currency).minus(linesTotal);
    return {
      AliquotaIVA: group.aliquotaIva,
      ...(group.natura ? { Natura: group.natura } : {}),
      ...(rounding.isZero() ? {} : { Arrotondamento: fatturaPaDecimal(rounding) }),
      ImponibileImporto: amount2(group.taxable, currency),
      Imposta: amount2(group.tax, currency),
      EsigibilitaIVA: 'I',
      ...(group.natura ? { RiferimentoNormativo: riferimentoNormativoOf(group.natura) } : {}),
    };
  });
}
