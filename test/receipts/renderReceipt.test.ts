import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import QRCode from 'qrcode';
import { afterAll, describe, expect, it } from 'vitest';
import { countryName } from '../../src/receipts/countryName.js';
import { formatMoney, formatIssuedAt, formatQuantity, formatTaxRate } from '../../src/receipts/receiptLocales.js';
import { renderReceiptHtml } from '../../src/receipts/renderReceiptHtml.js';
import { renderReceiptPdf, toWinAnsi } from '../../src/receipts/renderReceiptPdf.js';
import { decodeQr, svgModules, toPgm } from '../support/qrImages.js';
import { requireTools } from '../support/tools.js';
import { FISCAL_RECORD, QR_DATA, sampleReceipt, TSE_SERIAL } from './fixtures.js';

const workDir = mkdtempSync(join(tmpdir(), 'receipt-test-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

let fileCounter = 0;
function writeTemp(extension: string, data: Buffer | string): string {
  fileCounter += 1;
  const path = join(workDir, `file-${fileCounter}.${extension}`);
  writeFileSync(path, data);
  return path;
}

/** `layout`: keeps each printed row on one line (table rows), rather than reading column by column. */
function pdfText(pdf: Buffer, layout = false): string {
  return execFileSync('pdftotext', ['-enc', 'UTF-8', ...(layout ? ['-layout'] : []), writeTemp('pdf', pdf), '-'], { encoding: 'utf8' });
}

function pdfPages(pdf: Buffer): number {
  const info = execFileSync('pdfinfo', [writeTemp('pdf', pdf)], { encoding: 'utf8' });
  return Number(/^Pages:\s+(\d+)/m.exec(info)?.[1]);
}

describe('display formatting', () => {
  it('formats amounts German-style with the currency code', () => {
    expect(formatMoney('1234.5', 'EUR')).toBe('1.234,50 EUR');
    expect(formatMoney('1234567.891', 'EUR')).toBe('1.234.567,89 EUR');
    expect(formatMoney('-3', 'EUR')).toBe('-3,00 EUR');
    expect(formatMoney('0.005', 'EUR')).toBe('0,01 EUR');
    expect(formatMoney('-0.001', 'CHF')).toBe('0,00 CHF');
    expect(() => formatMoney('1e3', 'EUR')).toThrow(RangeError);
  });

  it('formats tax rates, quantities and the issue time', () => {
    expect(formatTaxRate('0.19')).toBe('19 %');
    expect(formatTaxRate('0.055')).toBe('5,5 %');
    expect(formatQuantity(1.25)).toBe('1,25');
    expect(formatQuantity(1000)).toBe('1000');
    expect(formatTaxRate('0')).toBe('0 %');
  });

  it('prints the issue time in the location’s time zone, with its abbreviation or offset', () => {
    expect(formatIssuedAt(new Date('2026-11-23T16:05:00Z'), 'Europe/Berlin')).toBe('23.11.2026 17:05:00 MEZ');
    expect(formatIssuedAt(new Date('2024-07-01T22:30:05Z'), 'Europe/Berlin')).toBe('02.07.2024 00:30:05 MESZ');
    expect(formatIssuedAt(new Date('2024-01-15T08:00:00Z'), 'Europe/Vienna')).toBe('15.01.2024 09:00:00 MEZ');
    expect(formatIssuedAt(new Date('2024-01-15T08:00:00Z'), 'America/New_York')).toBe('15.01.2024 03:00:00 GMT-5');
    expect(formatIssuedAt(new Date('2024-01-15T08:00:00Z'), 'UTC')).toBe('15.01.2024 08:00:00 UTC');
  });

  it('names the country in German from an alpha-3 or alpha-2 code', () => {
    expect(countryName('DEU', 'de-DE')).toBe('Deutschland');
    expect(countryName('DE', 'de-DE')).toBe('Deutschland');
    expect(countryName('aut', 'de-DE')).toBe('Österreich');
    expect(countryName('GBR', 'de-DE')).toBe('Vereinigtes Königreich');
    // An alpha-3 code outside the service's table has no alpha-2 to name it by.
    expect(countryName('JPN', 'de-DE')).toBe('JPN');
  });

  it('maps text to what the standard PDF fonts can show', () => {
    expect(toWinAnsi('Grüße – 5 €')).toBe('Grüße – 5 €');
    expect(toWinAnsi('Łódź ő 寿司 😀\tx\n')).toBe('?ódz o ?? ? x ');
  });
});

describe('renderReceiptPdf', () => {
  it('produces a one-page PDF, byte-identical for the same receipt', async () => {
    const pdf = await renderReceiptPdf(sampleReceipt());
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect((await renderReceiptPdf(sampleReceipt())).equals(pdf)).toBe(true);
  });

  it('contains issuer, totals and every § 6 KassenSichV field as text', async (context) => {
    requireTools(context, 'pdfinfo', 'pdftotext');
    const doc = sampleReceipt();
    const pdf = await renderReceiptPdf(doc);
    expect(pdfPages(pdf)).toBe(1);
    const text = pdfText(pdf);
    const compact = text.replace(/\s+/g, '');
    for (const expected of [
      'Bäckerei Müller GmbH',
      'Kastanienallee 12',
      '10435 Berlin',
      'Deutschland',
      'USt-IdNr.: DE123456789',
      '23.08.2021 16:36:33 MESZ',
      'Cappuccino groß',
      '2 x 3,60 EUR',
      '-1,68 EUR',
      '22,42 EUR',
      '20,69 EUR',
      '1,73 EUR',
      'A 19 %',
      'Karte',
      'Kassenbeleg-V1',
      'ecdsa-plain-SHA256',
      'unixTime',
      '2021-08-23T14:36:27.000Z',
      '2021-08-23T14:36:33.000Z',
    ]) {
      expect(text).toContain(expected);
    }
    // Long machine values wrap inside the 80 mm column, so compare without whitespace.
    const fiscal = FISCAL_RECORD;
    for (const value of [TSE_SERIAL, fiscal.pos_client_serial_number, fiscal.end_event.signature, fiscal.end_event.public_key]) {
      expect(compact).toContain(value.replace(/\s+/g, ''));
    }
    expect(text).toMatch(/Transaktionsnummer[\s\S]*Signaturzähler/);
    // The 0 % row holds the gift card less its discount share, and the tip.
    const rows = pdfText(pdf, true).replace(/[ \t]+/g, ' ');
    expect(rows).toContain('0% 5,64 EUR 0,00 EUR 5,64 EUR');
    expect(rows).toContain('Gesamt 20,69 EUR 1,73 EUR 22,42 EUR');
  });

  it('prints a QR code that decodes to exactly qrData', async (context) => {
    requireTools(context, 'pdftoppm', 'zbarimg');
    const pdf = await renderReceiptPdf(sampleReceipt());
    const prefix = join(workDir, 'page');
    execFileSync('pdftoppm', ['-png', '-r', '150', '-singlefile', writeTemp('pdf', pdf), prefix]);
    expect(decodeQr(`${prefix}.png`)).toEqual([QR_DATA]);
  });

  it('renders without fiscal data and survives text outside WinAnsi', async (context) => {
    requireTools(context, 'pdftotext');
    const doc = sampleReceipt({
      fiscal: null,
      operationType: 'return',
      issuer: { ...sampleReceipt().issuer, legalName: 'Łódź Sushi 寿司 😀' },
    });
    const pdf = await renderReceiptPdf(doc);
    const text = pdfText(pdf);
    expect(text).toContain('?ódz Sushi ?? ?');
    expect(text).toContain('Rückgabe');
    expect(text).not.toContain('TSE');
  });

  it('splits a receipt too long for one page into A4-high pages', async (context) => {
    requireTools(context, 'pdfinfo', 'pdftotext');
    const line = sampleReceipt().lines[0];
    const pdf = await renderReceiptPdf(sampleReceipt({ lines: Array.from({ length: 1000 }, () => line) }));
    const pages = pdfPages(pdf);
    expect(pages).toBeGreaterThan(1);
    expect(pdfText(pdf)).toContain('Kassenbeleg-V1');
  });
});

describe('renderReceiptHtml', () => {
  it('is a self-contained German page with the fiscal fields', async () => {
    const doc = sampleReceipt();
    const page = await renderReceiptHtml(doc);
    expect(page.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(page).toContain('<html lang="de">');
    expect(page).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    const fiscal = FISCAL_RECORD;
    for (const value of [
      TSE_SERIAL,
      fiscal.pos_client_serial_number,
      String(fiscal.end_event.transaction_counter),
      String(fiscal.end_event.signature_counter),
      fiscal.start_event.signed_at,
      fiscal.end_event.signed_at,
      fiscal.signature_algorithm,
      fiscal.time_format,
      fiscal.end_event.signature,
      fiscal.end_event.public_key,
      fiscal.end_event.process_type,
      '22,42 EUR',
    ]) {
      expect(page).toContain(value);
    }
    // The only URL is the SVG namespace; nothing is fetched.
    expect(page.match(/https?:\/\/[^"\s]*/g)).toEqual(['http://www.w3.org/2000/svg']);
    expect(page).not.toMatch(/<(?:link|script|img|iframe)\b|\b(?:src|href)=|url\(/i);
  });

  it('escapes every user-supplied string', async () => {
    const evil = '<script>alert("x")</script>';
    const base = sampleReceipt();
    const page = await renderReceiptHtml(
      sampleReceipt({
        documentNumber: evil,
        currency: '<b>',
        issuer: { ...base.issuer, legalName: evil, registerName: `"'><img src=x onerror=alert(1)>` },
        lines: [{ ...base.lines[0], description: evil }],
        cartDiscounts: [{ description: evil, amount: '1' }],
        payments: [{ method: evil, amount: '1' }],
      }),
    );
    expect(page).not.toContain('<script');
    expect(page).not.toContain('<img');
    expect(page).not.toContain('<b>');
    expect(page).toContain('<title>Beleg &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; – &lt;script&gt;');
    expect(page).toContain('&quot;&#39;&gt;&lt;img src=x onerror=alert(1)&gt;');
  });

  const pageQr = async (): Promise<boolean[][]> =>
    svgModules(/<svg[\s\S]*?<\/svg>/.exec(await renderReceiptHtml(sampleReceipt()))?.[0] ?? '');

  it('embeds the SVG QR symbol qrcode builds for qrData', async () => {
    const grid = await pageQr();
    // Inside a 4-module quiet zone.
    const { modules } = QRCode.create(QR_DATA, { errorCorrectionLevel: 'M' });
    expect(grid.length).toBe(modules.size + 8);
    for (let row = 0; row < modules.size; row += 1) {
      for (let col = 0; col < modules.size; col += 1) {
        expect(grid[row + 4][col + 4]).toBe(modules.get(row, col) === 1);
      }
    }
  });

  it('embeds a QR code that decodes to exactly qrData', async (context) => {
    requireTools(context, 'zbarimg');
    expect(decodeQr(writeTemp('pgm', toPgm(await pageQr(), 4)))).toEqual([QR_DATA]);
  });

  it('renders without fiscal data', async () => {
    const page = await renderReceiptHtml(sampleReceipt({ fiscal: null }));
    expect(page).toContain('Bäckerei Müller GmbH');
    expect(page).not.toContain('<svg');
    expect(page).not.toContain('TSE');
  });
});
