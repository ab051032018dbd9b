// Austria (issue 15): the Style M receipt of a sale on an AUT register, its PDF and its hosted
// page print what the RKSV and § 132a BAO require: the Kassen-ID, the Belegnummer, date and
// time in Europe/Vienna, the amounts per Austrian rate, and the machine-readable code as a QR
// code that decodes to fiscal_information.verification.qr_data and verifies with the
// independent verifier; while the signature device is out, "Sicherheitseinrichtung ausgefallen".
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { createTenantWithKey, createTestApp, json, type TestApp } from '../support/testApp.js';
import { mustComplete, mustCreate, simulate, type OperationsFixture } from '../support/operations.js';
import { autLine, autRegisterWithSession, depOf } from '../support/rksv.js';
import { decodeQr, svgModules, toPgm } from '../support/qrImages.js';
import { requireTools } from '../support/tools.js';
import { verifyDep, verifyReceiptQr } from '../fiscal/independentRksv.js';

let t: TestApp;
let fx: OperationsFixture & { register: any };
const workDir = mkdtempSync(join(tmpdir(), 'rksv-receipts-'));

beforeAll(async () => {
  t = await createTestApp();
  fx = await autRegisterWithSession(t.app, (await createTenantWithKey(t.database, 'AUT')).apiKey);
});
afterAll(async () => {
  rmSync(workDir, { recursive: true, force: true });
  await t.close();
});

/** A sale in all five Austrian rates, with a cart discount and a tip: 4,90 + 5,70 + 6,40 + 3,30 + 2,38 + 10,00 − 2,00 + 1,00. */
const FIVE_RATE_SALE = {
  type: 'sale',
  source: 'POS',
  currency: 'EUR',
  total_amount: '31.68',
  tip_amount: '1.00',
  line_items: [
    autLine('Melange', '4.90', '0.10'),
    autLine('Sachertorte', '5.70', '0.10'),
    autLine('Grüner Veltliner', '6.40', '0.20'),
    autLine('Eintritt Museum', '3.30', '0.13'),
    autLine('Jungholz Brot', '2.38', '0.19'),
    autLine('Gutschein', '10.00', '0'),
  ],
  cart_level_discounts: [{ amount: '2.00', description: 'Stammgast' }],
};

/** Records and completes a sale on the register (one cash payment of the total); returns it and its Style M receipt. */
async function saleWithReceipt(body: Record<string, unknown>) {
  const sale = await mustComplete(t.app, fx.headers, await mustCreate(t.app, fx.headers, { register_id: fx.registerId, ...body }));
  const response = await t.app.inject({ method: 'GET', url: `/v1/receipts/${sale.receipt_id}`, headers: fx.headers });
  expect(response.statusCode).toBe(200);
  return { sale, receipt: json(response) };
}

const pathOf = (url: string) => new URL(url).pathname;
const cents = (text: string) => Math.round(Number(text.replace(/\./g, '').replace(',', '.')) * 100);
const AMOUNT = '(-?[\\d.]+,\\d\\d) EUR';

interface Printed {
  text: string;
  /** The VAT table in cents, the Gesamt row last. */
  taxRows: { label: string; net: number; tax: number; gross: number }[];
  qr: string[];
}

async function printedPdf(receipt: any): Promise<Printed> {
  const response = await t.app.inject({ method: 'GET', url: pathOf(receipt.links.pdf) });
  expect(response.statusCode).toBe(200);
  const file = join(workDir, `${receipt.id}.pdf`);
  writeFileSync(file, response.rawPayload);
  const text = execFileSync('pdftotext', ['-enc', 'UTF-8', '-layout', file, '-'], { encoding: 'utf8' });
  const table = text.slice(text.indexOf('Satz'), text.indexOf('Registrierkasse'));
  const taxRows = [...table.matchAll(new RegExp(`^\\s*(\\S.*?)\\s{2,}${AMOUNT}\\s+${AMOUNT}\\s+${AMOUNT}\\s*$`, 'gm'))].map(
    ([, label, net, tax, gross]) => ({ label: label.replace(/\s+/g, ''), net: cents(net), tax: cents(tax), gross: cents(gross) }),
  );
  const image = join(workDir, receipt.id);
  execFileSync('pdftoppm', ['-png', '-r', '150', '-singlefile', file, image]);
  return { text, taxRows, qr: decodeQr(`${image}.png`) };
}

async function printedPage(receipt: any): Promise<Printed> {
  const response = await t.app.inject({ method: 'GET', url: pathOf(receipt.links.hosted) });
  expect(response.statusCode).toBe(200);
  const text = response.body;
  const table = /<table class="taxes">([\s\S]*?)<\/table>/.exec(text)![1];
  const cells = new RegExp(`<td>([^<]*)</td><td class="num">${AMOUNT}</td><td class="num">${AMOUNT}</td><td class="num">${AMOUNT}</td>`, 'g');
  const taxRows = [...table.matchAll(cells)].map(([, label, net, tax, gross]) => ({
    label: label.replace(/\s+/g, ''),
    net: cents(net),
    tax: cents(tax),
    gross: cents(gross),
  }));
  const svg = /<svg[\s\S]*?<\/svg>/.exec(text)?.[0] ?? '';
  const image = join(workDir, `${receipt.id}.pgm`);
  writeFileSync(image, toPgm(svgModules(svg), 4));
  return { text, taxRows, qr: decodeQr(image) };
}

async function printed(context: TestContext, receipt: any) {
  requireTools(context, 'pdftotext', 'pdftoppm', 'zbarimg');
  return { pdf: await printedPdf(receipt), page: await printedPage(receipt) };
}

/** "dd.mm.yyyy hh:mm:ss" of `iso` in Europe/Vienna. */
function viennaTime(iso: string): string {
  const part = Object.fromEntries(
    new Intl.DateTimeFormat('en-GB', {
      timeZone: 'Europe/Vienna',
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
      .formatToParts(new Date(iso))
      .map(({ type, value }) => [type, value]),
  );
  return `${part.day}.${part.month}.${part.year} ${part.hour}:${part.minute}:${part.second}`;
}

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('the Style M receipt of a sale on an Austrian register', () => {
  it('carries the RKSV fiscal block of the sale', async () => {
    const { sale, receipt } = await saleWithReceipt(FIVE_RATE_SALE);
    expect(receipt.fiscal).toEqual(sale.fiscal_information);
    expect(receipt.fiscal).toMatchObject({ regime: 'RKSV', document_type: 'standard', signature_device_failed: false });
    expect(receipt.issuer.address.country_code).toBe('AUT');
  });

  it('prints the QR code of qr_data, which verifies, and the fields the RKSV and § 132a BAO require, in the PDF and the hosted page', async (context) => {
    const { receipt } = await saleWithReceipt(FIVE_RATE_SALE);
    const fiscal = receipt.fiscal;
    const { aesKey } = await depOf(t.database, fx.registerId);
    const check = verifyReceiptQr(fiscal.verification.qr_data, fiscal.public_key, aesKey);
    expect(check.errors).toEqual([]);
    expect(check.signatureFailed).toBe(false);

    const { pdf, page } = await printed(context, receipt);
    for (const { qr } of [pdf, page]) expect(qr).toEqual([fiscal.verification.qr_data]);

    const issued = viennaTime(receipt.issued_at);
    // Vienna is an hour or two ahead of UTC, never on it.
    expect(issued.slice(11, 13)).not.toBe(receipt.issued_at.slice(11, 13));
    const signed = new Intl.DateTimeFormat('de-AT', { timeZone: 'Europe/Vienna', dateStyle: 'medium', timeStyle: 'medium' }).format(new Date(fiscal.signed_at));

    expect(pdf.text).toMatch(new RegExp(`Datum\\s+${escaped(issued)} MES?Z`));
    expect(pdf.text).toMatch(new RegExp(`Beleg-Nr\\.\\s+${fiscal.document_number}\\n`));
    expect(pdf.text).toMatch(/Registrierkasse \(RKSV\)/);
    expect(pdf.text).toMatch(new RegExp(`Kassen-ID\\s+${escaped(fiscal.cash_register_id)}`));
    expect(pdf.text).toMatch(new RegExp(`Belegnummer\\s+${fiscal.document_number}\\n`));
    expect(pdf.text).toMatch(new RegExp(`Belegdatum\\s+${escaped(signed)}`));
    expect(pdf.text).toContain(fiscal.signature_device_id);

    expect(page.text).toMatch(new RegExp(`<dt>Datum</dt><dd>${escaped(issued)} MES?Z</dd>`));
    expect(page.text).toContain(`<dt>Beleg-Nr.</dt><dd>${fiscal.document_number}</dd>`);
    expect(page.text).toContain('<h2>Registrierkasse (RKSV)</h2>');
    expect(page.text).toContain(`<dt>Kassen-ID</dt><dd class="mono">${fiscal.cash_register_id}</dd>`);
    expect(page.text).toContain(`<dt>Belegnummer</dt><dd>${fiscal.document_number}</dd>`);
    expect(page.text).toContain(`<dt>Belegdatum</dt><dd>${signed}</dd>`);
    expect(page.text).toContain(fiscal.signature_device_id);

    for (const { text } of [pdf, page]) {
      expect(text).toContain('Österreich');
      expect(text).toContain('Kaffeehaus Wien GmbH');
      expect(text).toContain('Grüner Veltliner');
      expect(text).not.toContain('TSE');
      expect(text).not.toContain('Sicherheitseinrichtung ausgefallen');
    }
  });

  it('prints one VAT row per Austrian rate, each with the gross the receipt code signed, adding up to the total', async (context) => {
    const { receipt } = await saleWithReceipt(FIVE_RATE_SALE);
    const signedCents = (amount: string) => Math.round(Number(amount) * 100);
    const { normal, reduced_1, reduced_2, zero, special } = receipt.fiscal.amounts;
    for (const { taxRows } of Object.values(await printed(context, receipt))) {
      const total = taxRows.at(-1)!;
      const rows = taxRows.slice(0, -1);
      expect(total.label).toBe('Gesamt');
      expect(rows.map((row) => [row.label.slice(1), row.gross])).toEqual([
        ['20%', signedCents(normal)],
        ['10%', signedCents(reduced_1)],
        ['13%', signedCents(reduced_2)],
        ['0%', signedCents(zero)],
        ['19%', signedCents(special)],
      ]);
      expect(total.gross).toBe(3168);
      for (const column of ['net', 'tax', 'gross'] as const) expect(rows.reduce((sum, row) => sum + row[column], 0)).toBe(total[column]);
      for (const row of taxRows) expect(row.net + row.tax).toBe(row.gross);
      expect(rows.map((row) => row.tax)).toEqual(
        [20, 10, 13, 0, 19].map((rate, index) => Math.round((rows[index]!.gross * rate) / (100 + rate))),
      );
    }
  });

  it('prints "Sicherheitseinrichtung ausgefallen" on a receipt signed while the signature device was out', async (context) => {
    await simulate(t.app, fx.headers, fx.registerId, 'unreachable');
    let failed;
    try {
      failed = await saleWithReceipt({ type: 'sale', source: 'POS', currency: 'EUR', total_amount: '4.90', line_items: [autLine('Melange', '4.90', '0.10')] });
    } finally {
      await simulate(t.app, fx.headers, fx.registerId, 'ok');
    }
    const fiscal = failed.receipt.fiscal;
    expect(fiscal.signature_device_failed).toBe(true);
    const { aesKey } = await depOf(t.database, fx.registerId);
    const check = verifyReceiptQr(fiscal.verification.qr_data, fiscal.public_key, aesKey);
    expect(check.errors).toEqual([]);
    expect(check.signatureFailed).toBe(true);

    const { pdf, page } = await printed(context, failed.receipt);
    for (const { text, qr } of [pdf, page]) {
      expect(text).toContain('Sicherheitseinrichtung ausgefallen');
      expect(qr).toEqual([fiscal.verification.qr_data]);
    }

    // After recovery the next receipt is preceded by the signed collective receipt; both print as usual.
    const { receipt } = await saleWithReceipt({ type: 'sale', source: 'POS', currency: 'EUR', total_amount: '4.90', line_items: [autLine('Melange', '4.90', '0.10')] });
    expect(receipt.fiscal.signature_device_failed).toBe(false);
    expect(Number(receipt.fiscal.document_number)).toBe(Number(fiscal.document_number) + 2);
    const recovered = await printed(context, receipt);
    for (const { text } of [recovered.pdf, recovered.page]) expect(text).not.toContain('Sicherheitseinrichtung ausgefallen');

    const { dep, cryptoMaterial } = await depOf(t.database, fx.registerId);
    expect(verifyDep(dep, cryptoMaterial, { counterBytes: 8 }).errors).toEqual([]);
  });
});
