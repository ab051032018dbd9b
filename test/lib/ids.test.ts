import { describe, expect, it } from 'vitest';
import { newId, randomBase62 } from '../../src/lib/ids.js';

describe('ids', () => {
  it('newId: a type prefix and 20 base62 characters', () => {
    expect(newId('op')).toMatch(/^op_[0-9A-Za-z]{20}$/);
    expect(randomBase62(32)).toMatch(/^[0-9A-Za-z]{32}$/);
  });

  it('does not repeat across many draws, also when the random pool refills mid-id', () => {
    const ids = new Set(Array.from({ length: 20_000 }, () => newId('rcp')));
    expect(ids.size).toBe(20_000);
  });

  it('uses every base62 character about equally often (rejection sampling keeps it uniform)', () => {
    const counts = new Map<string, number>();
    const text = randomBase62(62 * 2000);
    for (const char of text) counts.set(char, (counts.get(char) ?? 0) + 1);
    expect(counts.size).toBe(62);
    // 2000 expected per character; a biased modulo would skew the first 8 characters by ~25 %.
    for (const count of counts.values()) expect(Math.abs(count - 2000)).toBeLessThan(250);
  });
});
