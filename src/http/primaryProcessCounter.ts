import { MemoryCounter, WINDOW_MS, windowAt, type CountedWindow, type Window, type WindowCounter } from './rateLimit.js';

/**
 * Rate-limit counters of an instance that runs several server processes without Redis:
 * the primary process holds them (a MemoryCounter), so a budget is one budget however the
 * connections are spread. A server process does not ask the primary for every request:
 * it takes a lease of consecutive counts of the budget's window and hands them out to its
 * requests, so a busy budget costs a message every few dozen requests. Each count is
 * handed out once, so a window never admits more than its limit. The questions of one
 * event-loop turn travel as one message.
 */

/** A lease is sized to what the process used of the budget in about this long, at its last window's pace. */
const LEASE_SPAN_MS = 50;
/** Near the limit a lease is at most this share of what is left, so counts left unused elsewhere refuse few requests early. */
const LEASE_SHARE_OF_REST = 4;

interface CounterQuestion {
  id: number;
  op: 'take' | 'peek';
  budget: string;
  /** For 'take': how many counts the process wants, and the budget's limit. */
  units: number;
  limit: number;
}

/** The window after the question: for 'take', its last `granted` counts are the process's. */
interface CounterAnswer extends CountedWindow {
  id: number;
  granted: number;
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

/**
 * How many counts to grant toward `wanted` when `count` of `limit` are taken: every one
 * past the limit (each is a refusal), else at least one and at most a quarter of the rest.
 */
export function countsToGrant(wanted: number, count: number, limit: number): number {
  if (count >= limit) return wanted;
  return Math.max(1, Math.min(wanted, Math.floor((limit - count) / LEASE_SHARE_OF_REST)));
}

/** What a process may still hand out of one budget's window, and what waits for more. */
interface Lease {
  endsAt: number;
  /** The counts next..last are this process's to hand out. */
  next: number;
  last: number;
  servedInWindow: number;
  servedInLastWindow: number;
  waiting: { resolve(window: Window): void; reject(error: Error): void }[];
  asking: boolean;
}

interface PendingQuestion {
  budget: string;
  peek?: { resolve(window: Window): void; reject(error: Error): void };
}

/** A server process's view of the primary's counters. */
export class PrimaryProcessCounter implements WindowCounter {
  private lastId = 0;
  private readonly leases = new Map<string, Lease>();
  private readonly pending = new Map<number, PendingQuestion>();
  private queued: CounterQuestion[] = [];
  private nextSweep = 0;

  constructor(
    private readonly parent: ParentChannel,
    /** The budgets' limit, which sizes leases near it. */
    private readonly limit: number,
  ) {
    parent.on('message', (message) => {
      if (!isCounterMessage(message)) return;
      for (const answer of (message as CounterAnswers).answers) this.answered(answer);
    });
  }

  hit(budget: string): Promise<Window> {
    const now = Date.now();
    this.sweep(now);
    const lease = this.leaseOf(budget);
    if (lease.endsAt && lease.endsAt <= now) this.endWindow(lease, now);
    if (!lease.waiting.length && lease.next <= lease.last) {
      lease.servedInWindow++;
      return Promise.resolve({ count: lease.next++, resetMs: lease.endsAt - now });
    }
    return new Promise((resolve, reject) => {
      if (!this.parent.send) return reject(new Error('not started by a primary process'));
      lease.waiting.push({ resolve, reject });
      this.askForCounts(budget, lease);
    });
  }

  private leaseOf(budget: string): Lease {
    let lease = this.leases.get(budget);
    if (!lease) {
      lease = { endsAt: 0, next: 1, last: 0, servedInWindow: 0, servedInLastWindow: 0, waiting: [], asking: false };
      this.leases.set(budget, lease);
    }
    return lease;
  }

  peek(budget: string): Promise<Window> {
    return new Promise((resolve, reject) => {
      if (!this.parent.send) return reject(new Error('not started by a primary process'));
      this.ask({ op: 'peek', budget, units: 0, limit: this.limit }, { budget, peek: { resolve, reject } });
    });
  }

  private askForCounts(budget: string, lease: Lease): void {
    if (lease.asking) return;
    lease.asking = true;
    // Sized when the turn's questions leave, so the requests of the whole turn share one lease.
    this.ask({ op: 'take', budget, units: 0, limit: this.limit }, { budget });
  }

  private ask(question: Omit<CounterQuestion, 'id'>, pending: PendingQuestion): void {
    const id = ++this.lastId;
    this.pending.set(id, pending);
    if (this.queued.push({ id, ...question }) === 1) setImmediate(() => this.flush());
  }

  private flush(): void {
    const questions = this.queued;
    this.queued = [];
    for (const question of questions) {
      if (question.op !== 'take') continue;
      const lease = this.leases.get(question.budget)!;
      question.units = Math.max(lease.waiting.length, Math.ceil((lease.servedInLastWindow * LEASE_SPAN_MS) / WINDOW_MS));
    }
    // A primary that is gone fails the calls; the rate limiter then lets the requests through.
    this.parent.send!({ kind: 'rate-limit', questions }, (error) => {
      if (!error) return;
      for (const { id } of questions) this.failed(id, error);
    });
  }

  private answered({ id, count, endsAt, granted }: CounterAnswer): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    this.pending.delete(id);
    if (pending.peek) return pending.peek.resolve(windowAt({ count, endsAt }, Date.now()));
    const lease = this.leases.get(pending.budget)!;
    lease.asking = false;
    const now = Date.now();
    if (endsAt !== lease.endsAt) {
      if (lease.endsAt) this.endWindow(lease, now);
      lease.endsAt = endsAt;
    }
    lease.next = count - granted + 1;
    lease.last = count;
    while (lease.waiting.length && lease.next <= lease.last) {
      lease.servedInWindow++;
      lease.waiting.shift()!.resolve({ count: lease.next++, resetMs: Math.max(0, endsAt - now) });
    }
    if (lease.waiting.length) this.askForCounts(pending.budget, lease);
  }

  /** The lease's window is over: what is left of it is void, and what it served sizes the next leases. */
  private endWindow(lease: Lease, now: number): void {
    lease.servedInLastWindow = now - lease.endsAt < WINDOW_MS ? lease.servedInWindow : 0;
    lease.servedInWindow = 0;
    lease.endsAt = 0;
    lease.next = 1;
    lease.last = 0;
  }

  private failed(id: number, error: Error): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    this.pending.delete(id);
    if (pending.peek) return pending.peek.reject(error);
    const lease = this.leases.get(pending.budget)!;
    lease.asking = false;
    for (const waiting of lease.waiting.splice(0)) waiting.reject(error);
  }

  /** Drops the leases of windows over a window ago, so memory holds the budgets of about the last two seconds. */
  private sweep(now: number): void {
    if (now < this.nextSweep) return;
    this.nextSweep = now + WINDOW_MS;
    for (const [budget, lease] of this.leases) {
      if (lease.endsAt + WINDOW_MS <= now && !lease.asking && !lease.waiting.length) this.leases.delete(budget);
    }
  }
}

/** The primary's side: answers the counter questions its server processes send, in the order asked. */
export function answerCounterRequests(counter = new MemoryCounter()) {
  return (child: ChildChannel, message: unknown): void => {
    if (!isCounterMessage(message)) return;
    const answers = (message as CounterQuestions).questions.map(({ id, op, budget, units, limit }): CounterAnswer => {
      if (op === 'peek') return { id, granted: 0, ...counter.current(budget) };
      const granted = countsToGrant(units, counter.current(budget).count, limit);
      return { id, granted, ...counter.add(budget, granted) };
    });
    // A process that exited meanwhile cannot be answered, and needs no answer.
    child.send({ kind: 'rate-limit', answers }, () => undefined);
  };
}
