/** One part of a multipart/related message (RFC 2387): its headers (lower-case names) and bytes. */
export interface MimePart {
  headers: Record<string, string>;
  body: Buffer;
}

/** A media type and its parameters (lower-case names, quotes removed): `multipart/related; boundary="x"`. */
export function mediaTypeOf(contentType: string): { type: string; parameters: Record<string, string> } {
  const [type = '', ...rest] = contentType.split(';');
  const parameters: Record<string, string> = {};
  // Quoted values may hold ';' (start="<a;b>"), so parameters are read one after another.
  const text = rest.join(';');
  const parameter = /\s*([^=;\s]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^;]*)\s*;?/g;
  for (let match = parameter.exec(text); match; match = parameter.exec(text)) {
    const value = match[2].trim();
    parameters[match[1].toLowerCase()] = value.startsWith('"') ? value.slice(1, -1).replace(/\\(.)/g, '$1') : value;
  }
  return { type: type.trim().toLowerCase(), parameters };
}

const CRLF = Buffer.from('\r\n');
const HEADER_END = Buffer.from('\r\n\r\n');

function headersOf(block: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of block.split(/\r\n(?![ \t])/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).replace(/\r\n[ \t]+/g, ' ').trim();
  }
  return headers;
}

/** The parts of a multipart body with this boundary, binary-safe; throws when the body holds none. */
export function multipartParts(body: Buffer, boundary: string): MimePart[] {
  const delimiter = Buffer.from(`--${boundary}`);
  const closingLine = Buffer.concat([CRLF, delimiter]);
  const parts: MimePart[] = [];
  let at = body.indexOf(delimiter);
  while (at !== -1) {
    const afterDelimiter = at + delimiter.length;
    if (body.subarray(afterDelimiter, afterDelimiter + 2).toString() === '--') break;
    const start = body.indexOf(CRLF, afterDelimiter);
    if (start === -1) break;
    const next = body.indexOf(closingLine, start);
    if (next === -1) throw new Error('a MIME part is not closed by its boundary');
    const part = body.subarray(start + CRLF.length, next);
    // A part without headers starts with the empty line that ends them.
    const bare = part.subarray(0, CRLF.length).equals(CRLF);
    const headerEnd = bare ? 0 : part.indexOf(HEADER_END);
    if (headerEnd === -1) throw new Error('a MIME part has no end of headers');
    parts.push({ headers: headersOf(part.subarray(0, headerEnd).toString('latin1')), body: part.subarray(bare ? CRLF.length : headerEnd + HEADER_END.length) });
    at = next + CRLF.length;
  }
  if (parts.length === 0) throw new Error('the multipart body has no part');
  return parts;
}

/** A Content-ID header's value without its angle brackets. */
export const contentIdOf = (value: string): string => value.trim().replace(/^</, '').replace(/>$/, '');

/** The Content-ID a `cid:` URL names (RFC 2392: percent-encoded); throws when it is no cid: URL. */
export function contentIdOfUrl(url: string): string {
  if (!url.startsWith('cid:')) throw new Error(`${url} is not a cid: URL`);
  return decodeURIComponent(url.slice('cid:'.length));
}
