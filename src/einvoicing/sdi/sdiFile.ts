import { XMLParser } from 'fast-xml-parser';
import { signedContentOf } from '../cades/signedContent.js';
import type { TransmittedFile } from '../invoiceChannel.js';

/** What the SdI reads from a FatturaPA file to route it and check its parties. */
export interface SdiFileFacts {
  /** FPA12 (to a public administration) or FPR12. */
  format: string;
  codiceDestinatario: string;
  pecDestinatario: string | null;
  /** The buyer's IdFiscaleIVA, when it has one. */
  buyerVatId: { country: string; code: string } | null;
}

const parser = new XMLParser({ ignoreAttributes: false, removeNSPrefix: true, parseTagValue: false, trimValues: true });

type Node = Record<string, unknown> | undefined;
const child = (node: Node, name: string): Node => node?.[name] as Node;
const text = (node: Node, name: string): string | null => {
  const value = node?.[name];
  return typeof value === 'string' ? value : null;
};

/** Reads a FatturaPA file as the SdI receives it, the XML inside a signed `.p7m` one; throws when it is not one. */
export function readSdiFile(file: TransmittedFile): SdiFileFacts {
  const xml = file.fileName.endsWith('.p7m') ? signedContentOf(file.document) : Buffer.from(file.document);
  const root = child(parser.parse(xml.toString('utf8')) as Node, 'FatturaElettronica');
  const header = child(root, 'FatturaElettronicaHeader');
  const transmission = child(header, 'DatiTrasmissione');
  const format = (root?.['@_versione'] as string | undefined) ?? null;
  const codiceDestinatario = text(transmission, 'CodiceDestinatario');
  if (!format || !codiceDestinatario) throw new Error('not a FatturaPA document');
  const buyerId = child(child(child(header, 'CessionarioCommittente'), 'DatiAnagrafici'), 'IdFiscaleIVA');
  const country = text(buyerId, 'IdPaese');
  const code = text(buyerId, 'IdCodice');
  return {
    format,
    codiceDestinatario,
    pecDestinatario: text(transmission, 'PECDestinatario'),
    buyerVatId: country && code ? { country, code } : null,
  };
}
