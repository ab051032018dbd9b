import PDFDocument from 'pdfkit';
import { Decimal } from 'decimal.js';
import { currencyExponent, fromMinorUnits } from '../../domain/money.js';
import { toWinAnsi } from '../../receipts/renderReceiptPdf.js';
import type { InvoiceContent, InvoiceParty } from '../invoiceDocument.js';
import { INVOICE_PDF_LABELS, type InvoicePdfLabels } from './invoicePdfLabels.js';

/** What the PDF shows of an invoice: its content, number, and where its electronic document went. */
export interface InvoicePdfInput {
  language: 'it' | 'de';
  content: InvoiceContent;
  /** null for a draft, which the PDF marks as not a fiscal document. */
  invoiceNumber: string | null;
  originalInvoiceNumber: string | null;
  fileName: string | null;
  authorityIdentifier: string | null;
  chainHash: string | null;
  /** The PDF's creation date (fixed, so the same invoice renders byte-identical). */
  createdAt: Date;
}

const A4: [number, number] = [595.28, 841.89];
const MARGIN = 50;
const WIDTH = A4[0] - 2 * MARGIN;
const BOTTOM = A4[1] - MARGIN;

/** 1234567 minor units of EUR -> "12.345,67 EUR" (Italian and German write amounts alike). */
function money(minor: number, currency: string): string {
  const [whole, fraction] = fromMinorUnits(minor, currency).abs().toFixed(currencyExponent(currency)).split('.');
  const places = fraction === undefined ? '' : `,${fraction}`;
  return `${minor < 0 ? '-' : ''}${whole.replace(/\B(?=(\d{3})+(?!\d))/g, '.')}${places} ${currency}`;
}

const percent = (rate: string) => `${new Decimal(rate).times(100).toFixed()} %`;
const decimalComma = (value: string) => value.replace('.', ',');

interface Column {
  text: string;
  width: number;
  align?: 'left' | 'right';
}

class Page {
  y = MARGIN;

  constructor(private readonly pdf: PDFKit.PDFDocument) {}

  private room(height: number): void {
    if (this.y + height <= BOTTOM) return;
    this.pdf.addPage({ size: A4, margin: MARGIN });
    this.y = MARGIN;
  }

  text(text: string, options: { size?: number; bold?: boolean; x?: number; width?: number; gap?: number } = {}): void {
    const width = options.width ?? WIDTH;
    this.pdf.font(options.bold ? 'Helvetica-Bold' : 'Helvetica').fontSize(options.size ?? 9);
    const height = this.pdf.heightOfString(toWinAnsi(text), { width });
    this.room(height);
    this.pdf.text(toWinAnsi(text), MARGIN + (options.x ?? 0), this.y, { width });
    this.y += height + (options.gap ?? 2);
  }

  /** Two blocks side by side, each a list of lines; the page continues below the taller one. */
  columns(left: string[], right: string[]): void {
    const half = WIDTH / 2 - 10;
    const start = this.y;
    const block = (lines: string[], x: number) => {
      this.y = start;
      lines.forEach((line, i) => this.text(line, { x, width: half, bold: i === 0 }));
      return this.y;
    };
    this.y = Math.max(block(left, 0), block(right, WIDTH / 2 + 10));
  }

  row(cells: Column[], bold = false): void {
    this.pdf.font(bold ? 'Helvetica-Bold' : 'Helvetica').fontSize(8);
    const height = Math.max(...cells.map((cell) => this.pdf.heightOfString(toWinAnsi(cell.text), { width: cell.width - 4 })));
    this.room(height + 4);
    let x = MARGIN;
    for (const cell of cells) {
      this.pdf.text(toWinAnsi(cell.text), x, this.y, { width: cell.width - 4, align: cell.align ?? 'left' });
      x += cell.width;
    }
    this.y += height + 4;
  }

  rule(): void {
    this.room(6);
    this.pdf.moveTo(MARGIN, this.y).lineTo(MARGIN + WIDTH, this.y).lineWidth(0.5).stroke();
    this.y += 4;
  }

  space(height: number): void {
    this.y += height;
  }
}

function partyLines(party: InvoiceParty, labels: InvoicePdfLabels): string[] {
  const { address } = party;
  return [
    party.legalName,
    address.line1,
    ...(address.line2 ? [address.line2] : []),
    `${address.postalCode} ${address.city}${address.state ? ` (${address.state})` : ''} - ${address.country}`,
    ...(party.vatId ? [`${labels.vatId} ${party.vatId}`] : []),
    ...(party.taxCode ? [`${labels.taxCode} ${party.taxCode}`] : []),
    ...(party.email ? [party.email] : []),
  ];
}

const LINE_COLUMNS = [24, 175, 50, 66, 50, 70, 60];

function drawInvoice(page: Page, input: InvoicePdfInput): void {
  const labels = INVOICE_PDF_LABELS[input.language];
  const { content } = input;
  const currency = content.currency;
  page.text(labels.title[content.documentType], { size: 18, bold: true, gap: 4 });
  if (input.invoiceNumber === null) page.text(labels.draft, { bold: true, gap: 4 });
  page.text(`${labels.number}: ${input.invoiceNumber ?? '-'}    ${labels.date}: ${content.issueDate}`, { size: 10, gap: 12 });
  page.columns([labels.seller, ...partyLines(content.seller, labels)], [labels.buyer, ...partyLines(content.buyer, labels)]);
  page.space(14);

  const headers = [labels.position, labels.description, labels.quantity, labels.unitPrice, labels.discount, labels.net, labels.vatRate];
  page.row(headers.map((text, i) => ({ text, width: LINE_COLUMNS[i], align: i >= 2 ? 'right' : 'left' })), true);
  page.rule();
  for (const line of content.lines) {
    const values = [
      String(line.position),
      line.description,
      `${decimalComma(line.quantity)}${line.unit ? ` ${line.unit}` : ''}`,
      money(line.unitPriceNet, currency),
      line.discount ? money(line.discount.amount, currency) : '',
      money(line.netAmount, currency),
      line.natureCode ? `${percent(line.vatRate)} ${line.natureCode}` : percent(line.vatRate),
    ];
    page.row(values.map((text, i) => ({ text, width: LINE_COLUMNS[i], align: i >= 2 ? 'right' : 'left' })));
  }
  page.rule();
  page.space(8);

  page.text(labels.vatSummary, { bold: true });
  const summaryColumns = [150, 120, 120];
  for (const row of content.vatBreakdown) {
    const rate = `${percent(row.vatRate)} (${row.vatCategory}${row.natureCode ? ` ${row.natureCode}` : ''})`;
    page.row([
      { text: rate, width: summaryColumns[0] },
      { text: `${labels.taxable} ${money(row.taxableAmount, currency)}`, width: summaryColumns[1], align: 'right' },
      { text: `${labels.tax} ${money(row.taxAmount, currency)}`, width: summaryColumns[2], align: 'right' },
    ]);
  }
  page.space(6);
  for (const [label, amount, bold] of [
    [labels.totalNet, content.totals.net, false],
    [labels.totalTax, content.totals.tax, false],
    [labels.totalGross, content.totals.gross, true],
  ] as const) {
    page.row([{ text: label, width: WIDTH - 130 }, { text: money(amount, currency), width: 130, align: 'right' }], bold);
  }
  page.space(10);

  const terms = content.paymentTerms;
  if (terms) {
    page.text(labels.payment, { bold: true });
    if (terms.method) page.text(terms.method);
    if (terms.iban) page.text(`${labels.iban} ${terms.iban}`);
    if (terms.dueDate) page.text(`${labels.dueDate} ${terms.dueDate}`);
    terms.installments.forEach((installment, i) => page.text(`${labels.installment} ${i + 1}: ${installment.dueDate} ${money(installment.amount, currency)}`));
    page.space(6);
  }
  const { references } = content;
  const referenceLines = [
    ...(input.originalInvoiceNumber ? [`${labels.corrects} ${input.originalInvoiceNumber}${references.originalInvoice ? ` (${references.originalInvoice.issueDate})` : ''}`] : []),
    ...(references.purchaseOrderRef ? [`${labels.purchaseOrder} ${references.purchaseOrderRef}`] : []),
    ...(references.contractRef ? [`${labels.contract} ${references.contractRef}`] : []),
    ...(references.deliveryDate ? [`${labels.deliveryDate} ${references.deliveryDate}`] : []),
    ...(content.routing.buyerReference ? [`${labels.buyerReference} ${content.routing.buyerReference}`] : []),
  ];
  referenceLines.forEach((line) => page.text(line));
  content.notes.forEach((note) => page.text(note));
  page.space(10);
  page.rule();
  if (input.fileName) page.text(`${labels.electronicDocument}: ${input.fileName}`, { size: 7 });
  if (input.authorityIdentifier) page.text(`${labels.authorityIdentifier}: ${input.authorityIdentifier}`, { size: 7 });
  if (input.chainHash) page.text(`${labels.chainHash}: ${input.chainHash}`, { size: 7 });
  page.text(labels.legalNote, { size: 7 });
}

/** A human-readable A4 PDF of an invoice, in its jurisdiction's language. */
export async function renderInvoicePdf(input: InvoicePdfInput): Promise<Buffer> {
  const labels = INVOICE_PDF_LABELS[input.language];
  const pdf = new PDFDocument({
    size: A4,
    margin: MARGIN,
    info: { Title: `${labels.title[input.content.documentType]} ${input.invoiceNumber ?? ''}`.trim(), Author: input.content.seller.legalName, CreationDate: input.createdAt },
    lang: input.language,
    displayTitle: true,
  });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    pdf.on('data', (chunk: Buffer) => chunks.push(chunk));
    pdf.on('end', () => resolve(Buffer.concat(chunks)));
    pdf.on('error', reject);
  });
  drawInvoice(new Page(pdf), input);
  pdf.end();
  return done;
}
