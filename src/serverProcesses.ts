import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';

export interface ServerProcessesOptions {
  count: number;
  log: Logger;
  /** A message from a server process (rate-limit counter requests). */
  onMessage(worker: Worker, message: unknown): void;
}

/**
 * The primary process of an instance that serves from several processes (one event loop
 * per core): it forks `count` server processes, which share its listening socket, and
 * replaces one that dies while serving. One that exits before it listens stops the
 * instance: its cause (a port in use, a database not reachable) would stop the next one
 * too. SIGTERM and SIGINT are passed on; each process drains its requests, and the
 * primary exits once all have, with 1 if any failed.
 */
export function superviseServerProcesses({ count, log, onMessage }: ServerProcessesOptions): void {
  const listening = new Set<number>();
  let running = 0;
  let stopping: NodeJS.Signals | null = null;
  let exitCode = 0;

  const start = () => {
    running++;
    cluster.fork();
  };
  const stop = (signal: NodeJS.Signals) => {
    stopping = signal;
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
    if (running === 0) process.exit(exitCode);
  };

  // Each core already runs a server process's event loop: V8's garbage-collector threads would
  // compete with them for the cores, and one descheduled in the middle of a collection stretches
  // the pause of its event loop (measured: p99 at 400 to 500 mutations/s about halved without them).
  cluster.setupPrimary({ execArgv: [...process.execArgv, '--single-threaded-gc'] });
  cluster.on('message', onMessage);
  cluster.on('listening', (worker) => listening.add(worker.id));
  cluster.on('exit', (worker, code, signal) => {
    running--;
    const served = listening.delete(worker.id);
    if (stopping) {
      // One still starting has no handler yet: the signal ends it, as asked.
      if (code !== 0 && signal !== stopping) exitCode = 1;
      if (running === 0) process.exit(exitCode);
      return;
    }
    if (served) {
      log.error({ pid: worker.process.pid, code, signal }, 'a server process exited unexpectedly; starting another');
      start();
      return;
    }
    log.error({ pid: worker.process.pid, code, signal }, 'a server process exited before it served; stopping');
    exitCode = 1;
    stop('SIGTERM');
  });
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));

  for (let i = 0; i < count; i++) start();
  log.info({ processes: count }, 'serving from several processes');
}
