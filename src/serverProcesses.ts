import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import { backoffDelayMs } from './domain/backoff.js';

/**
 * V8 settings of the server processes.
 * - `--single-threaded-gc`: the cores already run the server processes' event loops and the
 *   database's backends, so V8's garbage-collector threads would compete with them for the
 *   cores, and one descheduled in the middle of a collection stretches the pause of its event
 *   loop (measured: p99 at 400 to 500 mutations/s about halved without them).
 * - `--always-sparkplug`: a function gets V8's baseline machine code at its first call instead of
 *   running in the interpreter until it is found hot. A process that starts under load then
 *   catches up seconds sooner (measured: the backlog of a cold start at 250 to 300 mutations/s
 *   drained in 4 to 5 s instead of 5 to 9 s); the optimized code of a warm process is the same.
 */
const SERVER_PROCESS_V8_FLAGS = ['--single-threaded-gc', '--always-sparkplug'];

export interface ServerProcessesOptions {
  count: number;
  log: Logger;
  /** A message from a server process (rate-limit counter requests). */
  onMessage(worker: Worker, message: unknown): void;
}

/**
 * The primary process of an instance that serves from several processes (one event loop
 * each, one per two cores by default): it forks `count` server processes, which share its
 * listening socket, and replaces one that dies while serving. One that exits before the
 * instance ever listened stops it: its cause (a port in use, a bad setting) would stop the
 * next one too. A replacement that exits before it listens is tried again, 1 s later,
 * doubling up to 30 s, while the others serve. SIGTERM and SIGINT are passed on; each process
 * drains its requests, and the primary exits once all have, with 1 if any failed.
 */
export function superviseServerProcesses({ count, log, onMessage }: ServerProcessesOptions): void {
  const listening = new Set<number>();
  const pendingRestarts = new Set<NodeJS.Timeout>();
  let instanceListened = false;
  let failedRestarts = 0;
  let running = 0;
  let stopping: NodeJS.Signals | null = null;
  let exitCode = 0;

  const start = () => {
    running++;
    cluster.fork();
  };
  const stop = (signal: NodeJS.Signals) => {
    stopping = signal;
    for (const timer of pendingRestarts) clearTimeout(timer);
    pendingRestarts.clear();
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
    if (running === 0) process.exit(exitCode);
  };

  cluster.setupPrimary({ execArgv: [...process.execArgv, ...SERVER_PROCESS_V8_FLAGS] });
  cluster.on('message', onMessage);
  cluster.on('listening', (worker) => {
    listening.add(worker.id);
    instanceListened = true;
    failedRestarts = 0;
  });
  cluster.on('exit', (worker, code, signal) => {
    running--;
    const served = listening.delete(worker.id);
    const exited = { pid: worker.process.pid, code, signal };
    if (stopping) {
      // One still starting has no handler yet: the signal ends it, as asked.
      if (code !== 0 && signal !== stopping) exitCode = 1;
      if (running === 0) process.exit(exitCode);
      return;
    }
    if (served) {
      log.error(exited, 'a server process exited unexpectedly; starting another');
      start();
      return;
    }
    if (!instanceListened) {
      log.error(exited, 'a server process exited before the instance served; stopping');
      exitCode = 1;
      stop('SIGTERM');
      return;
    }
    const retryInMs = backoffDelayMs(++failedRestarts, 1000, 30_000);
    log.error({ ...exited, retryInMs }, 'a replacement server process exited before it served; trying again');
    const timer = setTimeout(() => {
      pendingRestarts.delete(timer);
      start();
    }, retryInMs);
    pendingRestarts.add(timer);
  });
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));

  for (let i = 0; i < count; i++) start();
  log.info({ processes: count }, 'serving from several processes');
}
