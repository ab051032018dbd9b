import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { openSync, readFileSync } from 'node:fs';
import { processTree } from './cpu.js';

export interface BenchServer {
  baseUrl: string;
  process: ChildProcess;
  /** The request log of its processes (JSON lines). */
  logFile: string;
  /** Peak resident memory of the server's processes so far (the sum of their VmHWM), in MiB. */
  peakMemoryMiB(): number;
  stop(): Promise<void>;
}

/**
 * Starts the server as `npm start` does, compiled and then run by node, as its own process (the load
 * generator must not share its CPU budget with it).
 */
export async function startServer(env: Record<string, string>, port: number, logFile: string): Promise<BenchServer> {
  execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
  // BENCH_SERVER_NODE_ARGS, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof", profiles the server under load.
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, 'dist/server.js'], {
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', NODE_ENV: 'production' },
    // The request log at the default level (info), as a user runs it, to a file as a log collector would read it.
    stdio: ['ignore', openSync(logFile, 'a'), 'inherit'],
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    try {
      const response = await fetch(`${baseUrl}/readyz`);
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error('server did not become ready');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    baseUrl,
    process: child,
    logFile,
    peakMemoryMiB() {
      let kb = 0;
      for (const pid of child.pid === undefined ? [] : processTree(child.pid)) {
        try {
          kb += Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
        } catch {
          // exited meanwhile
        }
      }
      return Math.round((kb / 1024) * 10) / 10;
    },
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}
