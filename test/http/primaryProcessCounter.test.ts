// The rate-limit counters of several server processes without Redis: the primary's,
// leased over the IPC channel, one message per event-loop turn.
import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { answerCounterRequests, countsToGrant, PrimaryProcessCounter } from '../../src/http/primaryProcessCounter.js';

/** A server process's channel to a primary that answers with `answer`, counting the messages sent. */
function processOf(answer: ReturnType<typeof answerCounterRequests>, limit = 500) {
  const parent = new EventEmitter();
  const sent: unknown[] = [];
  const child = { send: (message: unknown, callback: (error: Error | null) => void) => (setImmediate(() => parent.emit('message', message)), callback(null), true) };
  const channel = Object.assign(parent, {
    send(message: unknown, callback: (error: Error | null) => void) {
      sent.push(message);
      setImmediate(() => answer(child as never, message));
      callback(null);
      return true;
    },
  });
  return { counter: new PrimaryProcessCounter(channel as never, limit), sent };
}

describe('PrimaryProcessCounter', () => {
  afterEach(() => void vi.useRealTimers());

  it('counts the hits of every process in one budget, and a peek counts nothing', async () => {
    const answer = answerCounterRequests();
    const first = processOf(answer);
    const second = processOf(answer);
    expect((await first.counter.hit('key:a')).count).toBe(1);
    expect((await second.counter.hit('key:a')).count).toBe(2);
    expect((await first.counter.peek('key:a')).count).toBe(2);
    expect((await second.counter.hit('key:b')).count).toBe(1);
    const window = await second.counter.hit('key:a');
    expect(window.count).toBe(3);
    expect(window.resetMs).toBeGreaterThan(0);
    expect(window.resetMs).toBeLessThanOrEqual(1000);
  });

  it('sends the questions of one event-loop turn as one message, answered in order', async () => {
    const { counter, sent } = processOf(answerCounterRequests());
    const windows = await Promise.all([counter.hit('key:a'), counter.hit('key:a'), counter.peek('key:a'), counter.hit('key:a')]);
    // The hits of the turn share one lease of three counts, taken before the peek.
    expect(windows.map((window) => window.count)).toEqual([1, 2, 3, 3]);
    expect(sent).toHaveLength(1);
  });

  it('leases a busy budget ahead, sized to what the process used of its last window', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { counter, sent } = processOf(answerCounterRequests(), 1_000_000);
    const counts: number[] = [];
    for (let i = 0; i < 200; i++) counts.push((await counter.hit('key:a')).count);
    expect(sent).toHaveLength(200);
    vi.advanceTimersByTime(1000);
    for (let i = 0; i < 200; i++) counts.push((await counter.hit('key:a')).count);
    // 200 in the last window: leases of 200 * 50 / 1000 = 10 counts.
    expect(sent).toHaveLength(220);
    expect(counts).toEqual([...Array.from({ length: 200 }, (_, i) => i + 1), ...Array.from({ length: 200 }, (_, i) => i + 1)]);
  });

  it('hands out each count of a window once across processes, so a window admits exactly its limit', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const answer = answerCounterRequests();
    const processes = [processOf(answer, 20), processOf(answer, 20)];
    // A busy last window makes the processes lease ahead.
    for (let i = 0; i < 100; i++) await processes[i % 2].counter.hit('key:a');
    vi.advanceTimersByTime(1000);
    const windows = await Promise.all(Array.from({ length: 40 }, (_, i) => processes[i % 2].counter.hit('key:a')));
    const counts = windows.map((window) => window.count).sort((a, b) => a - b);
    expect(counts).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(counts.filter((count) => count <= 20)).toHaveLength(20);
  });

  it('leaves unused what a process that goes quiet holds of its lease, at most a quarter of what was left', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const answer = answerCounterRequests();
    const [first, second] = [processOf(answer, 20), processOf(answer, 20)];
    for (let i = 0; i < 100; i++) await first.counter.hit('key:a');
    vi.advanceTimersByTime(1000);
    // The first process leases ahead and goes quiet; the second gets the rest of the window.
    expect((await first.counter.hit('key:a')).count).toBe(1);
    const counts: number[] = [];
    for (let i = 0; i < 25; i++) counts.push((await second.counter.hit('key:a')).count);
    // The first's lease was at most a quarter of the 20: 5 counts, 4 of them unused.
    expect(counts.filter((count) => count <= 20)).toHaveLength(15);
  });

  it('fails the questions when the primary cannot be reached, so the limiter lets the requests through', async () => {
    const parent = Object.assign(new EventEmitter(), {
      send: (_message: unknown, callback: (error: Error | null) => void) => (callback(new Error('channel closed')), false),
    });
    const counter = new PrimaryProcessCounter(parent as never, 500);
    await expect(counter.hit('key:a')).rejects.toThrow('channel closed');
    await expect(counter.peek('key:a')).rejects.toThrow('channel closed');
    await expect(new PrimaryProcessCounter(new EventEmitter() as never, 500).hit('key:a')).rejects.toThrow('not started by a primary process');
  });
});

describe('countsToGrant', () => {
  it('grants what is wanted far from the limit, at most a quarter of the rest near it, and every count past it', () => {
    expect(countsToGrant(10, 0, 500)).toBe(10);
    expect(countsToGrant(10, 480, 500)).toBe(5);
    expect(countsToGrant(10, 497, 500)).toBe(1);
    expect(countsToGrant(3, 500, 500)).toBe(3);
    expect(countsToGrant(1, 0, 1)).toBe(1);
  });
});
