import { GDPDU_DTD_FILE } from './gdpduDtd.js';
import type { ColumnSpec, TableSpec } from './tables.js';

export interface DataSupplier {
  name: string;
  location: string;
  comment: string;
}

const escapeXml = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('\r', '&#xD;');

const element = (name: string, text: string) => (text === '' ? `<${name} />` : `<${name}>${escapeXml(text)}</${name}>`);

function column(spec: ColumnSpec): string[] {
  const type =
    spec.type === 'AlphaNumeric'
      ? ['<AlphaNumeric />', element('MaxLength', String(spec.maxLength))]
      : spec.accuracy > 0
        ? ['<Numeric>', `  ${element('Accuracy', String(spec.accuracy))}`, '</Numeric>']
        : ['<Numeric />'];
  return ['<VariableColumn>', ...[element('Name', spec.name), element('Description', spec.description), ...type].map((line) => `  ${line}`), '</VariableColumn>'];
}

function table(spec: TableSpec): string[] {
  const body = [
    element('URL', spec.file),
    element('Name', spec.name),
    element('Description', spec.file),
    '<UTF8 />',
    element('DecimalSymbol', ','),
    element('DigitGroupingSymbol', '.'),
    '<Range>',
    `  ${element('From', '2')}`,
    '</Range>',
    '<VariableLength>',
    ...[element('ColumnDelimiter', ';'), '<RecordDelimiter>&#xD;&#xA;</RecordDelimiter>', element('TextEncapsulator', '"'), ...spec.columns.flatMap(column)].map(
      (line) => `  ${line}`,
    ),
    '</VariableLength>',
  ];
  return ['<Table>', ...body.map((line) => `  ${line}`), '</Table>'];
}

/**
 * index.xml in the structure of the published DSFinV-K file (reference §2.1):
 * UTF-8 with a BOM, CRLF, only VariableColumn elements of types AlphaNumeric
 * (with MaxLength) and Numeric (with Accuracy), timestamps as AlphaNumeric(30).
 * Like the published file it declares no VariablePrimaryKey or ForeignKey;
 * the keys are the K3 columns and BON_ID / POS_ZEILE (reference §3).
 */
export function buildIndexXml(tables: readonly TableSpec[], supplier: DataSupplier): string {
  const lines = [
    '<?xml version="1.0" encoding="utf-8"?>',
    `<!DOCTYPE DataSet SYSTEM "${GDPDU_DTD_FILE}">`,
    '<DataSet>',
    `  ${element('Version', '1.0')}`,
    '  <DataSupplier>',
    `    ${element('Name', supplier.name)}`,
    `    ${element('Location', supplier.location)}`,
    `    ${element('Comment', supplier.comment)}`,
    '  </DataSupplier>',
    '  <Media>',
    `    ${element('Name', 'CD Nummer 1')}`,
    ...tables.flatMap(table).map((line) => `    ${line}`),
    '  </Media>',
    '</DataSet>',
  ];
  return `\uFEFF${lines.join('\r\n')}\r\n`;
}
