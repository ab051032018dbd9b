// The rate-limit counters of several server processes without Redis: the primary's,
// asked for over the IPC channel, one message per event-loop turn, with counts leased
// ahead for a budget busy far from its limit.
import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { answerCounterRequests, countsAhead, PrimaryProcessCounter } from '../../src/http/primaryProcessCounter.js';

/**
 * A server process's channel to a primary that answers with `answer`, counting the messages
 * sent. With `held`, answers wait until `release()`, as a busy primary's do.
 */
function processOf(answer: ReturnType<typeof answerCounterRequests>, { held = false } = {}) {
  const parent = new EventEmitter();
  const sent: unknown[] = [];
  const waiting: (() => void)[] = [];
  const child = { send: (message: unknown, callback: (error: Error | null) => void) => (setImmediate(() => parent.emit('message', message)), callback(null), true) };
  const channel = Object.assign(parent, {
    send(message: unknown, callback: (error: Error | null) => void) {
      sent.push(message);
      const deliver = () => answer(child as never, message);
      if (held) waiting.push(deliver);
      else setImmediate(deliver);
      callback(null);
      return true;
    },
  });
  const release = () => waiting.splice(0).forEach((deliver) => deliver());
  return { counter: new PrimaryProcessCounter(channel as never), sent, release };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('PrimaryProcessCounter', () => {
  afterEach(() => void vi.useRealTimers());

  it('counts the hits of every process in one budget, and a peek counts nothing', async () => {
    const answer = answerCounterRequests(500);
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
    const { counter, sent } = processOf(answerCounterRequests(500));
    const windows = await Promise.all([counter.hit('key:a'), counter.hit('key:a'), counter.peek('key:a'), counter.hit('key:a')]);
    // The turn's hits share one question, asked before the peek.
    expect(windows.map((window) => window.count)).toEqual([1, 2, 3, 3]);
    expect(sent).toHaveLength(1);
  });

  it('gives every waiting request its count in one answer, past the limit too, so a burst lands in one window', async () => {
    const answer = answerCounterRequests(20);
    const processes = [processOf(answer), processOf(answer)];
    const windows = await Promise.all(Array.from({ length: 40 }, (_, i) => processes[i % 2].counter.hit('key:a')));
    expect(windows.map((window) => window.count).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(processes.map(({ sent }) => sent.length)).toEqual([1, 1]);
  });

  it('lets the requests of a new turn ask while an earlier answer is still on its way', async () => {
    const { counter, sent, release } = processOf(answerCounterRequests(500), { held: true });
    const first = counter.hit('key:a');
    await turn();
    const second = counter.hit('key:a');
    await turn();
    expect(sent).toHaveLength(2);
    release();
    expect([(await first).count, (await second).count]).toEqual([1, 2]);
  });

  it('leases counts ahead for a budget busy in the last window, sized to 50 ms of its pace', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { counter, sent } = processOf(answerCounterRequests(1_000_000));
    const counts: number[] = [];
    for (let i = 0; i < 200; i++) counts.push((await counter.hit('key:a')).count);
    expect(sent).toHaveLength(200);
    vi.advanceTimersByTime(1000);
    for (let i = 0; i < 200; i++) counts.push((await counter.hit('key:a')).count);
    // 200 in the last window: a question, then 10 counts held ahead, every 11 requests.
    expect(sent.length - 200).toBe(Math.ceil(200 / 11));
    expect(counts).toEqual([...Array.from({ length: 200 }, (_, i) => i + 1), ...Array.from({ length: 200 }, (_, i) => i + 1)]);
  });

  it('hands out each count once across processes that lease: a window never admits more than its limit, and fewer by at most what they held', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const answer = answerCounterRequests(1000);
    const processes = [processOf(answer), processOf(answer)];
    for (let i = 0; i < 400; i++) await processes[i % 2].counter.hit('key:a');
    vi.advanceTimersByTime(1000);
    const sentBefore = processes[0].sent.length + processes[1].sent.length;
    const counts: number[] = [];
    for (let i = 0; i < 1200; i += 3) {
      const windows = await Promise.all([0, 1, 2].map((j) => processes[(i + j) % 2].counter.hit('key:a')));
      counts.push(...windows.map((window) => window.count));
    }
    expect(new Set(counts).size).toBe(counts.length);
    const admitted = counts.filter((count) => count <= 1000).length;
    // Each process leases 10 ahead (200 in the last window): at most that is left unused per process.
    expect(admitted).toBeGreaterThanOrEqual(1000 - 2 * 10);
    expect(admitted).toBeLessThanOrEqual(1000);
    // Without leases each process asks in each of the 400 turns.
    expect(processes[0].sent.length + processes[1].sent.length - sentBefore).toBeLessThan(400);
  });

  it('leases nothing ahead for a budget that used more than half its limit in its previous window', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { counter, sent } = processOf(answerCounterRequests(300));
    for (let i = 0; i < 200; i++) await counter.hit('key:a');
    vi.advanceTimersByTime(1000);
    for (let i = 0; i < 100; i++) await counter.hit('key:a');
    expect(sent).toHaveLength(300);
  });

  it('fails the questions when the primary cannot be reached, so the limiter lets the requests through', async () => {
    const parent = Object.assign(new EventEmitter(), {
      send: (_message: unknown, callback: (error: Error | null) => void) => (callback(new Error('channel closed')), false),
    });
    const counter = new PrimaryProcessCounter(parent as never);
    await expect(counter.hit('key:a')).rejects.toThrow('channel closed');
    await expect(counter.peek('key:a')).rejects.toThrow('channel closed');
    await expect(new PrimaryProcessCounter(new EventEmitter() as never).hit('key:a')).rejects.toThrow('not started by a primary process');
  });
});

describe('countsAhead', () => {
  it('grants what is asked far from the limit, at most a quarter of the rest, and nothing after a busy window or past the limit', () => {
    expect(countsAhead(10, 0, 0, 500)).toBe(10);
    expect(countsAhead(10, 480, 0, 500)).toBe(5);
    expect(countsAhead(10, 497, 0, 500)).toBe(0);
    expect(countsAhead(10, 520, 0, 500)).toBe(0);
    expect(countsAhead(10, 0, 250, 500)).toBe(10);
    expect(countsAhead(10, 0, 251, 500)).toBe(0);
  });
});
