import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';

export interface PollingWorkerOptions {
  /** What the worker does; logs name it. */
  name: string;
  log: FastifyBaseLogger;
  pollMs: number;
  /** Claims and works one job with the worker's id; false when there was none. */
  runOne: (workerId: string) => Promise<boolean>;
}

/**
 * The loop of a queue worker (exports, RT transmissions), in the server process
 * or in `npm run worker`: works jobs one at a time until none is due, then
 * polls every `pollMs`; wake() looks at once (a job was just queued here).
 */
export class PollingWorker {
  readonly id = `worker-${process.pid}-${randomBytes(4).toString('hex')}`;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;

  constructor(private readonly options: PollingWorkerOptions) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  wake(): void {
    if (!this.stopped && !this.running) this.schedule(0);
  }

  /** Stops polling and waits for the job in hand. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(delayMs: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      if (this.stopped || this.running) return;
      this.running = this.drain().finally(() => {
        this.running = undefined;
        if (!this.stopped) this.schedule(this.options.pollMs);
      });
    }, delayMs);
    this.timer.unref();
  }

  private async drain(): Promise<void> {
    while (!this.stopped) {
      try {
        if (!(await this.options.runOne(this.id))) return;
      } catch (error) {
        this.options.log.warn({ err: error }, `${this.options.name} queue unavailable`);
        return;
      }
    }
  }
}
