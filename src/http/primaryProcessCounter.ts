import { MemoryCounter, type Window, type WindowCounter } from './rateLimit.js';

/**
 * Rate-limit counters of an instance that runs several server processes without Redis:
 * the primary process holds them (a MemoryCounter) and each server process asks it over
 * the IPC channel, so a budget is one budget however the connections are spread. A
 * process sends the questions of one event-loop turn as one message.
 */

interface CounterQuestion {
  id: number;
  op: 'hit' | 'peek';
  budget: string;
}

interface CounterAnswer extends Window {
  id: number;
}

interface CounterQuestions {
  kind: 'rate-limit';
  questions: CounterQuestion[];
}

interface CounterAnswers {
  kind: 'rate-limit';
  answers: CounterAnswer[];
}

/** The part of a child process's IPC channel this needs (node:process in a cluster worker). */
export interface ParentChannel {
  send?(message: CounterQuestions, callback: (error: Error | null) => void): boolean;
  on(event: 'message', listener: (message: unknown) => void): unknown;
}

/** The part of a cluster worker the primary answers through. */
export interface ChildChannel {
  send(message: CounterAnswers, callback: (error: Error | null) => void): boolean;
}

const isCounterMessage = (message: unknown): message is { kind: 'rate-limit' } =>
  typeof message === 'object' && message !== null && (message as { kind?: unknown }).kind === 'rate-limit';

/** A server process's view of the primary's counters. */
export class PrimaryProcessCounter implements WindowCounter {
  private lastId = 0;
  private readonly pending = new Map<number, { resolve(window: Window): void; reject(error: Error): void }>();
  private queued: CounterQuestion[] = [];

  constructor(private readonly parent: ParentChannel) {
    parent.on('message', (message) => {
      if (!isCounterMessage(message)) return;
      for (const { id, count, resetMs } of (message as CounterAnswers).answers) {
        this.pending.get(id)?.resolve({ count, resetMs });
        this.pending.delete(id);
      }
    });
  }

  hit(budget: string): Promise<Window> {
    return this.ask('hit', budget);
  }

  peek(budget: string): Promise<Window> {
    return this.ask('peek', budget);
  }

  private ask(op: CounterQuestion['op'], budget: string): Promise<Window> {
    const id = ++this.lastId;
    return new Promise((resolve, reject) => {
      if (!this.parent.send) return reject(new Error('not started by a primary process'));
      this.pending.set(id, { resolve, reject });
      if (this.queued.push({ id, op, budget }) === 1) setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    const questions = this.queued;
    this.queued = [];
    // A primary that is gone fails the calls; the rate limiter then lets the requests through.
    this.parent.send!({ kind: 'rate-limit', questions }, (error) => {
      if (!error) return;
      for (const { id } of questions) {
        this.pending.get(id)?.reject(error);
        this.pending.delete(id);
      }
    });
  }
}

/** The primary's side: answers the counter questions its server processes send, in the order asked. */
export function answerCounterRequests(counter: WindowCounter = new MemoryCounter()) {
  return (child: ChildChannel, message: unknown): void => {
    if (!isCounterMessage(message)) return;
    const answers = (message as CounterQuestions).questions.map(async ({ id, op, budget }) => ({
      id,
      ...(await (op === 'hit' ? counter.hit(budget) : counter.peek(budget))),
    }));
    // A process that exited meanwhile cannot be answered, and needs no answer.
    void Promise.all(answers).then((all) => child.send({ kind: 'rate-limit', answers: all }, () => undefined));
  };
}
