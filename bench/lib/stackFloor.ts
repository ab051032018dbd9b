// The stack without the service's code (bench/lib/floorServer.ts: Fastify with the service's
// request log, JSON in and out, `roundTrips` prepared statements a request), loaded at a fixed
// rate by the benches' generator: what any service on this stack pays a request in this hour.
// Used by `npm run bench:floor` (0 to 4 round trips) and by `npm run bench:compare` (the
// service's half-load rate, as many round trips as a signed mutation makes).
import { spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { cpuReport, cpuTotals, type CpuReport } from './cpu.js';
import { runOpenLoop, type FlowOutcome } from './openLoop.js';
import { summarize, type LatencySummary } from './stats.js';

const PORT = 3990;
/** A request body about the size of a create's. */
const REQUEST = JSON.stringify({ key: 'k'.repeat(20), register_id: 'reg_xxxxxxxxxxxxxxxxxxxx', type: 'sale', line_items: [{ description: 'Artikel', quantity: '1', unit_price: '10.00', vat_rate: '19.00' }], payments: [{ method: 'cash', amount: '11.90' }] });

export interface StackFloorRun {
  round_trips: number;
  requests_per_s: number;
  target_requests_per_s: number;
  latency_ms: LatencySummary;
  errors: Record<string, number>;
  /** CPU milliseconds a request of the floor server, of PostgreSQL and of the generator. */
  cpu_ms_per_request: CpuReport['ms_per_mutation'] | null;
}

export interface StackFloorSettings {
  databaseUrl: string;
  rate: number;
  roundTrips: number;
  durationS: number;
  warmupS: number;
}

export async function measureStackFloor({ databaseUrl, rate, roundTrips, durationS, warmupS }: StackFloorSettings): Promise<StackFloorRun> {
  const server = spawn(process.execPath, ['--import', 'tsx', 'bench/lib/floorServer.ts'], {
    env: { ...process.env, NODE_ENV: 'production', PORT: String(PORT), FLOOR_ROUND_TRIPS: String(roundTrips), FLOOR_DATABASE_URL: databaseUrl },
    stdio: ['ignore', openSync(join(tmpdir(), 'fiscal-bench-floor.log'), 'w'), 'inherit'],
  });
  const http = new Pool(`http://127.0.0.1:${PORT}`, { connections: 256 });
  try {
    for (let ready = false; !ready; ) {
      if (server.exitCode !== null) throw new Error(`floor server exited with ${server.exitCode}`);
      ready = await http.request({ method: 'GET', path: '/ready' }).then(
        async (response) => (await response.body.text(), response.statusCode === 200),
        () => false,
      );
      if (!ready) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const call = async (): Promise<FlowOutcome> => {
      const started = performance.now();
      const response = await http.request({ method: 'POST', path: '/floor', headers: { 'content-type': 'application/json' }, body: REQUEST });
      await response.body.text();
      return { calls: [{ name: 'request', ms: performance.now() - started, ok: response.statusCode === 201, status: response.statusCode }] };
    };
    await runOpenLoop(rate, warmupS, call);
    const before = cpuTotals(server.pid);
    const startedAt = performance.now();
    const loop = await runOpenLoop(rate, durationS, call);
    return {
      round_trips: roundTrips,
      requests_per_s: loop.achievedRate,
      target_requests_per_s: rate,
      latency_ms: summarize(loop.latencies.request ?? []),
      errors: loop.errors,
      cpu_ms_per_request: cpuReport(before, cpuTotals(server.pid), (performance.now() - startedAt) / 1000, loop.completed)?.ms_per_mutation ?? null,
    };
  } finally {
    await http.close();
    server.kill('SIGTERM');
    await new Promise((resolve) => server.once('exit', resolve));
  }
}
