// What the benches share: the server as README starts it with the bench's tenant, one
// measured open-loop run at a fixed arrival rate (latency, CPU a mutation, the server's own
// view of it), and whether a run kept up.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { cpuReport, cpuTotals, type CpuReport } from './cpu.js';
import { benchClient, type BenchClient } from './fleet.js';
import { runOpenLoop, type FlowOutcome, type OpenLoopResult } from './openLoop.js';
import { startServer, type BenchServer } from './server.js';
import { logEnd, serverLatency } from './serverLatency.js';
import { summarize, type LatencySummary } from './stats.js';

/** The database server the benches create their databases on. */
export const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
export const ADMIN_TOKEN = 'bench-admin-token-0123456789';

export const databaseUrl = (name: string) => {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
};

export type Report = ReturnType<typeof report>;

function report(result: OpenLoopResult, registers: number, cpu: CpuReport | null, serverLatencyMs: Record<string, LatencySummary>) {
  return {
    target_mutations_per_s: result.targetRate * 2,
    registers,
    duration_s: result.durationS,
    flows_started: result.started,
    flows_completed: result.completed,
    flows_dropped: result.dropped,
    mutations_per_s: Math.round(result.achievedRate * 2 * 10) / 10,
    signed_completions_per_s: result.achievedRate,
    latency_ms: Object.fromEntries(Object.entries(result.latencies).map(([name, samples]) => [name, summarize(samples)])),
    /** The same calls from their arrival in the server to its response (its request log). */
    server_latency_ms: serverLatencyMs,
    slowest_call_per_second_ms: result.slowestPerSecond,
    errors: result.errors,
    statuses: result.statuses,
    cpu,
  };
}

/** The slower call type's p99 (create or complete). */
export const p99Of = (run: Report) => Math.max(run.latency_ms.create?.p99 ?? Infinity, run.latency_ms.complete?.p99 ?? Infinity);

/** Kept up: no errors, nothing dropped, at least 95 % of the offered rate. */
export const keptUp = (run: Report) => Object.keys(run.errors).length === 0 && run.flows_dropped === 0 && run.mutations_per_s >= run.target_mutations_per_s * 0.95;

export function print(label: string, run: Report) {
  const { create, complete } = run.latency_ms;
  const inServer = run.server_latency_ms;
  console.log(
    `  ${label}: ${run.mutations_per_s} mutations/s of ${run.target_mutations_per_s} on ${run.registers} registers; ` +
      `create p50/p99 ${create?.p50}/${create?.p99} ms, complete p50/p99 ${complete?.p50}/${complete?.p99} ms ` +
      `(in the server ${inServer.create?.p50}/${inServer.create?.p99} and ${inServer.complete?.p50}/${inServer.complete?.p99}), errors ${JSON.stringify(run.errors)}` +
      (run.cpu
        ? `; CPU ms/mutation: server ${run.cpu.ms_per_mutation.server}, database ${run.cpu.ms_per_mutation.database}, generator ${run.cpu.ms_per_mutation.generator}` +
          `; system calls/mutation: server ${run.cpu.syscalls_per_mutation.server}, database ${run.cpu.syscalls_per_mutation.database}`
        : ''),
  );
}

export async function run(
  label: string,
  server: BenchServer,
  rate: number,
  durationS: number,
  registers: number,
  flow: (index: number) => Promise<FlowOutcome>,
): Promise<Report> {
  const before = cpuTotals(server.process.pid);
  const logOffset = logEnd(server.logFile);
  const startedAt = performance.now();
  const startedAtMs = Date.now();
  const loop = await runOpenLoop(rate / 2, durationS, flow);
  // Until the last flow answered: a backlog drains after the offered load stops.
  const elapsedS = (performance.now() - startedAt) / 1000;
  const cpu = cpuReport(before, cpuTotals(server.process.pid), elapsedS, loop.completed * 2);
  const endedAtMs = Date.now();
  // The server's processes write their log in blocks within a quarter of a second (src/lib/logDestination.ts).
  await new Promise((resolve) => setTimeout(resolve, 400));
  const result = report(loop, registers, cpu, serverLatency(server.logFile, logOffset, startedAtMs, endedAtMs));
  print(label, result);
  return result;
}

/** The server as README starts it, on `databaseUrl` or (undefined) the embedded database, with the bench's tenant. */
export async function benchServer(databaseUrlOrEmbedded: string | undefined): Promise<{ server: BenchServer; client: BenchClient; tenantId: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'fiscal-bench-'));
  const server = await startServer(
    {
      ...(databaseUrlOrEmbedded ? { DATABASE_URL: databaseUrlOrEmbedded } : {}),
      ADMIN_TOKEN,
      // The default request log, whatever the caller's environment says: one line a request, as a user runs it.
      LOG_LEVEL: 'info',
      // The contract's budget is per API key; the bench's one key per country sends more than that.
      RATE_LIMIT_PER_SECOND: '1000000',
      SEED_DEMO_TENANT: 'false',
      DATA_DIR: dataDir,
      SECRETS_KEY: 'ab'.repeat(32),
    },
    3900 + Math.floor(Math.random() * 90),
    join(dataDir, 'server.log'),
  );
  const client = benchClient(server.baseUrl);
  const tenant = await client.call('POST', '/admin/v1/tenants', { name: 'bench' }, { authorization: `Bearer ${ADMIN_TOKEN}` });
  return { server, client, tenantId: tenant.json.id };
}
