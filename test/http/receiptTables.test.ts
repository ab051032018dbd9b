// Issue 14: a receipt's PDF and hosted page add up and speak the customer's language. Sales
// recorded through the API with several rates and awkward cents print a VAT table whose
// total row is the sum of its rows, gross per rate as the TSE signed it; the time in the
// location's zone (Europe/Berlin, the default for DEU), the fiscal document number, and
// the country by its German name.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { computeLineTaxAmounts } from '../../src/domain/operations/taxAmount.js';
import { createTenantWithKey, createTestApp, json, type TestApp } from '../support/testApp.js';
import { fiscalizedRegisterWithSession, mustComplete, mustCreate, saleBody, type OperationsFixture } from '../support/operations.js';
import { requireTools } from '../support/tools.js';

let t: TestApp;
let fx: OperationsFixture;
const workDir = mkdtempSync(join(tmpdir(), 'receipt-tables-'));

beforeAll(async () => {
  t = await createTestApp();
  fx = await fiscalizedRegisterWithSession(t.app, (await createTenantWithKey(t.database, 'DEU')).apiKey);
});
afterAll(async () => {
  rmSync(workDir, { recursive: true, force: true });
  await t.close();
});

/** A line whose tax is what the contract requires of it (total × rate / (1 + rate), 8 places). */
const line = (title: string, total: string, rate: string) => ({
  title,
  quantity: 1,
  unit_price: total,
  total_amount: total,
  sku_identifier: `SKU-${title}`,
  taxes: [{ name: 'MwSt', rate, tax_amount: computeLineTaxAmounts(total, [rate])[0].toFixed(8) }],
});

/** Records and completes a sale (one cash payment of the total); returns its Style M receipt. */
async function saleReceipt(body: Record<string, unknown>) {
  const sale = await mustComplete(t.app, fx.headers, await mustCreate(t.app, fx.headers, saleBody(fx.registerId, body)));
  return json(await t.app.inject({ method: 'GET', url: `/v1/receipts/${sale.receipt_id}`, headers: fx.headers }));
}

const pathOf = (url: string) => new URL(url).pathname;
const cents = (text: string) => Math.round(Number(text.replace(/\./g, '').replace(',', '.')) * 100);

interface TableRow {
  label: string;
  net: number;
  tax: number;
  gross: number;
}

/** Rows of the printed VAT table in cents: [rows..., the Gesamt row]. */
interface PrintedReceipt {
  taxRows: TableRow[];
  taxTotal: TableRow;
  text: string;
}

const AMOUNT = '(-?[\\d.]+,\\d\\d) EUR';

async function printedPdf(receipt: any): Promise<PrintedReceipt> {
  const response = await t.app.inject({ method: 'GET', url: pathOf(receipt.links.pdf) });
  expect(response.statusCode).toBe(200);
  const file = join(workDir, `${receipt.id}.pdf`);
  writeFileSync(file, response.rawPayload);
  const text = execFileSync('pdftotext', ['-enc', 'UTF-8', '-layout', file, '-'], { encoding: 'utf8' });
  const table = text.slice(text.indexOf('Satz'), text.indexOf('TSE-Daten'));
  const rows = [...table.matchAll(new RegExp(`^\\s*(\\S.*?)\\s{2,}${AMOUNT}\\s+${AMOUNT}\\s+${AMOUNT}\\s*$`, 'gm'))].map(
    ([, label, net, tax, gross]) => ({ label: label.replace(/\s+/g, ''), net: cents(net), tax: cents(tax), gross: cents(gross) }),
  );
  return { taxRows: rows.slice(0, -1), taxTotal: rows[rows.length - 1], text };
}

async function printedPage(receipt: any): Promise<PrintedReceipt> {
  const response = await t.app.inject({ method: 'GET', url: pathOf(receipt.links.hosted) });
  expect(response.statusCode).toBe(200);
  const text = response.body;
  const table = /<table class="taxes">([\s\S]*?)<\/table>/.exec(text)![1];
  const cells = new RegExp(`<td>([^<]*)</td><td class="num">${AMOUNT}</td><td class="num">${AMOUNT}</td><td class="num">${AMOUNT}</td>`, 'g');
  const rows = [...table.matchAll(cells)].map(([, label, net, tax, gross]) => ({
    label: label.replace(/\s+/g, ''),
    net: cents(net),
    tax: cents(tax),
    gross: cents(gross),
  }));
  return { taxRows: rows.slice(0, -1), taxTotal: rows[rows.length - 1], text };
}

const both = async (context: TestContext, receipt: any) => {
  requireTools(context, 'pdftotext');
  return { pdf: await printedPdf(receipt), page: await printedPage(receipt) };
};

function expectAddsUp({ taxRows, taxTotal }: PrintedReceipt): void {
  expect(taxRows.length).toBeGreaterThan(0);
  expect(taxTotal.label).toBe('Gesamt');
  for (const column of ['net', 'tax', 'gross'] as const) {
    expect(taxRows.reduce((sum, row) => sum + row[column], 0)).toBe(taxTotal[column]);
  }
  for (const row of [...taxRows, taxTotal]) expect(row.net + row.tax).toBe(row.gross);
}

/** The gross per rate the TSE signed: Kassenbeleg-V1 positions 19 %, 7 %, average rates, 5,5 %, 0 %. */
function signedGross(receipt: any): number[] {
  const [, amounts] = receipt.fiscal.end_event.process_data.split('^');
  return amounts.split('_').map((amount: string) => Math.round(Number(amount) * 100));
}

describe('the VAT table of the PDF and the hosted page', () => {
  it('adds up for the issue’s sale (7 % 1,00 and 19 % 2,50): 3,03 / 0,47 / 3,50', async (context) => {
    const receipt = await saleReceipt({
      pretax_amount: '3.03541978',
      tax_amount: '0.46458022',
      total_amount: '3.50',
      line_items: [line('Milch', '1.00', '0.07'), line('Brot', '2.50', '0.19')],
    });
    for (const printed of Object.values(await both(context, receipt))) {
      expectAddsUp(printed);
      expect(printed.taxRows).toEqual([
        { label: 'A19%', net: 210, tax: 40, gross: 250 },
        { label: 'B7%', net: 93, tax: 7, gross: 100 },
      ]);
      expect(printed.taxTotal).toEqual({ label: 'Gesamt', net: 303, tax: 47, gross: 350 });
    }
    expect(signedGross(receipt)).toEqual([250, 100, 0, 0, 0]);
  });

  it('adds up with several rates, awkward cents, cart discounts and a tip, each rate’s gross as signed', async (context) => {
    const lines = [
      line('Kaffee', '4.99', '0.19'),
      line('Kuchen', '3.33', '0.07'),
      line('Keks', '0.07', '0.19'),
      line('Semmel', '0.99', '0.07'),
      line('Zeitung', '1.51', '0'),
    ];
    // 10.89 − 0.97 − 0.05 + 0.50
    const receipt = await saleReceipt({
      pretax_amount: '8.94',
      tax_amount: '0.93',
      tip_amount: '0.50',
      total_amount: '10.37',
      line_items: lines,
      cart_level_discounts: [
        { amount: '0.97', description: 'Stammkunde' },
        { amount: '0.05', description: 'Rundung' },
      ],
    });
    const [normal, reduced, , , zero] = signedGross(receipt);
    for (const printed of Object.values(await both(context, receipt))) {
      expectAddsUp(printed);
      expect(printed.taxRows.map((row) => [row.label.slice(1), row.gross])).toEqual([
        ['19%', normal],
        ['7%', reduced],
        ['0%', zero],
      ]);
      expect(printed.taxTotal.gross).toBe(1037);
      // The tax of each rate is computed once from its gross.
      expect(printed.taxRows.map((row) => row.tax)).toEqual([Math.round((normal * 19) / 119), Math.round((reduced * 7) / 107), 0]);
    }
  });
});

describe('the rest of the printed receipt', () => {
  it('prints the time in Europe/Berlin, the document number and the country by name', async (context) => {
    const receipt = await saleReceipt({});
    expect(receipt.fiscal.document_number).toMatch(/^\d+$/);
    const issuedAt = new Date(receipt.issued_at);
    const berlin = Object.fromEntries(
      new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Berlin', hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' })
        .formatToParts(issuedAt)
        .map((part) => [part.type, part.value]),
    );
    const local = `${berlin.day}.${berlin.month}.${berlin.year} ${berlin.hour}:${berlin.minute}:${berlin.second}`;
    // Berlin is an hour or two ahead of UTC, never on it.
    expect(Number(berlin.hour)).not.toBe(issuedAt.getUTCHours());

    const { pdf, page } = await both(context, receipt);
    expect(pdf.text).toMatch(new RegExp(`Datum\\s+${local.replace(/\./g, '\\.')} MES?Z`));
    expect(page.text).toMatch(new RegExp(`<dt>Datum</dt><dd>${local.replace(/\./g, '\\.')} MES?Z</dd>`));

    expect(pdf.text).toMatch(new RegExp(`Beleg-Nr\\.\\s+${receipt.fiscal.document_number}\\n`));
    expect(page.text).toContain(`<dt>Beleg-Nr.</dt><dd>${receipt.fiscal.document_number}</dd>`);
    for (const printed of [pdf, page]) {
      expect(printed.text).not.toContain(receipt.id);
      expect(printed.text).toContain('Deutschland');
      expect(printed.text).not.toMatch(/\bDEU\b/);
    }
  });

  it('prints the time in the zone the location names', async (context) => {
    const patched = await t.app.inject({
      method: 'PATCH',
      url: `/v1/locations/${fx.locationId}`,
      headers: fx.headers,
      payload: { timezone: 'America/New_York' },
    });
    expect(patched.statusCode).toBe(200);
    try {
      const receipt = await saleReceipt({});
      const { pdf, page } = await both(context, receipt);
      for (const printed of [pdf, page]) expect(printed.text).toMatch(/\d\d\.\d\d\.\d{4} \d\d:\d\d:\d\d GMT-[45]\b/);
    } finally {
      await t.app.inject({ method: 'PATCH', url: `/v1/locations/${fx.locationId}`, headers: fx.headers, payload: { timezone: 'Europe/Berlin' } });
    }
  });
});
