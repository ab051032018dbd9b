import { DOMParser, onErrorStopParsing, type Element } from '@xmldom/xmldom';

const ELEMENT_NODE = 1;

/** The document element of `xml`, namespace-aware; throws when the text is not well-formed XML. */
export function documentElementOf(xml: string): Element {
  const root = new DOMParser({ onError: onErrorStopParsing }).parseFromString(xml, 'text/xml').documentElement;
  if (!root) throw new Error('the document has no root element');
  return root;
}

/** The element children of `element`, in document order. */
export function elementChildren(element: Element): Element[] {
  const children: Element[] = [];
  for (let node = element.firstChild; node; node = node.nextSibling) {
    if (node.nodeType === ELEMENT_NODE) children.push(node as Element);
  }
  return children;
}

/**
 * The first child of `element` with this local name. The SdI's schemas leave their local elements
 * unqualified (no elementFormDefault), so a child is matched by its local name alone.
 */
export function childElement(element: Element, localName: string): Element | null {
  return elementChildren(element).find((child) => child.localName === localName) ?? null;
}

/** The trimmed text of the child named `localName`, or null when there is none or it is empty. */
export function childText(element: Element, localName: string): string | null {
  const text = childElement(element, localName)?.textContent?.trim();
  return text ? text : null;
}
