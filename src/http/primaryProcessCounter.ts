import { MemoryCounter, WINDOW_MS, windowAt, type Window, type WindowCounter } from './rateLimit.js';

/**
 * Rate-limit counters of an instance that runs several server processes without Redis:
 * the primary process holds them (a MemoryCounter), so a budget is one budget however the
 * connections are spread. A server process asks the primary for the counts of the requests
 * that wait, all of one event-loop turn in one message, and every waiting request gets its
 * count in that one answer (past the limit, a refusal). A budget that was busy in the
 * process's last window also takes a lease of counts ahead, so most of its requests need no
 * question at all. Each count is handed out once, so a window never admits more than its
 * limit; a lease is only granted far from the limit, so what a process holds unused when
 * another is refused is a few counts at most.
 */

/** A lease is sized to what the process used of the budget in about this long, at its last window's pace. */
const LEASE_SPAN_MS = 50;
/** A lease is at most this share of what the window has left, so little is held where it may go unused. */
const LEASE_SHARE_OF_REST = 4;

interface CounterQuestion {
  id: number;
  op: 'take' | 'peek';
  budget: string;
  /** For 'take': the requests that wait for a count each, and how many counts the process would hold ahead. */
  waiting: number;
  ahead: number;
}

/** The window after the question: for 'take', its last `granted` counts are the process's, the waiting requests' first. */
interface CounterAnswer {
  id: number;
  count: number;
  endsAt: number;
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
 * How many counts to lease ahead when `count` of `limit` are taken after the waiting requests':
 * what is asked, at most a quarter of what is left, and none for a budget that used more than
 * half its limit in its previous window (there every count is asked for, as it is needed).
 */
export function countsAhead(asked: number, count: number, previousCount: number, limit: number): number {
  if (previousCount > limit / 2) return 0;
  return Math.max(0, Math.min(asked, Math.floor((limit - count) / LEASE_SHARE_OF_REST)));
}

interface Waiter {
  resolve(window: Window): void;
  reject(error: Error): void;
}

/** What a process holds of one budget's window, and what it used of it. */
interface Lease {
  endsAt: number;
  /** The counts next..last are this process's to hand out. */
  next: number;
  last: number;
  servedInWindow: number;
  servedInLastWindow: number;
  /** Requests that wait for the next question's answer. */
  unasked: Waiter[];
  /** Questions sent and not yet answered, and whether one of them asks for counts ahead. */
  questionsOut: number;
  askingAhead: boolean;
}

type PendingQuestion = { budget: string; peek: Waiter } | { budget: string; waiters: Waiter[]; ahead: boolean };

/** A server process's view of the primary's counters. */
export class PrimaryProcessCounter implements WindowCounter {
  private lastId = 0;
  private readonly leases = new Map<string, Lease>();
  private readonly pending = new Map<number, PendingQuestion>();
  private queued: CounterQuestion[] = [];
  private nextSweep = 0;

  constructor(private readonly parent: ParentChannel) {
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
    if (lease.next <= lease.last) {
      lease.servedInWindow++;
      return Promise.resolve(windowAt({ count: lease.next++, endsAt: lease.endsAt }, now));
    }
    return new Promise((resolve, reject) => {
      if (!this.parent.send) return reject(new Error('not started by a primary process'));
      // The turn's first waiter asks; the others of the turn join its question when it leaves.
      if (lease.unasked.push({ resolve, reject }) === 1) this.ask({ op: 'take', budget, waiting: 0, ahead: 0 });
    });
  }

  peek(budget: string): Promise<Window> {
    return new Promise((resolve, reject) => {
      if (!this.parent.send) return reject(new Error('not started by a primary process'));
      this.ask({ op: 'peek', budget, waiting: 0, ahead: 0 }, { resolve, reject });
    });
  }

  private leaseOf(budget: string): Lease {
    let lease = this.leases.get(budget);
    if (!lease) {
      lease = { endsAt: 0, next: 1, last: 0, servedInWindow: 0, servedInLastWindow: 0, unasked: [], questionsOut: 0, askingAhead: false };
      this.leases.set(budget, lease);
    }
    return lease;
  }

  private ask(question: Omit<CounterQuestion, 'id'>, peek?: Waiter): void {
    const id = ++this.lastId;
    if (peek) this.pending.set(id, { budget: question.budget, peek });
    if (this.queued.push({ id, ...question }) === 1) setImmediate(() => this.flush());
  }

  private flush(): void {
    const questions = this.queued;
    this.queued = [];
    for (const question of questions) {
      if (question.op !== 'take') continue;
      const lease = this.leaseOf(question.budget);
      const waiters = lease.unasked.splice(0);
      question.waiting = waiters.length;
      // One question at a time asks ahead, so a lease is one run of counts.
      question.ahead = lease.askingAhead ? 0 : Math.ceil((lease.servedInLastWindow * LEASE_SPAN_MS) / WINDOW_MS);
      lease.askingAhead ||= question.ahead > 0;
      lease.questionsOut++;
      this.pending.set(question.id, { budget: question.budget, waiters, ahead: question.ahead > 0 });
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
    const now = Date.now();
    if ('peek' in pending) return pending.peek.resolve(windowAt({ count, endsAt }, now));
    const lease = this.settled(pending.budget, pending.ahead);
    if (endsAt !== lease.endsAt && endsAt > now) {
      if (lease.endsAt) this.endWindow(lease, now);
      lease.endsAt = endsAt;
    }
    let next = count - granted + 1;
    for (const waiter of pending.waiters) waiter.resolve(windowAt({ count: next++, endsAt }, now));
    if (endsAt === lease.endsAt) {
      lease.servedInWindow += pending.waiters.length;
      if (next <= count) [lease.next, lease.last] = [next, count];
    }
  }

  private failed(id: number, error: Error): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    this.pending.delete(id);
    if ('peek' in pending) return pending.peek.reject(error);
    this.settled(pending.budget, pending.ahead);
    for (const waiter of pending.waiters) waiter.reject(error);
  }

  /** The lease of a question that was answered or failed, with that question no longer out. */
  private settled(budget: string, askedAhead: boolean): Lease {
    const lease = this.leaseOf(budget);
    lease.questionsOut--;
    if (askedAhead) lease.askingAhead = false;
    return lease;
  }

  /** The lease's window is over: what is left of it is void, and what it served sizes the next leases. */
  private endWindow(lease: Lease, now: number): void {
    lease.servedInLastWindow = now - lease.endsAt < WINDOW_MS ? lease.servedInWindow : 0;
    lease.servedInWindow = 0;
    lease.endsAt = 0;
    lease.next = 1;
    lease.last = 0;
  }

  /** Drops the leases of windows over a window ago, so memory holds the budgets of about the last two seconds. */
  private sweep(now: number): void {
    if (now < this.nextSweep) return;
    this.nextSweep = now + WINDOW_MS;
    for (const [budget, lease] of this.leases) {
      if (lease.endsAt + WINDOW_MS <= now && !lease.questionsOut && !lease.unasked.length) this.leases.delete(budget);
    }
  }
}

/** The primary's side: answers the counter questions its server processes send, in the order asked. */
export function answerCounterRequests(limit: number, counter = new MemoryCounter()) {
  return (child: ChildChannel, message: unknown): void => {
    if (!isCounterMessage(message)) return;
    const now = Date.now();
    const answers = (message as CounterQuestions).questions.map(({ id, op, budget, waiting, ahead }): CounterAnswer => {
      if (op === 'peek') {
        const { count, endsAt } = counter.current(budget, now);
        return { id, count, endsAt, granted: 0 };
      }
      const afterWaiting = counter.add(budget, waiting, now);
      const extra = countsAhead(ahead, afterWaiting.count, afterWaiting.previousCount, limit);
      const { count, endsAt } = extra ? counter.add(budget, extra, now) : afterWaiting;
      return { id, count, endsAt, granted: waiting + extra };
    });
    // A process that exited meanwhile cannot be answered, and needs no answer.
    child.send({ kind: 'rate-limit', answers }, () => undefined);
  };
}
