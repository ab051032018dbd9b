// npm run bench:floor: what the stack costs a request without the service's code, to tell
// the service's own share of its CPU apart from what any service on this stack pays.
// A bare Fastify server with the service's request log (bench/lib/floorServer.ts) answers
// BENCH_FLOOR_RATE (500) JSON POSTs a second, open loop, with the same generator as `npm run
// bench`, after 0 to 4 prepared-statement round trips to PostgreSQL each (a mutation of the
// service makes 3.5 on average). Prints CPU a request of the server, PostgreSQL and the
// generator, and p50/p99, per round-trip count. Settings: BENCH_DATABASE_URL,
// BENCH_FLOOR_RATE, BENCH_FLOOR_DURATION_S (15), BENCH_FLOOR_WARMUP_S (5).
import { spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { cpuReport, cpuTotals } from './lib/cpu.js';
import { runOpenLoop, type FlowOutcome } from './lib/openLoop.js';
import { summarize } from './lib/stats.js';

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const RATE = Number(process.env.BENCH_FLOOR_RATE ?? 500);
const DURATION_S = Number(process.env.BENCH_FLOOR_DURATION_S ?? 15);
const WARMUP_S = Number(process.env.BENCH_FLOOR_WARMUP_S ?? 5);
const PORT = 3990;
/** A request body about the size of a create's. */
const REQUEST = JSON.stringify({ key: 'k'.repeat(20), register_id: 'reg_xxxxxxxxxxxxxxxxxxxx', type: 'sale', line_items: [{ description: 'Artikel', quantity: '1', unit_price: '10.00', vat_rate: '19.00' }], payments: [{ method: 'cash', amount: '11.90' }] });

async function measure(roundTrips: number): Promise<void> {
  const server = spawn(process.execPath, ['--import', 'tsx', 'bench/lib/floorServer.ts'], {
    env: { ...process.env, NODE_ENV: 'production', PORT: String(PORT), FLOOR_ROUND_TRIPS: String(roundTrips), FLOOR_DATABASE_URL: DATABASE_URL },
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
    await runOpenLoop(RATE, WARMUP_S, call);
    const before = cpuTotals(server.pid);
    const startedAt = performance.now();
    const loop = await runOpenLoop(RATE, DURATION_S, call);
    const cpu = cpuReport(before, cpuTotals(server.pid), (performance.now() - startedAt) / 1000, loop.completed)?.ms_per_mutation;
    const latency = summarize(loop.latencies.request ?? []);
    console.log(
      `${roundTrips} round trips: ${loop.achievedRate} requests/s of ${RATE}; p50/p99 ${latency.p50}/${latency.p99} ms, errors ${JSON.stringify(loop.errors)}; ` +
        `CPU ms/request: server ${cpu?.server}, database ${cpu?.database}, generator ${cpu?.generator}`,
    );
  } finally {
    await http.close();
    server.kill('SIGTERM');
    await new Promise((resolve) => server.once('exit', resolve));
  }
}

for (const roundTrips of [0, 1, 2, 3, 4]) await measure(roundTrips);
