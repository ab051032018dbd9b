// The DSFinV-K export as the strictest reader of its index.xml sees it: a
// realistic closing is built over HTTP (several VAT rates, awkward cents,
// 8-place tax amounts, sub-cent amounts, fractional quantities, a discount, a
// tip, a voucher sold and redeemed, a return, a Style O refund, a voided sale,
// cash and card payments, a session with adjustment, count and close), then
// index.xml is parsed and every value of every CSV is checked against the
// column index.xml declares for it: exactly Accuracy places after the decimal
// comma, integers without separator, text within MaxLength, and as many fields
// per row as declared columns.
import { Decimal } from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatAmount, sumAmounts, toAmount } from '../../src/domain/money.js';
import { computeLineTaxAmounts } from '../../src/domain/operations/taxAmount.js';
import { parseCsv, readZip } from '../exports/zipContents.js';
import { createAndCompleteSale, fiscalizedRegisterWithSession, mustComplete, mustCreate, saleBody, sessionEvent, voidOp, type OperationsFixture } from '../support/operations.js';
import { mustCompleteRefund, mustRefund, orgAuth } from '../support/styleO.js';
import { createTenantWithKey, createTestApp, json, type TestApp } from '../support/testApp.js';

interface XmlElement {
  name: string;
  children: XmlElement[];
  text: string;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#\d+|\w+);/g, (whole, entity: string) => {
    if (entity.startsWith('#x')) return String.fromCodePoint(parseInt(entity.slice(2), 16));
    if (entity.startsWith('#')) return String.fromCodePoint(parseInt(entity.slice(1), 10));
    if (!(entity in ENTITIES)) throw new Error(`unknown entity ${whole}`);
    return ENTITIES[entity];
  });
}

/**
 * A strict parser for the XML subset of a GDPdU index.xml (no XML parser is a
 * dependency): prolog, DOCTYPE and comments are skipped, elements nest with
 * matching end tags, attributes are read past, text is entity-decoded.
 */
function parseXml(source: string): XmlElement {
  const text = source.replace(/^\uFEFF/, '');
  let at = 0;
  const fail = (message: string): never => {
    throw new Error(`index.xml at ${at}: ${message}`);
  };
  /** Whitespace, the XML declaration, the DOCTYPE and comments outside the root element. */
  const skipMisc = () => {
    for (;;) {
      while (/\s/.test(text[at] ?? '')) at++;
      const [opener, closer] = [['<?', '?>'], ['<!--', '-->'], ['<!DOCTYPE', '>']].find(([start]) => text.startsWith(start, at)) ?? [];
      if (!opener || !closer) return;
      const end = text.indexOf(closer, at);
      if (end === -1) fail(`unterminated ${opener}`);
      at = end + closer.length;
    }
  };
  const element = (): XmlElement => {
    const open = /^<([A-Za-z_][\w.-]*)((?:\s+[\w:.-]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>/.exec(text.slice(at));
    if (!open) return fail('expected a start tag');
    at += open[0].length;
    const node: XmlElement = { name: open[1], children: [], text: '' };
    if (open[3] === '/') return node;
    for (;;) {
      const next = text.indexOf('<', at);
      if (next === -1) fail(`<${node.name}> is not closed`);
      node.text += decodeEntities(text.slice(at, next));
      at = next;
      if (text.startsWith('<!--', at)) {
        const end = text.indexOf('-->', at);
        if (end === -1) fail('unterminated comment');
        at = end + 3;
      } else if (text.startsWith('</', at)) {
        const close = /^<\/([A-Za-z_][\w.-]*)\s*>/.exec(text.slice(at));
        if (!close || close[1] !== node.name) fail(`</${close?.[1]}> closes <${node.name}>`);
        at += close![0].length;
        return node;
      } else {
        node.children.push(element());
      }
    }
  };
  skipMisc();
  const root = element();
  skipMisc();
  if (at !== text.length) fail('content after the root element');
  return root;
}

const child = (node: XmlElement, name: string) => node.children.find((c) => c.name === name);
const children = (node: XmlElement, name: string) => node.children.filter((c) => c.name === name);

interface DeclaredColumn {
  name: string;
  type: 'AlphaNumeric' | 'Numeric' | 'Date';
  /** Numeric: places after the decimal symbol; undefined when index.xml gives none (an integer). */
  accuracy?: number;
  maxLength?: number;
}

interface DeclaredTable {
  file: string;
  decimalSymbol: string;
  columns: DeclaredColumn[];
}

function declaredTables(indexXml: string): DeclaredTable[] {
  const dataSet = parseXml(indexXml);
  expect(dataSet.name).toBe('DataSet');
  return children(dataSet, 'Media').flatMap((media) =>
    children(media, 'Table').map((table): DeclaredTable => {
      const layout = child(table, 'VariableLength');
      if (!layout) throw new Error(`table ${child(table, 'URL')?.text} is not VariableLength`);
      const columns = layout.children
        .filter((c) => c.name === 'VariableColumn' || c.name === 'VariablePrimaryKey')
        .map((column): DeclaredColumn => {
          const name = child(column, 'Name')!.text;
          const numeric = child(column, 'Numeric');
          if (numeric) {
            const accuracy = child(numeric, 'Accuracy') ?? child(numeric, 'ImpliedAccuracy');
            return { name, type: 'Numeric', accuracy: accuracy ? Number(accuracy.text) : undefined };
          }
          if (child(column, 'AlphaNumeric')) {
            const maxLength = child(column, 'MaxLength');
            return { name, type: 'AlphaNumeric', maxLength: maxLength ? Number(maxLength.text) : undefined };
          }
          if (child(column, 'Date')) return { name, type: 'Date' };
          throw new Error(`column ${name} has no type`);
        });
      return { file: child(table, 'URL')!.text, decimalSymbol: child(table, 'DecimalSymbol')?.text ?? ',', columns };
    }),
  );
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Every value of every table that breaks its declared column; also counts the numeric values checked per accuracy. */
function checkAgainstIndex(tables: DeclaredTable[], csvs: Map<string, string>) {
  const mismatches: string[] = [];
  const checkedByAccuracy = new Map<number, number>();
  for (const table of tables) {
    const csv = csvs.get(table.file);
    if (csv === undefined) {
      mismatches.push(`${table.file}: declared in index.xml, missing from the ZIP`);
      continue;
    }
    const [header, ...rows] = parseCsv(csv);
    if (header.join(';') !== table.columns.map((c) => c.name).join(';')) mismatches.push(`${table.file}: header ${header.join(';')}`);
    const symbol = escapeRegExp(table.decimalSymbol);
    rows.forEach((fields, r) => {
      const at = `${table.file} row ${r + 2}`;
      if (fields.length !== table.columns.length) mismatches.push(`${at}: ${fields.length} fields, ${table.columns.length} columns declared`);
      table.columns.forEach((column, c) => {
        const value = fields[c] ?? '';
        if (value === '') return;
        if (column.type === 'Numeric') {
          const places = column.accuracy ?? 0;
          const pattern = places > 0 ? new RegExp(`^-?\\d+${symbol}\\d{${places}}$`) : /^-?\d+$/;
          const negativeZero = /^-[0,]+$/.test(value);
          if (!pattern.test(value) || negativeZero) mismatches.push(`${at} ${column.name}: '${value}' for Accuracy ${column.accuracy ?? 'none'}`);
          checkedByAccuracy.set(places, (checkedByAccuracy.get(places) ?? 0) + 1);
        } else if (column.type === 'AlphaNumeric' && column.maxLength !== undefined && [...value].length > column.maxLength) {
          mismatches.push(`${at} ${column.name}: ${[...value].length} characters, MaxLength ${column.maxLength}`);
        }
      });
    });
  }
  const undeclared = [...csvs.keys()].filter((file) => !tables.some((table) => table.file === file));
  mismatches.push(...undeclared.map((file) => `${file}: in the ZIP, not declared in index.xml`));
  return { mismatches, checkedByAccuracy };
}

interface GoodsLine {
  title: string;
  quantity: number;
  unit: string;
  total: string;
  /** null: a voucher sold (gift_card line, rate 0). */
  rate: string | null;
  giftCardId?: string;
}

/** A POS goods movement whose tax amounts are the contract's 8-place values and whose totals add up. */
function goodsBody(fx: OperationsFixture, lines: GoodsLine[], extra: { discounts?: string[]; tip?: string; type?: string; related?: string } = {}) {
  const lineItems = lines.map((line, i) => ({
    type: line.rate === null ? 'gift_card' : 'item',
    title: line.title,
    quantity: line.quantity,
    unit_price: line.unit,
    total_amount: line.total,
    sku_identifier: `SKU-${i}`,
    taxes: [{ name: 'MwSt', rate: line.rate ?? '0', tax_amount: formatAmount(computeLineTaxAmounts(line.total, [line.rate ?? '0'])[0]) }],
    ...(line.giftCardId ? { gift_card_id: line.giftCardId } : {}),
  }));
  const tip = toAmount(extra.tip ?? '0');
  const discounts = extra.discounts ?? [];
  const total = sumAmounts(lines.map((line) => line.total)).minus(sumAmounts(discounts)).plus(tip);
  const tax = sumAmounts(lineItems.map((item) => item.taxes[0].tax_amount));
  return saleBody(fx.registerId, {
    type: extra.type ?? 'sale',
    line_items: lineItems,
    total_amount: formatAmount(total),
    tax_amount: formatAmount(tax),
    pretax_amount: formatAmount(total.minus(tax).minus(tip)),
    tip_amount: formatAmount(tip),
    ...(discounts.length ? { cart_level_discounts: discounts.map((amount) => ({ amount, description: 'Stammkunde' })) } : {}),
    ...(extra.related ? { related_operation_id: extra.related } : {}),
  });
}

const payment = (method: string, amount: string, giftCardId?: string) => ({
  payment_id: `p-${method}-${amount}`,
  method,
  amount,
  currency: 'EUR',
  status: 'captured',
  ...(giftCardId ? { gift_card_id: giftCardId } : {}),
});

let t: TestApp;
let fx: OperationsFixture;
let files: Map<string, string>;

async function sell(body: object, payments: unknown[]) {
  return mustComplete(t.app, fx.headers, await mustCreate(t.app, fx.headers, body), payments);
}

async function waitForJob(id: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = json(await t.app.inject({ method: 'GET', url: `/v1/exports/${id}`, headers: fx.headers }));
    if (job.status !== 'pending' || Date.now() > deadline) return job;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

beforeAll(async () => {
  t = await createTestApp({ EXPORT_POLL_MS: '100' });
  const tenant = await createTenantWithKey(t.database, 'DEU');
  fx = await fiscalizedRegisterWithSession(t.app, tenant.apiKey);

  // 19 % and 7 % with awkward cents and a weighed item, a discount spread over both rates, a tip, cash and card.
  const groceries = await sell(
    goodsBody(
      fx,
      [
        { title: 'Brötchen', quantity: 3, unit: '0.37', total: '1.11', rate: '0.19' },
        { title: 'Milch', quantity: 1, unit: '1.19', total: '1.19', rate: '0.07' },
        { title: 'Käse', quantity: 0.375, unit: '23.90', total: '8.96', rate: '0.07' },
      ],
      { discounts: ['0.99'], tip: '0.50' },
    ),
    [payment('cash', '5.00'), payment('debit_card', '5.77')],
  );
  // A voucher sold with a taxed item, paid by credit card.
  await sell(
    goodsBody(fx, [
      { title: 'Geschenkkarte', quantity: 1, unit: '25.00', total: '25.00', rate: null, giftCardId: 'GC-1' },
      { title: 'Kuchen', quantity: 1, unit: '3.33', total: '3.33', rate: '0.19' },
    ]),
    [payment('credit_card', '28.33')],
  );
  // The voucher redeemed in part, the rest in cash.
  await sell(goodsBody(fx, [{ title: 'Torte', quantity: 1, unit: '19.99', total: '19.99', rate: '0.19' }]), [
    payment('gift_card', '15.00', 'GC-1'),
    payment('cash', '4.99'),
  ]);
  // Amounts finer than a cent (a discount too) and a quantity finer than the column's 3 places.
  await sell(
    goodsBody(
      fx,
      [
        { title: 'Schrauben', quantity: 3, unit: '0.33333333', total: '0.99999999', rate: '0.19' },
        { title: 'Draht', quantity: 1.2345, unit: '2.00', total: '2.47', rate: '0.19' },
      ],
      { discounts: ['0.12345678'] },
    ),
    [payment('cash', '3.34654321')],
  );
  // The milk returned, paid out in cash.
  await sell(goodsBody(fx, [{ title: 'Milch', quantity: 1, unit: '-1.19', total: '-1.19', rate: '0.07' }], { type: 'return', related: groceries.id }), [
    payment('cash', '-1.19'),
  ]);
  // A Style O refund of a plain sale.
  const refunded = await createAndCompleteSale(t.app, fx);
  const styleO = orgAuth(tenant.apiKey, fx.merchantId);
  await mustCompleteRefund(t.app, styleO, (await mustRefund(t.app, styleO, fx.registerId, { original_operation_id: refunded.id, reason: 'damaged' })).id);
  // A sale aborted before payment.
  const aborted = await mustCreate(t.app, fx.headers, goodsBody(fx, [{ title: 'Kaffee', quantity: 2, unit: '2.45', total: '4.90', rate: '0.19' }]));
  expect((await voidOp(t.app, fx.headers, aborted)).statusCode).toBe(200);

  for (const [type, fields] of [
    ['session_cash_adjustment', { amount: '-20.00', note: 'Tresor' }],
    ['session_cash_count', { counted_closing_amount: '87.13' }],
    ['session_close', { closing_adjustment_amount: '-50.00' }],
  ] as const) {
    const response = await sessionEvent(t.app, fx.headers, fx.registerId, type, fields);
    if (response.statusCode !== 201) throw new Error(`${type} failed: ${response.body}`);
  }

  const created = await t.app.inject({
    method: 'POST',
    url: '/v1/exports',
    headers: fx.headers,
    payload: { type: 'dsfinvk', from: '2020-01-01T00:00:00Z', to: '2099-01-01T00:00:00Z', register_id: fx.registerId },
  });
  const job = await waitForJob(json(created).id);
  if (job.status !== 'completed') throw new Error(`export job ${job.status}: ${JSON.stringify(job.error)}`);
  const url = new URL(job.download_url);
  const download = await t.app.inject({ method: 'GET', url: url.pathname + url.search });
  expect(download.statusCode).toBe(200);
  files = new Map([...(await readZip(download.rawPayload))].map(([name, content]) => [name, content.toString('utf8')] as const));
});
afterAll(() => t.close());

describe('DSFinV-K numeric accuracy', () => {
  it('writes every value of every CSV exactly as the column index.xml declares it', () => {
    const tables = declaredTables(files.get('index.xml')!);
    expect(tables).toHaveLength(20);
    const csvs = new Map([...files].filter(([name]) => name.endsWith('.csv')));
    const { mismatches, checkedByAccuracy } = checkAgainstIndex(tables, csvs);
    expect(mismatches).toEqual([]);
    // The closing exercises every accuracy the tables declare: integers, amounts, quantities, VAT splits.
    expect(Object.fromEntries(checkedByAccuracy)).toEqual({ 0: expect.any(Number), 2: expect.any(Number), 3: expect.any(Number), 5: expect.any(Number) });
    for (const file of ['lines.csv', 'lines_vat.csv', 'transactions_vat.csv', 'businesscases.csv', 'payment.csv', 'cash_per_currency.csv', 'datapayment.csv', 'references.csv']) {
      expect(parseCsv(csvs.get(file)!).length, file).toBeGreaterThan(1);
    }
  });

  it('writes the amounts exactly: 8-place taxes at the 5 places of their columns, closing sums as the sums of what is written', () => {
    const rows = (file: string) => {
      const [header, ...data] = parseCsv(files.get(file)!);
      return data.map((fields) => Object.fromEntries(header.map((name, i) => [name, fields[i]])));
    };
    const amount = (value: string) => new Decimal(value.replace(',', '.'));
    const lines = rows('lines.csv');
    const vatOf = (title: string, bonId?: string) => {
      const line = lines.find((row) => row.ARTIKELTEXT === title && (bonId === undefined || row.BON_ID === bonId))!;
      return rows('lines_vat.csv').find((row) => row.BON_ID === line.BON_ID && row.POS_ZEILE === line.POS_ZEILE)!;
    };
    // 3.33 × 0.19 / 1.19 = 0.53168067… (8 places in the API), half up at 5 places.
    expect(vatOf('Kuchen')).toMatchObject({ POS_BRUTTO: '3,33000', POS_NETTO: '2,79832', POS_UST: '0,53168' });
    expect(vatOf('Schrauben')).toMatchObject({ POS_BRUTTO: '1,00000', POS_UST: '0,15966' });
    expect(lines.find((row) => row.ARTIKELTEXT === 'Schrauben')).toMatchObject({ MENGE: '3,000', STK_BR: '0,33333' });
    const screwsDiscount = lines.find((row) => row.BON_ID === lines.find((r) => r.ARTIKELTEXT === 'Schrauben')!.BON_ID && row.GV_TYP === 'Rabatt')!;
    expect(vatOf(screwsDiscount.ARTIKELTEXT, screwsDiscount.BON_ID)).toMatchObject({ POS_BRUTTO: '-0,12346', POS_NETTO: '-0,10375', POS_UST: '-0,01971' });
    expect(lines.find((row) => row.ARTIKELTEXT === 'Draht')).toMatchObject({ MENGE: '1,235', STK_BR: '2,00000' });
    expect(lines.find((row) => row.ARTIKELTEXT === 'Käse')).toMatchObject({ MENGE: '0,375', STK_BR: '23,90000' });

    // businesscases.csv is the sum of the booked lines_vat rows per (GV_TYP, key), to the last written place.
    const booked = new Set(rows('transactions.csv').filter((row) => row.BON_TYP === 'Beleg').map((row) => row.BON_ID));
    const gvTyp = new Map(lines.map((row) => [`${row.BON_ID}/${row.POS_ZEILE}`, row.GV_TYP]));
    const sums = new Map<string, Decimal[]>();
    for (const row of rows('lines_vat.csv').filter((r) => booked.has(r.BON_ID))) {
      const key = `${gvTyp.get(`${row.BON_ID}/${row.POS_ZEILE}`)}/${row.UST_SCHLUESSEL}`;
      const sum = sums.get(key) ?? [new Decimal(0), new Decimal(0), new Decimal(0)];
      sums.set(key, [sum[0].plus(amount(row.POS_BRUTTO)), sum[1].plus(amount(row.POS_NETTO)), sum[2].plus(amount(row.POS_UST))]);
    }
    const businessCases = rows('businesscases.csv');
    expect(businessCases).toHaveLength(sums.size);
    for (const row of businessCases) {
      const sum = sums.get(`${row.GV_TYP}/${row.UST_SCHLUESSEL}`)!;
      expect([row.Z_UMS_BRUTTO, row.Z_UMS_NETTO, row.Z_UST], `${row.GV_TYP} ${row.UST_SCHLUESSEL}`).toEqual(sum.map((value) => value.toFixed(5).replace('.', ',')));
    }
  });
});
