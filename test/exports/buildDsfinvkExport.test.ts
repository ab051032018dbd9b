import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { Writable } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { toAmount } from '../../src/domain/money.js';
import { buildDsfinvkExport, type DsfinvkExportResult } from '../../src/exports/dsfinvk/buildDsfinvkExport.js';
import { GDPDU_DTD } from '../../src/exports/dsfinvk/gdpduDtd.js';
import { DsfinvkDataError, type DsfinvkClosingSource, type DsfinvkOperation } from '../../src/exports/dsfinvk/model.js';
import { cash, closing, fromArray, giftCardLine, line, master, operation, tseData } from './fixtures.js';
import { BufferSink, parseCsv, readZip, records } from './zipContents.js';

const K3 = ['Z_KASSE_ID', 'Z_ERSTELLUNG', 'Z_NR'];

/** Column order per the reference (dsfinvk.md §4), written out independently of the builder's table definitions. */
const EXPECTED_HEADERS: Record<string, string[]> = {
  'cashpointclosing.csv': [...K3, 'Z_BUCHUNGSTAG', 'TAXONOMIE_VERSION', 'Z_START_ID', 'Z_ENDE_ID', 'NAME', 'STRASSE', 'PLZ', 'ORT', 'LAND', 'STNR', 'USTID', 'Z_SE_ZAHLUNGEN', 'Z_SE_BARZAHLUNGEN'],
  'location.csv': [...K3, 'LOC_NAME', 'LOC_STRASSE', 'LOC_PLZ', 'LOC_ORT', 'LOC_LAND', 'LOC_USTID'],
  'cashregister.csv': [...K3, 'KASSE_BRAND', 'KASSE_MODELL', 'KASSE_SERIENNR', 'KASSE_SW_BRAND', 'KASSE_SW_VERSION', 'KASSE_BASISWAEH_CODE', 'KEINE_UST_ZUORDNUNG'],
  'slaves.csv': [...K3, 'TERMINAL_ID', 'TERMINAL_BRAND', 'TERMINAL_MODELL', 'TERMINAL_SERIENNR', 'TERMINAL_SW_BRAND', 'TERMINAL_SW_VERSION'],
  'pa.csv': [...K3, 'AGENTUR_ID', 'AGENTUR_NAME', 'AGENTUR_STRASSE', 'AGENTUR_PLZ', 'AGENTUR_ORT', 'AGENTUR_LAND', 'AGENTUR_STNR', 'AGENTUR_USTID'],
  'tse.csv': [...K3, 'TSE_ID', 'TSE_SERIAL', 'TSE_SIG_ALGO', 'TSE_ZEITFORMAT', 'TSE_PD_ENCODING', 'TSE_PUBLIC_KEY', 'TSE_ZERTIFIKAT_I', 'TSE_ZERTIFIKAT_II'],
  'vat.csv': [...K3, 'UST_SCHLUESSEL', 'UST_SATZ', 'UST_BESCHR'],
  'businesscases.csv': [...K3, 'GV_TYP', 'GV_NAME', 'AGENTUR_ID', 'UST_SCHLUESSEL', 'Z_UMS_BRUTTO', 'Z_UMS_NETTO', 'Z_UST'],
  'payment.csv': [...K3, 'ZAHLART_TYP', 'ZAHLART_NAME', 'Z_ZAHLART_BETRAG'],
  'cash_per_currency.csv': [...K3, 'ZAHLART_WAEH', 'ZAHLART_BETRAG_WAEH'],
  'transactions.csv': [
    ...K3,
    'BON_ID',
    'BON_NR',
    'BON_TYP',
    'BON_NAME',
    'TERMINAL_ID',
    'BON_STORNO',
    'BON_START',
    'BON_ENDE',
    'BEDIENER_ID',
    'BEDIENER_NAME',
    'UMS_BRUTTO',
    'KUNDE_NAME',
    'KUNDE_ID',
    'KUNDE_TYP',
    'KUNDE_STRASSE',
    'KUNDE_PLZ',
    'KUNDE_ORT',
    'KUNDE_LAND',
    'KUNDE_USTID',
    'BON_NOTIZ',
  ],
  'datapayment.csv': [...K3, 'BON_ID', 'ZAHLART_TYP', 'ZAHLART_NAME', 'ZAHLWAEH_CODE', 'ZAHLWAEH_BETRAG', 'BASISWAEH_BETRAG'],
  'lines.csv': [
    ...K3,
    'BON_ID',
    'POS_ZEILE',
    'GUTSCHEIN_NR',
    'ARTIKELTEXT',
    'POS_TERMINAL_ID',
    'GV_TYP',
    'GV_NAME',
    'INHAUS',
    'P_STORNO',
    'AGENTUR_ID',
    'ART_NR',
    'GTIN',
    'WARENGR_ID',
    'WARENGR',
    'MENGE',
    'FAKTOR',
    'EINHEIT',
    'STK_BR',
  ],
  'itemamounts.csv': [...K3, 'BON_ID', 'POS_ZEILE', 'TYP', 'UST_SCHLUESSEL', 'PF_BRUTTO', 'PF_NETTO', 'PF_UST'],
  'subitems.csv': [
    ...K3,
    'BON_ID',
    'POS_ZEILE',
    'ZI_ART_NR',
    'ZI_GTIN',
    'ZI_NAME',
    'ZI_WARENGR_ID',
    'ZI_WARENGR',
    'ZI_MENGE',
    'ZI_FAKTOR',
    'ZI_EINHEIT',
    'ZI_UST_SCHLUESSEL',
    'ZI_BASISPREIS_BRUTTO',
    'ZI_BASISPREIS_NETTO',
    'ZI_BASISPREIS_UST',
  ],
  'transactions_tse.csv': [
    ...K3,
    'BON_ID',
    'TSE_ID',
    'TSE_TANR',
    'TSE_TA_START',
    'TSE_TA_ENDE',
    'TSE_TA_VORGANGSART',
    'TSE_TA_SIGZ',
    'TSE_TA_SIG',
    'TSE_TA_FEHLER',
    'TSE_VORGANGSDATEN',
  ],
  'transactions_vat.csv': [...K3, 'BON_ID', 'UST_SCHLUESSEL', 'BON_BRUTTO', 'BON_NETTO', 'BON_UST'],
  'lines_vat.csv': [...K3, 'BON_ID', 'POS_ZEILE', 'UST_SCHLUESSEL', 'POS_BRUTTO', 'POS_NETTO', 'POS_UST'],
  'allocation_groups.csv': [...K3, 'BON_ID', 'ABRECHNUNGSKREIS'],
  'references.csv': [...K3, 'BON_ID', 'POS_ZEILE', 'REF_TYP', 'REF_NAME', 'REF_DATUM', 'REF_Z_KASSE_ID', 'REF_Z_NR', 'REF_BON_ID'],
};

const LOGICAL_NAMES: Record<string, string> = {
  'cashpointclosing.csv': 'Stamm_Abschluss',
  'location.csv': 'Stamm_Orte',
  'cashregister.csv': 'Stamm_Kassen',
  'slaves.csv': 'Stamm_Terminals',
  'pa.csv': 'Stamm_Agenturen',
  'tse.csv': 'Stamm_TSE',
  'vat.csv': 'Stamm_USt',
  'businesscases.csv': 'Z_GV_Typ',
  'payment.csv': 'Z_Zahlart',
  'cash_per_currency.csv': 'Z_Waehrungen',
  'transactions.csv': 'Bonkopf',
  'transactions_vat.csv': 'Bonkopf_USt',
  'allocation_groups.csv': 'Bonkopf_AbrKreis',
  'datapayment.csv': 'Bonkopf_Zahlarten',
  'references.csv': 'Bon_Referenzen',
  'transactions_tse.csv': 'TSE_Transaktionen',
  'lines.csv': 'Bonpos',
  'lines_vat.csv': 'Bonpos_USt',
  'itemamounts.csv': 'Bonpos_Preisfindung',
  'subitems.csv': 'Bonpos_Zusatzinfo',
};

const EMPTY_TABLES = ['slaves.csv', 'pa.csv', 'itemamounts.csv', 'subitems.csv', 'allocation_groups.csv'];

const LONG_TITLE = `Festtagstorte "Schwarzwald"; ${'mit Kirschen und Sahne '.repeat(13)}`.slice(0, 300);
const num = (text: string) => toAmount(text.replace(',', '.'));
const sum = (values: string[]) => values.reduce((total, value) => total.plus(num(value)), toAmount('0'));

// Register A, closing 7: every kind of operation.
const open = operation({ type: 'session_open', session: { openingAmount: '100.00' } });
const twoRates = operation({
  lineItems: [
    line({ title: 'Kaffee', quantity: 2, unitPrice: '3.50', totalAmount: '7.00', rate: '0.19', tax: '1.11764706', skuIdentifier: 'KAF' }),
    line({ title: 'Brot', totalAmount: '4.28', rate: '0.07', tax: '0.28', skuIdentifier: 'BRO' }),
  ],
  tipAmount: '1.00',
  totalAmount: '12.28',
  payments: [cash('12.28')],
  tse: tseData(11, 'Kassenbeleg-V1', 'Beleg^7.00_4.28_0.00_0.00_1.00^12.28:Bar'),
});
const discounted = operation({
  lineItems: [
    line({ title: LONG_TITLE, totalAmount: '20.00', rate: '0.19', tax: '3.19327731', skuIdentifier: 'TORTE' }),
    line({ title: 'Brötchen', quantity: 10, unitPrice: '1.00', totalAmount: '10.00', rate: '0.07', tax: '0.65420561' }),
    giftCardLine('25.00', 'GC-NEW-1'),
  ],
  cartLevelDiscounts: [{ id: 'dis_1', amount: '2.00', description: 'Stammkundenrabatt' }],
  totalAmount: '53.00',
  payments: [
    { method: 'gift_card', amount: '15.00', currency: 'EUR', giftCardId: 'GC-OLD-9' },
    { method: 'credit_card', amount: '38.00', currency: 'EUR', giftCardId: null },
  ],
  tse: tseData(12),
});
const returned = operation({
  type: 'return',
  lineItems: [line({ title: 'Brot', totalAmount: '-4.28', unitPrice: '4.28', rate: '0.07', tax: '-0.28' })],
  totalAmount: '-4.28',
  payments: [cash('-4.28')],
  relatedOperation: { operationId: twoRates.id, sequenceNumber: twoRates.sequenceNumber, closingNumber: 7, registerId: 'reg_A', createdAt: twoRates.createdAt },
  tse: tseData(13),
});
const exchanged = operation({
  type: 'exchange',
  lineItems: [
    line({ title: 'Kaffee', totalAmount: '3.50', rate: '0.19', tax: '0.55882353' }),
    line({ title: 'Brot', totalAmount: '-4.28', unitPrice: '4.28', rate: '0.07', tax: '-0.28' }),
  ],
  totalAmount: '-0.78',
  payments: [cash('-0.78')],
  externalRelatedOperation: { description: 'Webshop-Bestellung 4711', externalOperationId: 'WS-4711' },
  tse: tseData(14),
});
const voided = operation({
  status: 'voided',
  completedAt: null,
  voidedAt: new Date('2026-03-15T11:00:00.000Z'),
  lineItems: [line({ title: 'Kuchen', totalAmount: '5.00', tax: '0.79831933' })],
  totalAmount: '5.00',
});
const stillOpen = operation({ status: 'open', completedAt: null, lineItems: [line()], totalAmount: '10.00' });
const adjustment = operation({ type: 'session_cash_adjustment', session: { amount: '-50.00' } });
const count = operation({
  type: 'session_cash_count',
  session: { countedClosingAmount: '57.72', expectedClosingAmount: '58.22', closingCashcountDiff: '-0.50' },
  tse: tseData(15, 'SonstigerVorgang', 'Kassenzaehlung^gezaehlt=57.72^erwartet=58.22^differenz=-0.50^EUR'),
});
const close = operation({
  type: 'session_close',
  session: { closingAdjustmentAmount: '-40.00' },
  tse: tseData(16, 'Kassenbeleg-V1', 'AVTransfer^0.00_0.00_0.00_0.00_-40.00^-40.00:Bar'),
});
const registerA = [open, twoRates, discounted, returned, exchanged, voided, stillOpen, adjustment, count, close];

// Register B, closing 3 (no TSE data on its operations): a return of register A's sale and a close without cash.
const closedB = new Date('2026-03-16T19:00:00.000Z');
const openB = operation({ type: 'session_open', session: { openingAmount: '0.00' } });
const returnB = operation({
  type: 'return',
  lineItems: [line({ title: 'Kaffee', quantity: 2, unitPrice: '3.50', totalAmount: '-7.00', rate: '0.19', tax: '-1.11764706' })],
  totalAmount: '-7.00',
  payments: [cash('-7.00')],
  relatedOperation: {
    operationId: twoRates.id,
    sequenceNumber: twoRates.sequenceNumber,
    closingNumber: 7,
    registerId: 'reg_A',
    createdAt: twoRates.createdAt,
    closedAt: new Date('2026-03-15T21:30:00.000Z'),
  },
});
const saleB = operation({ lineItems: [line({ totalAmount: '19.99', tax: '3.19168067' })], totalAmount: '19.99', payments: [cash('19.99')] });
const closeB = operation({ type: 'session_close', session: { closingAdjustmentAmount: null } });
const registerB = [openB, returnB, saleB, closeB];

const sources = (): DsfinvkClosingSource[] => [
  closing(master(), registerA),
  closing(master({ registerId: 'reg_B', closingNumber: 3, closedAt: closedB, businessDay: '2026-03-15', tse: null }), registerB),
];

const supplier = { name: 'Bäckerei Müller GmbH', location: 'Berlin, DEU', comment: 'DSFinV-K export exp_1 <test> & more' };

async function dsfinvkDirectories(): Promise<string[]> {
  return (await readdir(tmpdir())).filter((name) => name.startsWith('dsfinvk-'));
}

describe('buildDsfinvkExport', () => {
  let result: DsfinvkExportResult;
  let entries: Map<string, Buffer>;
  let text: (file: string) => string;
  let table: (file: string) => Record<string, string>[];
  let leftBefore: string[];

  beforeAll(async () => {
    leftBefore = await dsfinvkDirectories();
    const sink = new BufferSink();
    result = await buildDsfinvkExport(fromArray(sources()), sink, { supplier });
    entries = await readZip(sink.buffer);
    text = (file) => entries.get(file)!.toString('utf8');
    table = (file) => records(text(file));
  });

  it('holds index.xml, the DTD and all 20 CSV files', () => {
    expect([...entries.keys()]).toEqual(['index.xml', 'gdpdu-01-09-2004.dtd', ...Object.keys(LOGICAL_NAMES).sort(byIndexOrder)]);
    expect(entries.size).toBe(22);
    expect(text('gdpdu-01-09-2004.dtd')).toBe(GDPDU_DTD);
    expect(text('gdpdu-01-09-2004.dtd')).toContain('<!ELEMENT VariableLength (ColumnDelimiter?, RecordDelimiter?, TextEncapsulator?');
  });

  it('writes every header in the reference column order, UTF-8 without BOM, `;` and CRLF', () => {
    for (const [file, header] of Object.entries(EXPECTED_HEADERS)) {
      const content = text(file);
      expect(content.startsWith(`${header.join(';')}\r\n`), file).toBe(true);
      expect(content.charCodeAt(0)).not.toBe(0xfeff);
      expect(content.replaceAll('\r\n', '')).not.toMatch(/[\r\n]/);
    }
  });

  it('writes empty tables with the header only', () => {
    for (const file of EMPTY_TABLES) expect(text(file), file).toBe(`${EXPECTED_HEADERS[file].join(';')}\r\n`);
  });

  it('reports the data rows of every table and the totals', () => {
    expect(result.totals).toEqual({ closings: 2, operations: 13 });
    expect(result.files.map((f) => f.name)).toEqual(Object.keys(LOGICAL_NAMES).sort(byIndexOrder));
    for (const file of result.files) expect(parseCsv(text(file.name)).length - 1, file.name).toBe(file.rows);
    const rows = Object.fromEntries(result.files.map((f) => [f.name, f.rows]));
    expect(rows).toMatchObject({
      'cashpointclosing.csv': 2,
      'location.csv': 2,
      'cashregister.csv': 2,
      'tse.csv': 1,
      'transactions.csv': 13,
      'transactions_tse.csv': 6,
      'references.csv': 3,
      'datapayment.csv': 10,
    });
  });

  it('keys every row by register, closing time and closing number', () => {
    const transactions = table('transactions.csv');
    expect(new Set(transactions.map((r) => `${r.Z_KASSE_ID}|${r.Z_ERSTELLUNG}|${r.Z_NR}`))).toEqual(
      new Set(['reg_A|2026-03-15T22:30:00+01:00|7', 'reg_B|2026-03-16T20:00:00+01:00|3']),
    );
    expect(transactions.map((r) => r.BON_ID)).toEqual([...registerA, ...registerB].filter((op) => op !== stillOpen).map((op) => op.id));
    const closings = table('cashpointclosing.csv');
    expect(closings.map((r) => [r.Z_KASSE_ID, r.Z_NR, r.Z_START_ID, r.Z_ENDE_ID, r.Z_BUCHUNGSTAG, r.TAXONOMIE_VERSION])).toEqual([
      ['reg_A', '7', open.id, close.id, '', '2.4'],
      ['reg_B', '3', openB.id, closeB.id, '2026-03-15', '2.4'],
    ]);
  });

  it('writes amounts with a decimal comma in their accuracy', () => {
    const sale = table('transactions.csv').find((r) => r.BON_ID === twoRates.id)!;
    expect(sale).toMatchObject({ BON_NR: String(twoRates.sequenceNumber), BON_TYP: 'Beleg', BON_STORNO: '0', UMS_BRUTTO: '12,28' });
    expect(sale.BON_START).toBe('2026-03-15T11:00:00+01:00');
    expect(sale.BON_ENDE).toBe('2026-03-15T11:00:30+01:00');
    expect(table('transactions_vat.csv').filter((r) => r.BON_ID === twoRates.id)).toEqual([
      expect.objectContaining({ UST_SCHLUESSEL: '1', BON_BRUTTO: '7,00000', BON_NETTO: '5,88235', BON_UST: '1,11765' }),
      expect.objectContaining({ UST_SCHLUESSEL: '2', BON_BRUTTO: '4,28000', BON_NETTO: '4,00000', BON_UST: '0,28000' }),
      expect.objectContaining({ UST_SCHLUESSEL: '5', BON_BRUTTO: '1,00000', BON_NETTO: '1,00000', BON_UST: '0,00000' }),
    ]);
    const coffee = table('lines.csv').find((r) => r.BON_ID === twoRates.id && r.POS_ZEILE === '1')!;
    expect(coffee).toMatchObject({ ARTIKELTEXT: 'Kaffee', GV_TYP: 'Umsatz', ART_NR: 'KAF', MENGE: '2,000', STK_BR: '3,50000', P_STORNO: '0', AGENTUR_ID: '0' });
    for (const file of Object.keys(EXPECTED_HEADERS)) expect(text(file), file).not.toMatch(/\d\.\d{2}(;|\r)/);
  });

  it('places each Rabatt line between the sales lines and the gift card redemption', () => {
    const lines = table('lines.csv').filter((r) => r.BON_ID === discounted.id);
    expect(lines.map((r) => [r.POS_ZEILE, r.GV_TYP, r.GUTSCHEIN_NR])).toEqual([
      ['1', 'Umsatz', ''],
      ['2', 'Umsatz', ''],
      ['3', 'MehrzweckgutscheinKauf', 'GC-NEW-1'],
      ['4', 'Rabatt', ''],
      ['5', 'MehrzweckgutscheinEinloesung', 'GC-OLD-9'],
    ]);
    expect(lines[3].ARTIKELTEXT).toBe('Stammkundenrabatt');
    const vat = table('lines_vat.csv').filter((r) => r.BON_ID === discounted.id);
    expect(vat.filter((r) => r.POS_ZEILE === '4').map((r) => [r.UST_SCHLUESSEL, r.POS_BRUTTO, r.POS_UST])).toEqual([
      ['1', '-0,73000', '-0,11655'],
      ['2', '-0,36000', '-0,02355'],
      ['5', '-0,91000', '0,00000'],
    ]);
    expect(vat.filter((r) => r.POS_ZEILE === '3').map((r) => [r.UST_SCHLUESSEL, r.POS_BRUTTO, r.POS_UST])).toEqual([['5', '25,00000', '0,00000']]);
    expect(vat.filter((r) => r.POS_ZEILE === '5').map((r) => [r.UST_SCHLUESSEL, r.POS_BRUTTO])).toEqual([['5', '-15,00000']]);
  });

  it('reports a redeemed gift card as a line, reduces the Vorgang total by it and leaves it out of the payments', () => {
    const header = table('transactions.csv').find((r) => r.BON_ID === discounted.id)!;
    expect(header.UMS_BRUTTO).toBe('38,00');
    expect(table('datapayment.csv').filter((r) => r.BON_ID === discounted.id)).toEqual([
      expect.objectContaining({ ZAHLART_TYP: 'Kreditkarte', ZAHLART_NAME: 'credit_card', ZAHLWAEH_CODE: 'EUR', ZAHLWAEH_BETRAG: '', BASISWAEH_BETRAG: '38,00' }),
    ]);
    for (const file of ['datapayment.csv', 'payment.csv']) expect(text(file)).not.toMatch(/gift_card|Guthabenkarte/);
    const vatTotal = sum(table('transactions_vat.csv').filter((r) => r.BON_ID === discounted.id).map((r) => r.BON_BRUTTO));
    expect(vatTotal.toFixed(2)).toBe('38.00');
  });

  it('trims a 300-character title to 255 characters in the export only', () => {
    const torte = table('lines.csv').find((r) => r.BON_ID === discounted.id && r.POS_ZEILE === '1')!;
    expect(LONG_TITLE).toHaveLength(300);
    expect(torte.ARTIKELTEXT).toBe(LONG_TITLE.slice(0, 255));
    expect(text('lines.csv')).toContain('"Festtagstorte ""Schwarzwald""; mit');
  });

  it('writes returns negative with a reference to the original, exchanges with both signs', () => {
    const references = table('references.csv');
    expect(references.map((r) => [r.Z_KASSE_ID, r.BON_ID, r.POS_ZEILE, r.REF_TYP, r.REF_NAME, r.REF_DATUM, r.REF_Z_KASSE_ID, r.REF_Z_NR, r.REF_BON_ID])).toEqual([
      ['reg_A', returned.id, '', 'Transaktion', '', '2026-03-15T22:30:00+01:00', 'reg_A', '7', twoRates.id],
      ['reg_A', exchanged.id, '', 'ExterneSonstige', 'Webshop-Bestellung 4711', '', '', '', 'WS-4711'],
      ['reg_B', returnB.id, '', 'Transaktion', '', '2026-03-15T22:30:00+01:00', 'reg_A', '7', twoRates.id],
    ]);
    const lines = table('lines.csv');
    expect(lines.filter((r) => r.BON_ID === returned.id).map((r) => [r.GV_TYP, r.MENGE, r.STK_BR])).toEqual([['Umsatz', '-1,000', '4,28000']]);
    expect(table('transactions.csv').find((r) => r.BON_ID === returned.id)).toMatchObject({ BON_TYP: 'Beleg', UMS_BRUTTO: '-4,28' });
    expect(table('datapayment.csv').find((r) => r.BON_ID === returned.id)).toMatchObject({ ZAHLART_TYP: 'Bar', BASISWAEH_BETRAG: '-4,28' });
    expect(table('lines_vat.csv').filter((r) => r.BON_ID === exchanged.id).map((r) => r.POS_BRUTTO)).toEqual(['3,50000', '-4,28000']);
  });

  it('writes a voided operation as AVBelegabbruch that no closing sum counts', () => {
    const header = table('transactions.csv').find((r) => r.BON_ID === voided.id)!;
    expect(header).toMatchObject({ BON_TYP: 'AVBelegabbruch', BON_STORNO: '0', BON_ENDE: '2026-03-15T12:00:00+01:00' });
    expect(table('datapayment.csv').some((r) => r.BON_ID === voided.id)).toBe(false);
    expect(table('lines.csv').filter((r) => r.BON_ID === voided.id)).toHaveLength(1);
    expect(table('transactions.csv').some((r) => r.BON_ID === stillOpen.id)).toBe(false);
  });

  it('writes session events as cash-only business cases', () => {
    const gv = (op: DsfinvkOperation) => table('lines.csv').filter((r) => r.BON_ID === op.id).map((r) => r.GV_TYP);
    expect([open, adjustment, count, close].map(gv)).toEqual([['Anfangsbestand'], ['Geldtransit'], ['DifferenzSollIst'], ['Geldtransit']]);
    expect(table('transactions.csv').find((r) => r.BON_ID === closeB.id)).toMatchObject({ BON_TYP: 'AVSonstige', BON_NAME: 'Kassenabschluss', UMS_BRUTTO: '0,00' });
    const payments = table('datapayment.csv');
    expect([open, adjustment, count, close].map((op) => payments.find((r) => r.BON_ID === op.id)?.BASISWAEH_BETRAG)).toEqual([
      '100,00',
      '-50,00',
      '-0,50',
      '-40,00',
    ]);
    expect(payments.some((r) => r.BON_ID === openB.id)).toBe(false);
  });

  it('sums the closings from the Belege only, reconciling with lines_vat, datapayment and the header totals', () => {
    const booked = new Set(table('transactions.csv').filter((r) => r.BON_TYP === 'Beleg').map((r) => `${r.Z_KASSE_ID}|${r.BON_ID}`));
    const bonOf = new Map(table('lines.csv').map((r) => [`${r.Z_KASSE_ID}|${r.BON_ID}|${r.POS_ZEILE}`, r.GV_TYP]));
    for (const closingRow of table('cashpointclosing.csv')) {
      const register = closingRow.Z_KASSE_ID;
      const cases = table('businesscases.csv').filter((r) => r.Z_KASSE_ID === register);
      const linesVat = table('lines_vat.csv').filter((r) => r.Z_KASSE_ID === register && booked.has(`${register}|${r.BON_ID}`));
      for (const businessCase of cases) {
        const matching = linesVat.filter(
          (r) => r.UST_SCHLUESSEL === businessCase.UST_SCHLUESSEL && bonOf.get(`${register}|${r.BON_ID}|${r.POS_ZEILE}`) === businessCase.GV_TYP,
        );
        expect(num(businessCase.Z_UMS_BRUTTO).eq(sum(matching.map((r) => r.POS_BRUTTO))), `${register} ${businessCase.GV_TYP}`).toBe(true);
        expect(num(businessCase.Z_UMS_NETTO).eq(sum(matching.map((r) => r.POS_NETTO)))).toBe(true);
        expect(num(businessCase.Z_UST).eq(sum(matching.map((r) => r.POS_UST)))).toBe(true);
      }
      expect(sum(cases.map((r) => r.Z_UMS_BRUTTO)).eq(sum(linesVat.map((r) => r.POS_BRUTTO)))).toBe(true);

      const datapayment = table('datapayment.csv').filter((r) => r.Z_KASSE_ID === register && booked.has(`${register}|${r.BON_ID}`));
      const payments = table('payment.csv').filter((r) => r.Z_KASSE_ID === register);
      for (const payment of payments) {
        const matching = datapayment.filter((r) => r.ZAHLART_TYP === payment.ZAHLART_TYP && r.ZAHLART_NAME === payment.ZAHLART_NAME);
        expect(num(payment.Z_ZAHLART_BETRAG).eq(sum(matching.map((r) => r.BASISWAEH_BETRAG)))).toBe(true);
      }
      const headers = table('transactions.csv').filter((r) => r.Z_KASSE_ID === register && r.BON_TYP === 'Beleg');
      expect(num(closingRow.Z_SE_ZAHLUNGEN).eq(sum(payments.map((r) => r.Z_ZAHLART_BETRAG)))).toBe(true);
      expect(num(closingRow.Z_SE_ZAHLUNGEN).eq(sum(headers.map((r) => r.UMS_BRUTTO)))).toBe(true);
      const cashRows = payments.filter((r) => r.ZAHLART_TYP === 'Bar');
      expect(num(closingRow.Z_SE_BARZAHLUNGEN).eq(sum(cashRows.map((r) => r.Z_ZAHLART_BETRAG)))).toBe(true);
      expect(table('cash_per_currency.csv').filter((r) => r.Z_KASSE_ID === register).map((r) => [r.ZAHLART_WAEH, r.ZAHLART_BETRAG_WAEH])).toEqual([
        ['EUR', closingRow.Z_SE_BARZAHLUNGEN],
      ]);
    }
  });

  it('writes the expected closing figures', () => {
    // Register A cash: 100 + 12.28 - 4.28 - 0.78 - 50 - 0.50 - 40 = 16.72; plus 38.00 by credit card.
    expect(table('cashpointclosing.csv').map((r) => [r.Z_KASSE_ID, r.Z_SE_ZAHLUNGEN, r.Z_SE_BARZAHLUNGEN])).toEqual([
      ['reg_A', '54,72', '16,72'],
      ['reg_B', '12,99', '12,99'],
    ]);
    expect(table('payment.csv').map((r) => [r.Z_KASSE_ID, r.ZAHLART_TYP, r.ZAHLART_NAME, r.Z_ZAHLART_BETRAG])).toEqual([
      ['reg_A', 'Bar', '', '16,72'],
      ['reg_A', 'Kreditkarte', 'credit_card', '38,00'],
      ['reg_B', 'Bar', '', '12,99'],
    ]);
    const cases = table('businesscases.csv').filter((r) => r.Z_KASSE_ID === 'reg_A');
    expect(cases.map((r) => [r.GV_TYP, r.UST_SCHLUESSEL, r.Z_UMS_BRUTTO])).toEqual([
      ['Anfangsbestand', '5', '100,00000'],
      ['Umsatz', '1', '30,50000'],
      ['Umsatz', '2', '5,72000'],
      ['TrinkgeldAN', '5', '1,00000'],
      ['MehrzweckgutscheinKauf', '5', '25,00000'],
      ['Rabatt', '1', '-0,73000'],
      ['Rabatt', '2', '-0,36000'],
      ['Rabatt', '5', '-0,91000'],
      ['MehrzweckgutscheinEinloesung', '5', '-15,00000'],
      ['Geldtransit', '5', '-90,00000'],
      ['DifferenzSollIst', '5', '-0,50000'],
    ]);
    expect(table('vat.csv').map((r) => [r.Z_KASSE_ID, r.UST_SCHLUESSEL, r.UST_SATZ])).toEqual([
      ['reg_A', '1', '19,00'],
      ['reg_A', '2', '7,00'],
      ['reg_A', '5', '0,00'],
      ['reg_B', '1', '19,00'],
      ['reg_B', '5', '0,00'],
    ]);
  });

  it('writes the TSE master data and one TSE transaction per signed operation', () => {
    expect(table('tse.csv')).toEqual([
      expect.objectContaining({
        Z_KASSE_ID: 'reg_A',
        TSE_ID: '1',
        TSE_SERIAL: 'aadfb3152cbde762aa5027e350ba9aeacb69b6236b4f25fc3ea78b69e610952a',
        TSE_SIG_ALGO: 'ecdsa-plain-SHA256',
        TSE_ZEITFORMAT: 'unixTime',
        TSE_PD_ENCODING: 'UTF-8',
        TSE_ZERTIFIKAT_I: '',
      }),
    ]);
    const tse = table('transactions_tse.csv');
    expect(tse.map((r) => r.BON_ID)).toEqual([twoRates, discounted, returned, exchanged, count, close].map((op) => op.id));
    expect(tse[0]).toEqual({
      Z_KASSE_ID: 'reg_A',
      Z_ERSTELLUNG: '2026-03-15T22:30:00+01:00',
      Z_NR: '7',
      BON_ID: twoRates.id,
      TSE_ID: '1',
      TSE_TANR: '11',
      TSE_TA_START: '2026-03-15T10:00:00.000Z',
      TSE_TA_ENDE: '2026-03-15T10:00:30.000Z',
      TSE_TA_VORGANGSART: 'Kassenbeleg-V1',
      TSE_TA_SIGZ: '23',
      TSE_TA_SIG: twoRates.tse!.signature,
      TSE_TA_FEHLER: '',
      TSE_VORGANGSDATEN: 'Beleg^7.00_4.28_0.00_0.00_1.00^12.28:Bar',
    });
    expect(tse[4].TSE_TA_VORGANGSART).toBe('SonstigerVorgang');
  });

  it('describes all 20 tables with their columns in index.xml', () => {
    const xml = text('index.xml');
    expect(xml.startsWith('\uFEFF<?xml version="1.0" encoding="utf-8"?>\r\n<!DOCTYPE DataSet SYSTEM "gdpdu-01-09-2004.dtd">')).toBe(true);
    expect(xml).toContain('<Comment>DSFinV-K export exp_1 &lt;test&gt; &amp; more</Comment>');
    const tables = [...xml.matchAll(/<Table>([\s\S]*?)<\/Table>/g)].map((match) => match[1]);
    expect(tables).toHaveLength(20);
    for (const body of tables) {
      const url = /<URL>(.*?)<\/URL>/.exec(body)![1];
      expect(/<Name>(.*?)<\/Name>/.exec(body)![1], url).toBe(LOGICAL_NAMES[url]);
      expect(body).toContain('<UTF8 />');
      expect(body).toContain('<DecimalSymbol>,</DecimalSymbol>');
      expect(body).toContain('<RecordDelimiter>&#xD;&#xA;</RecordDelimiter>');
      const columns = [...body.matchAll(/<VariableColumn>\s*<Name>(.*?)<\/Name>/g)].map((match) => match[1]);
      expect(columns, url).toEqual(EXPECTED_HEADERS[url]);
    }
    expect(xml).toMatch(/<Name>UMS_BRUTTO<\/Name>\s*<Description>[^<]+<\/Description>\s*<Numeric>\s*<Accuracy>2<\/Accuracy>\s*<\/Numeric>/);
    expect(xml).toMatch(/<Name>BON_ID<\/Name>\s*<Description>[^<]+<\/Description>\s*<AlphaNumeric \/>\s*<MaxLength>40<\/MaxLength>/);
    expect(xml).toMatch(/<Name>Z_NR<\/Name>\s*<Description>[^<]+<\/Description>\s*<Numeric \/>/);
  });

  it('removes its temporary files', async () => {
    expect(await dsfinvkDirectories()).toEqual(leftBefore);
  });
});

describe('buildDsfinvkExport failures', () => {
  it('rejects data the format cannot carry and removes its temporary files', async () => {
    const before = await dsfinvkDirectories();
    const bad = closing(master(), [operation({ lineItems: [line({ rate: '0.2' })], totalAmount: '10.00' })]);
    await expect(buildDsfinvkExport(fromArray([bad]), new BufferSink(), { supplier })).rejects.toThrow(DsfinvkDataError);
    const unsigned = closing(master({ tse: null }), [twoRates]);
    await expect(buildDsfinvkExport(fromArray([unsigned]), new BufferSink(), { supplier })).rejects.toThrow(/has no TSE/);
    expect(await dsfinvkDirectories()).toEqual(before);
  });

  it('fails when the output fails', async () => {
    const broken = new Writable({ write: (_chunk, _encoding, callback) => callback(new Error('disk full')) });
    await expect(buildDsfinvkExport(fromArray(sources()), broken, { supplier })).rejects.toThrow('disk full');
  });
});

describe('buildDsfinvkExport at volume', () => {
  it('streams a 20,000-operation closing generated lazily', async () => {
    const total = 20_000;
    async function* operations(): AsyncIterable<DsfinvkOperation> {
      for (let i = 1; i <= total; i++) {
        yield operation({
          id: `op_bulk_${i}`,
          sequenceNumber: i,
          lineItems: [
            line({ title: `Artikel ${i}`, totalAmount: '11.90', tax: '1.9', skuIdentifier: `SKU-${i % 50}` }),
            line({ title: 'Brot', totalAmount: '2.14', rate: '0.07', tax: '0.14' }),
          ],
          cartLevelDiscounts: i % 10 === 0 ? [{ id: `dis_${i}`, amount: '1.00', description: null }] : [],
          totalAmount: i % 10 === 0 ? '13.04' : '14.04',
          payments: [cash(i % 10 === 0 ? '13.04' : '14.04')],
          tse: tseData(i),
        });
      }
    }
    const source: DsfinvkClosingSource = { master: master({ registerId: 'reg_bulk' }), operations };
    let bytes = 0;
    const counter = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        bytes += chunk.length;
        callback();
      },
    });
    // Its speed and memory are measured by `npm run bench:export`, not asserted here.
    const result = await buildDsfinvkExport(fromArray([source]), counter, { supplier });
    expect(result.totals).toEqual({ closings: 1, operations: total });
    const rows = Object.fromEntries(result.files.map((f) => [f.name, f.rows]));
    expect(rows['transactions.csv']).toBe(total);
    expect(rows['lines.csv']).toBe(total * 2 + total / 10);
    expect(rows['transactions_tse.csv']).toBe(total);
    expect(bytes).toBeGreaterThan(100_000);
  });
});

function byIndexOrder(a: string, b: string): number {
  const order = Object.keys(EXPECTED_HEADERS);
  return order.indexOf(a) - order.indexOf(b);
}
