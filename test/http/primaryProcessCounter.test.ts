// The rate-limit counters of several server processes without Redis: the primary's,
// asked over the IPC channel, one message per event-loop turn.
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { answerCounterRequests, PrimaryProcessCounter } from '../../src/http/primaryProcessCounter.js';

/** A server process's channel to a primary that answers with `answer`, counting the messages sent. */
function processOf(answer: ReturnType<typeof answerCounterRequests>) {
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
  return { counter: new PrimaryProcessCounter(channel as never), sent };
}

describe('PrimaryProcessCounter', () => {
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
    expect(windows.map((window) => window.count)).toEqual([1, 2, 2, 3]);
    expect(sent).toHaveLength(1);
  });

  it('fails the questions when the primary cannot be reached, so the limiter lets the requests through', async () => {
    const parent = Object.assign(new EventEmitter(), {
      send: (_message: unknown, callback: (error: Error | null) => void) => (callback(new Error('channel closed')), false),
    });
    const counter = new PrimaryProcessCounter(parent as never);
    await expect(counter.hit('key:a')).rejects.toThrow('channel closed');
    await expect(new PrimaryProcessCounter(new EventEmitter() as never).hit('key:a')).rejects.toThrow('not started by a primary process');
  });
});
