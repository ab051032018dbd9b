import type { FastifyRequest } from 'fastify';
import { stdSerializers, type LogFn } from 'pino';

const REDACTED = '[redacted]';

/**
 * Query parameters whose value is a credential (compared lowercase): the download link's `signature`, and the usual names
 * (portal PINs and certificate keys only ever travel in request bodies, which the log never holds).
 */
const CREDENTIAL_PARAMETERS = new Set(['signature', 'token', 'access_token', 'api_key', 'apikey', 'key', 'secret', 'password', 'pin', 'private_key']);

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Anything holding an API key (`svc_...`), in whatever encoding. */
const holdsApiKey = (text: string) => /svc_/i.test(decoded(text));

/**
 * What a URL that redactUrl leaves as it is cannot contain: a query, an encoded character, an API
 * key, or a first segment `receipts`. Most requests' URLs (every call of the API but the hosted
 * receipt) are then logged without being taken apart.
 */
const MAY_NEED_REDACTION = /[?%]|svc_|^\/*receipts(?:\/|$)/i;

/**
 * A request URL as it may be logged. Redacted: the hosted-receipt token (the
 * segment after a leading `receipts`, also of its PDF and of near-miss paths),
 * credential query parameters (the download link's `signature`), and any
 * segment or parameter holding an API key. Names and segments are compared
 * decoded, as the router and the query parser see them.
 */
export function redactUrl(url: string): string {
  return MAY_NEED_REDACTION.test(url) ? redactUrlByParts(url) : url;
}

/** redactUrl the long way, segment by segment and parameter by parameter: what any URL would get. */
export function redactUrlByParts(url: string): string {
  const queryAt = url.indexOf('?');
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  const segments = path.split('/');
  const first = segments.findIndex((segment) => segment !== '');
  const lead = first === -1 ? '' : decoded(segments[first]).toLowerCase();
  const redactedPath = segments
    .map((segment, i) => {
      const isToken = (lead === 'receipts' && i === first + 1) || (i === first && lead.startsWith('receipts/'));
      return segment !== '' && (isToken || holdsApiKey(segment)) ? REDACTED : segment;
    })
    .join('/');
  if (queryAt === -1) return redactedPath;
  const query = url
    .slice(queryAt + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      const name = equals === -1 ? pair : pair.slice(0, equals);
      if (holdsApiKey(name)) return REDACTED;
      return CREDENTIAL_PARAMETERS.has(decoded(name).toLowerCase()) || holdsApiKey(pair) ? `${name}=${REDACTED}` : pair;
    })
    .join('&');
  return `${redactedPath}?${query}`;
}

/** A free text (a log message, an error's message or stack) with every URL in it redacted as by redactUrl, and any API key. */
export function redactText(text: string): string {
  return text
    .replace(/(https?:\/\/[^/\s"'`<>()]+)?(\/[^\s"'`<>()]*)/gi, (_url, origin: string | undefined, path: string) => (origin ?? '') + redactUrl(path))
    .replace(/svc_[0-9A-Za-z_]+/gi, REDACTED);
}

/** pino serializers of the service's log: requests and errors without credentials. */
export const logSerializers = {
  req: (request: FastifyRequest) => ({
    method: request.method,
    url: redactUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  }),
  err: (error: Error) => {
    const serialized = stdSerializers.err(error);
    // The raw bytes of a request Node could not parse (rawPacket) hold its headers, Authorization included.
    delete serialized.rawPacket;
    serialized.message = redactText(serialized.message);
    if (serialized.stack) serialized.stack = redactText(serialized.stack);
    return serialized;
  },
};

/** pino's logMethod hook: string arguments (messages such as Fastify's own, which may quote a URL) redacted too. */
export function redactLogArguments(this: unknown, args: Parameters<LogFn>, method: LogFn): void {
  method.apply(this, args.map((arg: unknown) => (typeof arg === 'string' ? redactText(arg) : arg)) as Parameters<LogFn>);
}
