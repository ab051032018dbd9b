const texts = new WeakMap<object, string>();

/**
 * JSON.stringify of a response body, computed once per body object: a mutation's response
 * is written to its idempotency record and then to the socket, the same text both times.
 * A body must not change once written (presenters build a new object for every response).
 */
export function jsonText(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  let text = texts.get(value);
  if (text === undefined) {
    text = JSON.stringify(value);
    texts.set(value, text);
  }
  return text;
}
