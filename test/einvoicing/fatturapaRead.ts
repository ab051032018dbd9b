// Reads a built FatturaPA back, every value a string, for assertions on its content and sums.
import { Decimal } from 'decimal.js';
import { XMLParser } from 'fast-xml-parser';

const REPEATED = new Set(['DettaglioLinee', 'DatiRiepilogo', 'DatiPagamento', 'DettaglioPagamento', 'Causale', 'ScontoMaggiorazione']);

const parser = new XMLParser({
  ignoreAttributes: false,
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  isArray: (name) => REPEATED.has(name),
});

export function readFattura(xml: string): any {
  return parser.parse(xml).FatturaElettronica;
}

export const body = (xml: string) => readFattura(xml).FatturaElettronicaBody;
export const header = (xml: string) => readFattura(xml).FatturaElettronicaHeader;

const d = (value: string | undefined) => new Decimal(value ?? '0');

/**
 * The document's arithmetic as the SdI reads it, each a list of broken equalities (empty when
 * all hold): PrezzoTotale = (PrezzoUnitario -/+ sconto/maggiorazione per unit) x Quantita;
 * ImponibileImporto = sum of the group's PrezzoTotale + Arrotondamento; ImportoTotaleDocumento =
 * sum of ImponibileImporto + Imposta; the payment details add up to ImportoTotaleDocumento.
 */
export function brokenSums(xml: string): string[] {
  const b = body(xml);
  const broken: string[] = [];
  const lines: any[] = b.DatiBeniServizi.DettaglioLinee;
  for (const l of lines) {
    let unit = d(l.PrezzoUnitario);
    for (const s of l.ScontoMaggiorazione ?? []) unit = s.Tipo === 'SC' ? unit.minus(d(s.Importo)) : unit.plus(d(s.Importo));
    const expected = unit.times(d(l.Quantita ?? '1'));
    if (!expected.eq(d(l.PrezzoTotale))) broken.push(`line ${l.NumeroLinea}: PrezzoTotale ${l.PrezzoTotale} != ${expected.toFixed()}`);
  }
  let documentTotal = new Decimal(0);
  for (const r of b.DatiBeniServizi.DatiRiepilogo as any[]) {
    const group = lines.filter((l) => l.AliquotaIVA === r.AliquotaIVA && (l.Natura ?? null) === (r.Natura ?? null));
    const sum = group.reduce((acc, l) => acc.plus(d(l.PrezzoTotale)), new Decimal(0)).plus(d(r.Arrotondamento));
    if (!sum.eq(d(r.ImponibileImporto))) broken.push(`riepilogo ${r.AliquotaIVA}/${r.Natura ?? '-'}: ImponibileImporto ${r.ImponibileImporto} != ${sum.toFixed()}`);
    documentTotal = documentTotal.plus(d(r.ImponibileImporto)).plus(d(r.Imposta));
  }
  const total = b.DatiGenerali.DatiGeneraliDocumento.ImportoTotaleDocumento;
  if (!documentTotal.eq(d(total))) broken.push(`ImportoTotaleDocumento ${total} != ${documentTotal.toFixed(2)}`);
  for (const p of (b.DatiPagamento ?? []) as any[]) {
    const paid = (p.DettaglioPagamento as any[]).reduce((acc, x) => acc.plus(d(x.ImportoPagamento)), new Decimal(0));
    if (!paid.eq(d(total))) broken.push(`DatiPagamento ${p.CondizioniPagamento}: ${paid.toFixed(2)} != ${total}`);
  }
  return broken;
}
