/** How the vendor clients (cloud TSE, signature unit, invoice intermediaries) read an HTTP answer. */
import type { Dispatcher } from 'undici';

/** A vendor's answer as its client judges it: the status, how long it asked us to wait, and its JSON body. */
export interface HttpAnswer {
  status: number;
  retryAfterMs: number | null;
  body: unknown;
}

/** Reads a response whole into an HttpAnswer. */
export async function answerOf(response: Dispatcher.ResponseData): Promise<HttpAnswer> {
  return { status: response.statusCode, retryAfterMs: retryAfterMsOf(response.headers['retry-after']), body: parsedJson(await response.body.text()) };
}

/** Retry-After as milliseconds from now, given as seconds or an HTTP date (RFC 9110 10.2.3); null without one. */
export function retryAfterMsOf(header: string | string[] | undefined): number | null {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}

/** An answer's JSON body; null when it has none or it is not JSON. */
export function parsedJson(text: string): unknown {
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}
