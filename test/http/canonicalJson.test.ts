// The request hash of an idempotency key is over canonical JSON: one text per payload whatever
// its key order, the same text as before (stored keys outlive a deploy), and JSON that parses
// back to the payload.
import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/http/idempotency.js';

/** The same members with their keys in reverse order, at every depth. */
function reversedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversedKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.keys(value).reverse().map((key) => [key, reversedKeys((value as Record<string, unknown>)[key])]));
}

describe('canonicalJson', () => {
  it('sorts keys by UTF-16 code units at every depth and drops undefined members', () => {
    expect(canonicalJson({ b: 1, a: [{ d: null, c: 'x', e: undefined }, undefined], B: true, é: 2, '': 0 })).toBe(
      '{"":0,"B":true,"a":[{"c":"x","d":null},null],"b":1,"é":2}',
    );
    expect(canonicalJson({ body: { lines: [{ qty: '1.5', title: 'Brot "hell"' }] }, if_match: null })).toBe(
      '{"body":{"lines":[{"qty":"1.5","title":"Brot \\"hell\\""}]},"if_match":null}',
    );
    expect([canonicalJson(null), canonicalJson(undefined), canonicalJson('a'), canonicalJson(1.5), canonicalJson([]), canonicalJson({})]).toEqual([
      'null',
      'null',
      '"a"',
      '1.5',
      '[]',
      '{}',
    ]);
  });

  it('is JSON of the same value, whatever the order of its keys', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = canonicalJson(value);
        expect(isDeepStrictEqual(JSON.parse(text), JSON.parse(JSON.stringify(value)))).toBe(true);
        expect(canonicalJson(reversedKeys(value))).toBe(text);
      }),
      { numRuns: 500 },
    );
  });
});
