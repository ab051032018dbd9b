// Italy (issue 16, point 3): the receipt, PDF and hosted page of a sale and of a return on an
// ITA register read as an Italian documento commerciale: issuer with partita IVA, the title
// "DOCUMENTO COMMERCIALE di vendita o prestazione" (di reso merce, naming the original),
// lines with VAT rate or natura, TOTALE COMPLESSIVO and DI CUI IVA, cash and electronic
// payments, RT <serial>, DOCUMENTO N. and date; dates dd-mm-yyyy hh:mm in Europe/Rome and
// amounts 1.234,56 €. fiscal_information.verification.url is the hosted receipt.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { createTenantWithKey, createTestApp, json, type TestApp } from '../support/testApp.js';
import { mustComplete, mustCreate, type OperationsFixture } from '../support/operations.js';
import { itaLine, itaMovement, itaRegisterWithSession } from '../support/rt.js';
import { requireTools } from '../support/tools.js';

let t: TestApp;
let fx: OperationsFixture & { register: any };
const workDir = mkdtempSync(join(tmpdir(), 'rt-receipts-'));

beforeAll(async () => {
  t = await createTestApp();
  fx = await itaRegisterWithSession(t.app, (await createTenantWithKey(t.database, 'ITA')).apiKey);
});
afterAll(async () => {
  rmSync(workDir, { recursive: true, force: true });
  await t.close();
});

const pay = (method: string, amount: string) => ({ payment_id: `p-${method}`, method, amount, currency: 'EUR', status: 'captured' });

/** Records and completes a movement with `payments`; returns the operation and its Style M receipt. */
async function completedWithReceipt(body: object, payments: object[]) {
  const operation = await mustComplete(t.app, fx.headers, await mustCreate(t.app, fx.headers, body), payments);
  const response = await t.app.inject({ method: 'GET', url: `/v1/receipts/${operation.receipt_id}`, headers: fx.headers });
  expect(response.statusCode).toBe(200);
  return { operation, receipt: json(response) };
}

const pathOf = (url: string) => new URL(url).pathname;

async function pdfText(context: TestContext, receipt: any): Promise<string> {
  requireTools(context, 'pdftotext');
  const response = await t.app.inject({ method: 'GET', url: pathOf(receipt.links.pdf) });
  expect(response.statusCode).toBe(200);
  const file = join(workDir, `${receipt.id}.pdf`);
  writeFileSync(file, response.rawPayload);
  return execFileSync('pdftotext', ['-enc', 'UTF-8', '-layout', file, '-'], { encoding: 'utf8' });
}

async function hostedPage(receipt: any): Promise<string> {
  const response = await t.app.inject({ method: 'GET', url: pathOf(receipt.links.hosted) });
  expect(response.statusCode).toBe(200);
  return response.body;
}

/** "dd-mm-yyyy hh:mm" of `iso` in Europe/Rome. */
function romeTime(iso: string): string {
  const part = Object.fromEntries(
    new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Rome', hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit' })
      .formatToParts(new Date(iso))
      .map(({ type, value }) => [type, value]),
  );
  return `${part.day}-${part.month}-${part.year} ${part.hour}:${part.minute}`;
}

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** `label` and `value` on one printed line, or a page row. */
const pdfRow = (label: string, value: string) => new RegExp(`${escaped(label)} +${escaped(value)}\\n`);
const pageRow = (label: string, value: string) => `<dt>${label}</dt><dd>${value}</dd>`;

// 1.234,56 + 1,20 + 12,00 + 1,30 = 1.249,06; VAT 222,63 + 0,11 + 0,46 + 0 = 223,20.
const SALE_LINES = [
  itaLine('Macchina espresso', '1234.56', '0.22'),
  itaLine('Caffè', '1.20', '0.10'),
  itaLine('Libro', '12.00', '0.04'),
  itaLine('Francobollo', '1.30', 'N1'),
];

describe('the receipt of a sale on an Italian register', () => {
  it('is a documento commerciale in Italian, in the PDF and on the hosted page, and verification.url is the hosted page', async (context) => {
    const { operation, receipt } = await completedWithReceipt(itaMovement(fx, 'sale', SALE_LINES), [pay('cash', '49.06'), pay('credit_card', '1200.00')]);
    const fiscal = operation.fiscal_information;
    expect(receipt.fiscal).toEqual(fiscal);
    expect(fiscal.verification.url).toBe(receipt.links.hosted);
    expect(receipt.issuer.tax_id).toBe('12345678901');
    const serial = fx.register.fiscalization.rt.serial;
    const issued = romeTime(fiscal.issued_at);

    const pdf = await pdfText(context, receipt);
    const page = await hostedPage(receipt);
    for (const text of [pdf, page]) {
      expect(text).toContain('Pasticceria Roma Srl');
      expect(text).toContain('Via del Corso 1');
      expect(text).toContain('00186 Roma');
      expect(text).toContain('Italia');
      expect(text).toContain('P.IVA 12345678901');
      expect(text).toContain('DOCUMENTO COMMERCIALE');
      expect(text).toContain('di vendita o prestazione');
      expect(text).not.toMatch(/Beleg|Summe|MwSt|Kasse\b|EUR/);
    }
    expect(pdf).toMatch(/DOCUMENTO COMMERCIALE\s+di vendita o prestazione/);
    expect(page).toContain('<h2 class="title">DOCUMENTO COMMERCIALE<br>di vendita o prestazione</h2>');
    expect(page).toContain('<html lang="it">');

    // Lines: description, quantity x price, amount, and the VAT rate or natura code.
    expect(pdf).toMatch(/Macchina espresso +1\.234,56 € +22%\n/);
    expect(pdf).toMatch(/1 x 1\.234,56 €/);
    expect(pdf).toMatch(/Caffè +1,20 € +10%\n/);
    expect(pdf).toMatch(/Libro +12,00 € +4%\n/);
    expect(pdf).toMatch(/Francobollo +1,30 € +N1\n/);
    expect(page).toContain('<td>Macchina espresso<span class="detail">1 x 1.234,56 €</span></td><td class="num">1.234,56 €</td><td class="key">22%</td>');
    expect(page).toContain('<td class="num">1,30 €</td><td class="key">N1</td>');

    // Totals and payments.
    expect(pdf).toMatch(pdfRow('TOTALE COMPLESSIVO', '1.249,06 €'));
    expect(pdf).toMatch(pdfRow('DI CUI IVA', '223,20 €'));
    expect(pdf).toMatch(pdfRow('PAGAMENTO CONTANTE', '49,06 €'));
    expect(pdf).toMatch(pdfRow('PAGAMENTO ELETTRONICO', '1.200,00 €'));
    for (const [label, value] of [
      ['TOTALE COMPLESSIVO', '1.249,06 €'],
      ['DI CUI IVA', '223,20 €'],
      ['PAGAMENTO CONTANTE', '49,06 €'],
      ['PAGAMENTO ELETTRONICO', '1.200,00 €'],
    ]) {
      expect(page).toContain(pageRow(label!, value!));
    }

    // The RT's part: document number, date in Rome, RT <serial>.
    expect(pdf).toMatch(pdfRow('DOCUMENTO N.', fiscal.document_number));
    expect(pdf).toMatch(pdfRow('Data', issued));
    expect(pdf).toMatch(pdfRow('RT', serial));
    expect(pdf).toMatch(pdfRow('Cassa', 'Cassa 1'));
    expect(page).toContain(pageRow('DOCUMENTO N.', fiscal.document_number));
    expect(page).toContain(pageRow('Data', issued));
    expect(page).toContain(pageRow('RT', serial));
    expect(fiscal.document_number).toMatch(/^\d{4}-\d{4}$/);
  });

  it('prints the lottery code of a sale paid electronically', async (context) => {
    const { operation, receipt } = await completedWithReceipt(
      itaMovement(fx, 'sale', [itaLine('Pizza', '9.00', '0.10')], { lottery_code: 'ABCD1234' }),
      [pay('credit_card', '9.00')],
    );
    expect(operation.fiscal_information.lottery_code).toBe('ABCD1234');
    expect(await pdfText(context, receipt)).toMatch(pdfRow('Codice lotteria', 'ABCD1234'));
    expect(await hostedPage(receipt)).toContain(pageRow('Codice lotteria', 'ABCD1234'));
  });
});

describe('the receipt of a return on an Italian register', () => {
  it('is a documento commerciale di reso merce naming the original’s number, date and RT', async (context) => {
    const sale = await completedWithReceipt(itaMovement(fx, 'sale', [itaLine('Scarpe', '80.00', '0.22')]), [pay('cash', '80.00')]);
    const original = sale.operation.fiscal_information;
    const { operation, receipt } = await completedWithReceipt(
      itaMovement(fx, 'return', [itaLine('Scarpe', '-50.00', '0.22')], { related_operation_id: sale.operation.id }),
      [pay('cash', '-50.00')],
    );
    const fiscal = operation.fiscal_information;
    expect(fiscal.document_type).toBe('return');
    expect(fiscal.verification.url).toBe(receipt.links.hosted);
    const reference = `N. ${original.document_number} del ${romeTime(original.issued_at)} RT ${original.device_serial}`;

    const pdf = await pdfText(context, receipt);
    const page = await hostedPage(receipt);
    expect(pdf).toMatch(/DOCUMENTO COMMERCIALE\s+di reso merce/);
    expect(page).toContain('<h2 class="title">DOCUMENTO COMMERCIALE<br>di reso merce</h2>');
    for (const text of [pdf, page]) {
      expect(text).not.toContain('di vendita o prestazione');
      expect(text).toContain('Documento di riferimento');
      expect(text).toContain(reference);
    }
    expect(pdf).toMatch(pdfRow('TOTALE COMPLESSIVO', '-50,00 €'));
    expect(pdf).toMatch(pdfRow('DI CUI IVA', '-9,02 €'));
    expect(pdf).toMatch(pdfRow('PAGAMENTO CONTANTE', '-50,00 €'));
    expect(pdf).toMatch(pdfRow('DOCUMENTO N.', fiscal.document_number));
    expect(pdf).toMatch(pdfRow('Data', romeTime(fiscal.issued_at)));
    expect(pdf).toMatch(pdfRow('RT', fiscal.device_serial));
    expect(page).toContain(pageRow('TOTALE COMPLESSIVO', '-50,00 €'));
    expect(page).toContain(pageRow('Operazione', 'Reso'));
  });
});
