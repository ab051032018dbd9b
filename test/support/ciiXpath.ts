// XPath over a CII document (xmldom + the xpath package). The package is loaded untyped on
// purpose: its declarations reference the DOM lib, which would leak into the whole
// compilation and change the types every other file sees (Node, Headers, Crypto).
import { createRequire } from 'node:module';
import { DOMParser } from '@xmldom/xmldom';

/** A node as xmldom gives it; only the DOM properties the tests read. */
export interface XmlNode {
  textContent: string | null;
  nodeValue: string | null;
  nodeName: string;
  localName: string;
}

type Select = (expression: string, node: unknown) => XmlNode[];

const xpath = createRequire(import.meta.url)('xpath') as { useNamespaces(namespaces: Record<string, string>): Select };

/** Evaluates against the rsm, ram, udt and qdt prefixes of the CII D16B. */
export const selectCii: Select = xpath.useNamespaces({
  rsm: 'urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100',
  ram: 'urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100',
  udt: 'urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100',
  qdt: 'urn:un:unece:uncefact:data:standard:QualifiedDataType:100',
});

export function parseXml(xml: string): unknown {
  return new DOMParser().parseFromString(xml, 'text/xml');
}
