/** An element's content as fast-xml-parser's builder takes it: child elements by name, `@_` attributes, `#text`. */
export type XmlNode = Record<string, unknown>;
