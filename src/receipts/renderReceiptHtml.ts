import QRCode from 'qrcode';
import type { ReceiptDocument } from './receiptDocument.js';
import { presentReceipt, QR_ERROR_CORRECTION, QR_QUIET_ZONE, type ReceiptRow, type ReceiptTaxRow } from './receiptFormat.js';

/** Markup that is already safe; anything else interpolated into `html` is escaped. */
class SafeHtml {
  constructor(readonly markup: string) {}
}

type HtmlValue = SafeHtml | string | number | null | undefined | readonly HtmlValue[];

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char]);
}

function toMarkup(value: HtmlValue): string {
  if (value instanceof SafeHtml) return value.markup;
  if (Array.isArray(value)) return value.map(toMarkup).join('');
  if (value === null || value === undefined) return '';
  return escapeHtml(String(value));
}

/** Escaping by default, so no receipt value can reach the page as markup. */
function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  return new SafeHtml(strings.reduce((out, text, index) => out + toMarkup(values[index - 1]) + text));
}

const CSS = `
*{box-sizing:border-box}
body{margin:0;padding:1rem .75rem;background:#eceff1;color:#111;font:15px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif}
.receipt{max-width:26rem;margin:0 auto;padding:1.25rem 1rem 1.5rem;background:#fff;box-shadow:0 1px 4px rgba(0,0,0,.15)}
.receipt>*+*{margin-top:.75rem;padding-top:.75rem;border-top:1px dashed #999}
h1{margin:0 0 .25rem;font-size:1.25rem}
h2{margin:0 0 .25rem;font-size:.95rem}
p,dl,figure{margin:0}
.issuer{text-align:center}
.row{display:flex;justify-content:space-between;gap:1rem}
dt{min-width:0;overflow-wrap:anywhere}
dd{margin:0;text-align:right}
.num,.row dd{white-space:nowrap;font-variant-numeric:tabular-nums}
.total{font-size:1.15rem;font-weight:700}
.payments{margin-top:.5rem}
table{width:100%;border-collapse:collapse}
td,th{padding:.15rem 0;vertical-align:top}
.num{text-align:right}
.detail{display:block;color:#555;font-size:.85em}
.items td:first-child{padding-right:.5rem;overflow-wrap:anywhere}
.key{width:1.5em;padding-left:.35rem;text-align:right;white-space:nowrap;color:#555}
.title{margin-top:.5rem;font-size:1rem}
.items+dl{margin-top:.25rem}
.taxes{font-size:.85rem}
.taxes th{font-weight:600;text-align:right}
.taxes th:first-child,.taxes td:first-child{text-align:left}
.taxes td.num{white-space:normal}
.taxes tfoot td{font-weight:600;border-top:1px solid #ccc}
.fiscal dl{font-size:.85rem}
.stack{padding:.15rem 0}
.stack dt{color:#555}
.stack dd{text-align:left}
.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.8rem;overflow-wrap:anywhere}
.qr{max-width:16rem;margin:1rem auto 0;text-align:center}
.qr svg{display:block;width:100%;height:auto}
figcaption{color:#555;font-size:.8rem}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
@media print{body{padding:0;background:#fff}.receipt{max-width:none;box-shadow:none}}
`;

function rows(items: readonly ReceiptRow[], className?: string): SafeHtml {
  return html`<dl${className ? html` class="${className}"` : null}>${items.map(
    ({ label, value }) => html`<div class="row"><dt>${label}</dt><dd>${value}</dd></div>`,
  )}</dl>`;
}

function taxCells(row: ReceiptTaxRow, rateLabel: string): SafeHtml {
  return html`<td>${rateLabel}</td><td class="num">${row.net}</td><td class="num">${row.tax}</td><td class="num">${row.gross}</td>`;
}

/** Renders the receipt as a self-contained HTML page (inline CSS and SVG, nothing loaded). */
export async function renderReceiptHtml(doc: ReceiptDocument): Promise<string> {
  const view = presentReceipt(doc);
  const { fiscal, vatTable } = view;
  const { sections } = view.labels;
  const qrSvg = fiscal?.qrData
    ? await QRCode.toString(fiscal.qrData, {
        type: 'svg',
        errorCorrectionLevel: QR_ERROR_CORRECTION,
        margin: QR_QUIET_ZONE,
      })
    : null;

  const page = html`<!DOCTYPE html>
<html lang="${view.language.split('-')[0]}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'">
<meta name="robots" content="noindex, nofollow">
<title>${view.title} – ${view.issuerName}</title>
<style>${new SafeHtml(CSS)}</style>
</head>
<body>
<main class="receipt">
<header class="issuer">
<h1>${view.issuerName}</h1>
${view.issuerLines.map((line) => html`<p>${line}</p>`)}
${view.documentTitle.length > 0 ? html`<h2 class="title">${view.documentTitle.map((line, index) => html`${index > 0 ? html`<br>` : null}${line}`)}</h2>\n` : null}</header>
<section aria-label="${sections.meta}">${rows(view.meta)}</section>
<section aria-label="${sections.items}">
<table class="items">
<thead class="sr"><tr>${view.labels.itemColumns.map((column) => html`<th scope="col">${column}</th>`)}</tr></thead>
<tbody>
${view.items.map(
  (item) =>
    html`<tr><td>${item.description}<span class="detail">${item.detail}</span></td><td class="num">${item.amount}</td><td class="key">${item.tax}</td></tr>\n`,
)}</tbody>
</table>
${view.discounts.length > 0 ? rows(view.discounts) : null}
</section>
<section aria-label="${sections.total}">
${rows([view.total], 'total')}
${view.taxIncluded ? html`${rows([view.taxIncluded])}\n` : null}${view.tip ? rows([view.tip]) : null}
${view.payments.length > 0 ? html`<div class="payments">${view.labels.payments ? html`<h2>${view.labels.payments}</h2>` : null}${rows(view.payments)}</div>` : null}
</section>
${
  vatTable
    ? html`<section aria-label="${sections.taxes}">
<table class="taxes">
<thead><tr>${vatTable.columns.map((column) => html`<th scope="col">${column}</th>`)}</tr></thead>
<tbody>
${vatTable.rows.map((row) => html`<tr>${taxCells(row, `${row.key} ${row.rate}`)}</tr>\n`)}</tbody>
<tfoot><tr>${taxCells(vatTable.total, vatTable.total.rate)}</tr></tfoot>
</table>
</section>
`
    : null
}${
  fiscal
    ? html`<section class="fiscal">
${fiscal.heading ? html`<h2>${fiscal.heading}</h2>\n` : null}<dl>
${fiscal.rows.map((row) =>
  row.mono
    ? html`<div class="stack"><dt>${row.label}</dt><dd class="mono">${row.value}</dd></div>\n`
    : html`<div class="row"><dt>${row.label}</dt><dd>${row.value}</dd></div>\n`,
)}</dl>
${qrSvg ? html`<figure class="qr">
${new SafeHtml(qrSvg)}<figcaption>${fiscal.qrCaption ?? ''}</figcaption>
</figure>
` : ''}</section>`
    : null
}
</main>
</body>
</html>
`;
  return page.markup;
}
