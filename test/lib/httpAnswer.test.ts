import { describe, expect, it } from 'vitest';
import { parsedJson, retryAfterMsOf } from '../../src/lib/httpAnswer.js';

describe('reading a vendor\'s HTTP answer', () => {
  it('takes Retry-After as seconds or as an HTTP date, and nothing else', () => {
    expect(retryAfterMsOf('3')).toBe(3000);
    expect(retryAfterMsOf(['7', '9'])).toBe(7000);
    expect(retryAfterMsOf(undefined)).toBeNull();
    expect(retryAfterMsOf('soon')).toBeNull();
    const inTenSeconds = new Date(Date.now() + 10_000).toUTCString();
    expect(retryAfterMsOf(inTenSeconds)).toBeGreaterThan(8000);
    expect(retryAfterMsOf(new Date(Date.now() - 60_000).toUTCString())).toBe(0);
  });

  it('parses a JSON body, and gives null for an empty or non-JSON one', () => {
    expect(parsedJson('{"code":"E_TOKEN"}')).toEqual({ code: 'E_TOKEN' });
    expect(parsedJson('')).toBeNull();
    expect(parsedJson('<html>502</html>')).toBeNull();
  });
});
