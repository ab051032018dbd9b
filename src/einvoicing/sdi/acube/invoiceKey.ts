import { XMLParser } from 'fast-xml-parser';
import { signedContentOf } from '../../cades/signedContent.js';
import type { TransmittedFile } from '../../invoiceChannel.js';

/** What A-Cube's invoice list filters on to find a file it already has: the seller's partita IVA and the invoice's number and date. */
export interface AcubeInvoiceKey {
  senderVatNumber: string;
  invoiceNumber: string;
  invoiceDate: string;
}

const parser = new XMLParser({ ignoreAttributes: true, removeNSPrefix: true, parseTagValue: false, trimValues: true });

type Node = Record<string, unknown> | undefined;
const path = (node: Node, ...names: string[]): Node => names.reduce<Node>((at, name) => at?.[name] as Node, node);
const textAt = (node: Node, name: string): string | null => (typeof node?.[name] === 'string' ? (node[name] as string) : null);

/** Reads the key from a FatturaPA file (the XML inside a signed `.p7m`); throws when it is not one with a single body. */
export function acubeInvoiceKeyOf(file: TransmittedFile): AcubeInvoiceKey {
  const xml = file.fileName.endsWith('.p7m') ? signedContentOf(file.document) : Buffer.from(file.document);
  const root = path(parser.parse(xml.toString('utf8')) as Node, 'FatturaElettronica');
  const seller = path(root, 'FatturaElettronicaHeader', 'CedentePrestatore', 'DatiAnagrafici', 'IdFiscaleIVA');
  const document = path(root, 'FatturaElettronicaBody', 'DatiGenerali', 'DatiGeneraliDocumento');
  const senderVatNumber = textAt(seller, 'IdCodice');
  const invoiceNumber = textAt(document, 'Numero');
  const invoiceDate = textAt(document, 'Data');
  if (!senderVatNumber || !invoiceNumber || !invoiceDate) throw new Error('not a FatturaPA document with one invoice');
  return { senderVatNumber, invoiceNumber, invoiceDate };
}
