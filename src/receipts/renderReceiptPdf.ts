import PDFDocument from 'pdfkit';
import QRCode from 'qrcode';
import type { ReceiptDocument } from './receiptDocument.js';
import { presentReceipt, QR_ERROR_CORRECTION, QR_QUIET_ZONE, type ReceiptRow, type ReceiptView } from './receiptFormat.js';

const MM = 72 / 25.4;
/** 80 mm roll paper; the page is as tall as the content. */
const PAGE_WIDTH = 80 * MM;
const MARGIN_X = 4 * MM;
const MARGIN_Y = 5 * MM;
const CONTENT_WIDTH = PAGE_WIDTH - 2 * MARGIN_X;
const GAP = 4;
const TAX_KEY_WIDTH = 10;
const QR_SIDE = 50 * MM;
/** Largest page most viewers accept (200 in); longer receipts are split into A4-high pages. */
const MAX_PAGE_HEIGHT = 14_400;
const SPLIT_PAGE_HEIGHT = 297 * MM;

interface Font {
  name: 'Helvetica' | 'Helvetica-Bold' | 'Courier';
  size: number;
}
const BODY: Font = { name: 'Helvetica', size: 8 };
const BOLD: Font = { name: 'Helvetica-Bold', size: 8 };
const SMALL: Font = { name: 'Helvetica', size: 7 };
const SMALL_BOLD: Font = { name: 'Helvetica-Bold', size: 7 };
const MONO: Font = { name: 'Courier', size: 7 };
const NAME: Font = { name: 'Helvetica-Bold', size: 11 };
const TOTAL: Font = { name: 'Helvetica-Bold', size: 10 };

interface Cell {
  text: string;
  width: number;
  align?: 'left' | 'right' | 'center';
}

// Characters WinAnsiEncoding has besides Latin-1 (its 0x80-0x9F range).
const WIN_ANSI_EXTRA = new Set('€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ');

function isWinAnsi(char: string): boolean {
  const code = char.codePointAt(0) ?? 0;
  return (code >= 0x20 && code <= 0x7e) || (code >= 0xa0 && code <= 0xff) || WIN_ANSI_EXTRA.has(char);
}

/**
 * The standard PDF fonts only cover WinAnsi; pdfkit emits broken text for
 * anything else. Accented letters outside it lose their accent ("ő" -> "o"),
 * control characters become spaces, the rest becomes "?".
 */
export function toWinAnsi(text: string): string {
  let out = '';
  for (const char of text.normalize('NFC')) {
    if (isWinAnsi(char)) {
      out += char;
    } else if (/\p{Cc}/u.test(char)) {
      out += ' ';
    } else {
      const base = char.normalize('NFKD').replace(/\p{M}/gu, '');
      out += base !== '' && [...base].every(isWinAnsi) ? base : '?';
    }
  }
  return out;
}

class ReceiptLayout {
  y = MARGIN_Y;
  pages = 1;

  constructor(
    private readonly pdf: PDFKit.PDFDocument,
    private readonly pageHeight: number,
  ) {}

  private use(font: Font): PDFKit.PDFDocument {
    return this.pdf.font(font.name).fontSize(font.size);
  }

  /** With 1 pt of slack: pdfkit wraps text that exactly fills its box. */
  widthOf(text: string, font: Font): number {
    return this.use(font).widthOfString(toWinAnsi(text)) + 1;
  }

  private heightOf(cell: Cell, font: Font): number {
    return this.use(font).heightOfString(toWinAnsi(cell.text), { width: cell.width });
  }

  /** Starts a new page unless `height` more points fit on this one. */
  ensure(height: number): void {
    if (this.y + height > this.pageHeight - MARGIN_Y) {
      this.pdf.addPage(pageOptions(this.pageHeight));
      this.pages += 1;
      this.y = MARGIN_Y;
    }
  }

  cellsHeight(cells: Cell[], font: Font = BODY): number {
    return Math.max(...cells.map((cell) => this.heightOf(cell, font)));
  }

  /** Cells side by side from the left margin; the row is as tall as its tallest cell. */
  cells(cells: Cell[], font: Font = BODY): void {
    const height = this.cellsHeight(cells, font);
    this.ensure(height);
    let x = MARGIN_X;
    for (const cell of cells) {
      this.use(font).text(toWinAnsi(cell.text), x, this.y, { width: cell.width, align: cell.align ?? 'left' });
      x += cell.width;
    }
    this.y += height;
  }

  line(text: string, font: Font = BODY, align: Cell['align'] = 'left'): void {
    this.cells([{ text, width: CONTENT_WIDTH, align }], font);
  }

  /** Label left, value right; stacked when the value leaves too little room for the label. */
  row({ label, value }: ReceiptRow, font: Font = BODY): void {
    const valueWidth = Math.min(this.widthOf(value, font), CONTENT_WIDTH);
    const labelWidth = CONTENT_WIDTH - valueWidth - GAP;
    if (labelWidth >= Math.min(this.widthOf(label, font), CONTENT_WIDTH * 0.4)) {
      this.cells(
        [
          { text: label, width: labelWidth },
          { text: value, width: valueWidth + GAP, align: 'right' },
        ],
        font,
      );
    } else {
      this.line(label, font);
      this.line(value, font, 'right');
    }
  }

  space(points: number): void {
    this.y += points;
  }

  rule(): void {
    this.ensure(8);
    const y = this.y + 4;
    this.pdf
      .moveTo(MARGIN_X, y)
      .lineTo(MARGIN_X + CONTENT_WIDTH, y)
      .lineWidth(0.5)
      .dash(2, { space: 1.5 })
      .stroke()
      .undash();
    this.y += 8;
  }

  /** Draws the modules as one vector path: sharp at any zoom or printer resolution. */
  qr(data: string): void {
    const { modules } = QRCode.create(data, { errorCorrectionLevel: QR_ERROR_CORRECTION });
    const side = Math.min(QR_SIDE, CONTENT_WIDTH);
    const unit = side / (modules.size + 2 * QR_QUIET_ZONE);
    this.ensure(side);
    const left = MARGIN_X + (CONTENT_WIDTH - side) / 2 + QR_QUIET_ZONE * unit;
    const top = this.y + QR_QUIET_ZONE * unit;
    for (let row = 0; row < modules.size; row += 1) {
      let col = 0;
      while (col < modules.size) {
        if (!modules.get(row, col)) {
          col += 1;
          continue;
        }
        const start = col;
        while (col < modules.size && modules.get(row, col)) col += 1;
        this.pdf.rect(left + start * unit, top + row * unit, (col - start) * unit, unit);
      }
    }
    this.pdf.fill('black');
    this.y += side;
  }
}

function pageOptions(height: number): PDFKit.PDFDocumentOptions {
  return {
    size: [PAGE_WIDTH, height],
    margins: { top: MARGIN_Y, bottom: MARGIN_Y, left: MARGIN_X, right: MARGIN_X },
  };
}

function drawReceipt(layout: ReceiptLayout, view: ReceiptView): void {
  layout.line(view.issuerName, NAME, 'center');
  layout.space(2);
  for (const text of view.issuerLines) layout.line(text, BODY, 'center');
  if (view.documentTitle.length > 0) {
    layout.space(4);
    for (const text of view.documentTitle) layout.line(text, BOLD, 'center');
  }
  layout.rule();

  for (const row of view.meta) layout.row(row);
  layout.rule();

  // A letter key fits the narrow column; a rate or natura code ("22%", "N2.1") gets what it needs and a gap.
  const widestTax = Math.max(0, ...view.items.map((item) => layout.widthOf(item.tax, BODY)));
  const taxWidth = widestTax <= TAX_KEY_WIDTH ? TAX_KEY_WIDTH : widestTax + GAP;
  for (const item of view.items) {
    const amountWidth = Math.min(CONTENT_WIDTH / 2, layout.widthOf(item.amount, BODY));
    const main: Cell[] = [
      { text: item.description, width: CONTENT_WIDTH - amountWidth - taxWidth },
      { text: item.amount, width: amountWidth, align: 'right' },
      { text: item.tax, width: taxWidth, align: 'right' },
    ];
    const detail: Cell[] = [{ text: `  ${item.detail}`, width: CONTENT_WIDTH }];
    // Keeps a line and its quantity together across a page break.
    layout.ensure(layout.cellsHeight(main) + layout.cellsHeight(detail, SMALL));
    layout.cells(main);
    layout.cells(detail, SMALL);
    layout.space(2);
  }
  for (const row of view.discounts) layout.row(row);
  layout.rule();

  layout.row(view.total, TOTAL);
  if (view.taxIncluded) layout.row(view.taxIncluded);
  if (view.tip) layout.row(view.tip);
  if (view.payments.length > 0) {
    layout.space(4);
    if (view.labels.payments) layout.line(view.labels.payments, BOLD);
    for (const row of view.payments) layout.row(row);
  }

  if (view.vatTable) {
    layout.rule();
    const rateWidth = CONTENT_WIDTH * 0.2;
    const amountWidth = (CONTENT_WIDTH - rateWidth) / 3;
    const taxRow = (cells: string[], font: Font): void =>
      layout.cells(
        cells.map((text, index) =>
          index === 0 ? { text, width: rateWidth } : { text, width: amountWidth, align: 'right' as const },
        ),
        font,
      );
    taxRow(view.vatTable.columns, SMALL_BOLD);
    for (const tax of view.vatTable.rows) taxRow([`${tax.key} ${tax.rate}`, tax.net, tax.tax, tax.gross], SMALL);
    const total = view.vatTable.total;
    taxRow([total.rate, total.net, total.tax, total.gross], SMALL_BOLD);
  }

  if (view.fiscal) {
    layout.rule();
    if (view.fiscal.heading) {
      layout.line(view.fiscal.heading, BOLD, 'center');
      layout.space(2);
    }
    for (const row of view.fiscal.rows) {
      if (row.mono) {
        const value: Cell[] = [{ text: row.value, width: CONTENT_WIDTH }];
        layout.ensure(layout.cellsHeight([{ text: row.label, width: CONTENT_WIDTH }], SMALL) + layout.cellsHeight(value, MONO));
        layout.line(row.label, SMALL);
        layout.line(row.value, MONO);
        layout.space(1);
      } else {
        layout.row(row, SMALL);
      }
    }
    if (view.fiscal.qrData) {
      layout.space(4);
      layout.qr(view.fiscal.qrData);
    }
  }
}

function createPdf(doc: ReceiptDocument, view: ReceiptView, pageHeight: number): PDFKit.PDFDocument {
  return new PDFDocument({
    ...pageOptions(pageHeight),
    // A fixed creation date keeps the output byte-identical for the same receipt.
    info: { Title: view.title, Author: doc.issuer.legalName, CreationDate: doc.issuedAt },
    lang: view.language,
    displayTitle: true,
  });
}

/** Renders the receipt as a PDF on 80 mm wide roll paper. */
export async function renderReceiptPdf(doc: ReceiptDocument): Promise<Buffer> {
  const view = presentReceipt(doc);

  // pdfkit fixes a page's size when the page starts, so a first, discarded
  // pass on a maximal page measures how tall the receipt is.
  const probe = new ReceiptLayout(createPdf(doc, view, MAX_PAGE_HEIGHT), MAX_PAGE_HEIGHT);
  drawReceipt(probe, view);
  // Slack so rounding in pdfkit's own overflow check never starts a second page.
  const pageHeight = probe.pages === 1 ? Math.ceil(probe.y + MARGIN_Y + 2) : SPLIT_PAGE_HEIGHT;

  const pdf = createPdf(doc, view, pageHeight);
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    pdf.on('data', (chunk: Buffer) => chunks.push(chunk));
    pdf.on('end', () => resolve(Buffer.concat(chunks)));
    pdf.on('error', reject);
  });
  drawReceipt(new ReceiptLayout(pdf, pageHeight), view);
  pdf.end();
  return done;
}
