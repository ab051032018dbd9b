import type { Element } from '@xmldom/xmldom';
import { contentIdOf, contentIdOfUrl, mediaTypeOf, multipartParts } from './mimeMultipart.js';
import { childText, documentElementOf, elementChildren } from './xmlElements.js';

export const SOAP_ENVELOPE_NAMESPACE = 'http://schemas.xmlsoap.org/soap/envelope/';
const XOP_NAMESPACE = 'http://www.w3.org/2004/08/xop/include';

/** A SOAP 1.1 message as received: the element its Body carries, and the bytes of a base64Binary element. */
export interface SoapMessage {
  /** The first element in the Body: the operation's element, or a Fault. */
  payload: Element;
  /** The bytes an xsd:base64Binary element holds: inline base64, or the MTOM part its xop:Include names. */
  binaryOf(element: Element): Buffer;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function inlineBase64(element: Element): Buffer {
  const text = (element.textContent ?? '').replace(/\s+/g, '');
  if (text.length % 4 !== 0 || !BASE64.test(text)) throw new Error(`<${element.localName}> is not base64`);
  return Buffer.from(text, 'base64');
}

/**
 * Reads a SOAP 1.1 message, plain (text/xml) or MTOM/XOP (multipart/related, RFC 2387, which the
 * SdI's services may use: the envelope in the `start` part, each base64Binary in a part of its
 * own that an xop:Include names by cid). Throws, saying why, when the bytes are not one.
 */
export function readSoapMessage(contentType: string | undefined, bytes: Buffer): SoapMessage {
  const { type, parameters } = mediaTypeOf(contentType ?? 'text/xml');
  let envelopeBytes = bytes;
  const attachments = new Map<string, Buffer>();
  if (type === 'multipart/related') {
    if (!parameters.boundary) throw new Error('the multipart/related message names no boundary');
    const parts = multipartParts(bytes, parameters.boundary);
    const start = parameters.start ? contentIdOf(parameters.start) : null;
    const root = parts.find((part) => start !== null && part.headers['content-id'] !== undefined && contentIdOf(part.headers['content-id']) === start) ?? parts[0];
    envelopeBytes = root.body;
    for (const part of parts) {
      if (part !== root && part.headers['content-id']) attachments.set(contentIdOf(part.headers['content-id']), part.body);
    }
  }
  const envelope = documentElementOf(envelopeBytes.toString('utf8'));
  if (envelope.localName !== 'Envelope' || envelope.namespaceURI !== SOAP_ENVELOPE_NAMESPACE) {
    throw new Error(`the message is not a SOAP 1.1 envelope (its root is {${envelope.namespaceURI ?? ''}}${envelope.localName})`);
  }
  const body = elementChildren(envelope).find((child) => child.localName === 'Body' && child.namespaceURI === SOAP_ENVELOPE_NAMESPACE);
  const payload = body ? elementChildren(body)[0] : undefined;
  if (!payload) throw new Error('the SOAP Body is empty');
  return {
    payload,
    binaryOf: (element) => {
      const include = elementChildren(element).find((child) => child.localName === 'Include' && child.namespaceURI === XOP_NAMESPACE);
      if (!include) return inlineBase64(element);
      const href = include.getAttribute('href') ?? '';
      const attachment = attachments.get(contentIdOfUrl(href));
      if (!attachment) throw new Error(`<${element.localName}> names an MTOM part the message does not have (${href})`);
      return attachment;
    },
  };
}

/** The SOAP 1.1 Fault a payload is, or null when it is none. */
export function soapFaultOf(payload: Element): { code: string; reason: string } | null {
  if (payload.localName !== 'Fault' || payload.namespaceURI !== SOAP_ENVELOPE_NAMESPACE) return null;
  return { code: childText(payload, 'faultcode') ?? '', reason: childText(payload, 'faultstring') ?? '' };
}

/** Text as XML character data (element content and attribute values). */
export const xmlEscaped = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');

/** A SOAP 1.1 envelope around `bodyXml` (already serialized). */
export const soapEnvelope = (bodyXml: string): string =>
  `<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="${SOAP_ENVELOPE_NAMESPACE}"><soapenv:Header/><soapenv:Body>${bodyXml}</soapenv:Body></soapenv:Envelope>`;

/** A SOAP 1.1 Fault: `Client` when the request was wrong, `Server` when the receiver failed. */
export const soapFault = (code: 'Client' | 'Server', reason: string): string =>
  soapEnvelope(`<soapenv:Fault><faultcode>soapenv:${code}</faultcode><faultstring>${xmlEscaped(reason)}</faultstring></soapenv:Fault>`);
