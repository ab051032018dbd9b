/** How the vendor clients (cloud TSE, signature unit, invoice intermediaries) read an HTTP answer. */

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
