// npm run bench:compare: what a signed sale costs, as ratios measured in one run on one database
// (issue 45), so runs on a host whose speed varies 3-4x from hour to hour can be compared:
// - pgbench's ceiling for the least a signed sale costs the database (bench/pgbench/signedSale.sql:
//   insert the operation, take the counter, write the outbox row), on the same server;
// - the service's capacity for signed sale flows (create + complete, software TSE, 40 registers):
//   the highest stepped rate it keeps up with (no errors, nothing dropped, 95 % achieved);
// - at half that capacity: CPU milliseconds a signed mutation of the server's processes and of
//   PostgreSQL's (Linux /proc), p50/p99 of both calls, and their read and write system calls a
//   mutation (/proc/<pid>/io, see lib/cpu.ts), a count the host's speed hardly moves;
// - at that same rate, the floors of this hour: the bare stack's CPU a request (lib/stackFloor.ts,
//   as many round trips as a signed mutation makes) and PostgreSQL's CPU a pgbench sale (the
//   same script throttled to the service's signed sales a second), so the service's own share
//   of each side's CPU is read against what no code of the service can go below.
// Prints one line of ratios and writes bench/results/compare-*.json. Settings: BENCH_DATABASE_URL,
// BENCH_COMPARE_STEPS (mutations/s, default "200,400,600,800,1000,1200,1400,1600,2000"),
// BENCH_COMPARE_RESOLUTION (50: capacity is narrowed between the steps to this many mutations/s),
// BENCH_STEP_S (8), BENCH_HALF_S (20), BENCH_WARMUP_S (10), BENCH_PGBENCH_S (15).
import { execFileSync } from 'node:child_process';
import { cpus } from 'node:os';
import pg from 'pg';
import { saleFlow, setUpFleet } from './lib/fleet.js';
import { runOpenLoop } from './lib/openLoop.js';
import { writeResults } from './lib/results.js';
import { ADMIN_TOKEN, ADMIN_URL, benchServer, databaseUrl, keptUp, p99Of, run, type Report } from './lib/runs.js';
import { databaseMsPer, databaseTotals } from './lib/cpu.js';
import { measureStackFloor } from './lib/stackFloor.js';

const STEPS = (process.env.BENCH_COMPARE_STEPS ?? '200,400,600,800,1000,1200,1400,1600,2000').split(',').map(Number);
const STEP_S = Number(process.env.BENCH_STEP_S ?? 8);
const HALF_S = Number(process.env.BENCH_HALF_S ?? 20);
const WARMUP_S = Number(process.env.BENCH_WARMUP_S ?? 10);
const PGBENCH_S = Number(process.env.BENCH_PGBENCH_S ?? 15);
const RESOLUTION = Number(process.env.BENCH_COMPARE_RESOLUTION ?? 50);
const REGISTERS = 40;
/** A signed sale flow is 6 round trips on PostgreSQL (test/http/transactionReads.test.ts), 3 a mutation. */
const ROUND_TRIPS_PER_MUTATION = 3;
const SIGNED_SALE_SCRIPT = 'bench/pgbench/signedSale.sql';

const round = (value: number, places = 3) => Math.round(value * 10 ** places) / 10 ** places;

/** pgbench's transactions a second for `script` on `url` (16 clients, 2 threads). */
function pgbenchTps(url: string, script: string): number {
  execFileSync('psql', [url, '-q', '-f', 'bench/pgbench/setup.sql'], { stdio: 'ignore' });
  const out = execFileSync('pgbench', ['-n', '-c', '16', '-j', '2', '-T', String(PGBENCH_S), '-f', script, url], { encoding: 'utf8' });
  return Math.round(Number(/tps = ([\d.]+)/.exec(out)?.[1] ?? 0));
}

/** PostgreSQL's CPU milliseconds a transaction of `script` throttled to `rate` a second for `seconds`. */
function pgbenchAtRate(url: string, script: string, rate: number, seconds: number) {
  const before = databaseTotals();
  const out = execFileSync('pgbench', ['-n', '-c', '16', '-j', '2', '-R', String(rate), '-T', String(seconds), '-f', script, url], { encoding: 'utf8' });
  const after = databaseTotals();
  const transactions = Number(/number of transactions actually processed: (\d+)/.exec(out)?.[1] ?? 0);
  return { transactions_per_s: round(transactions / seconds, 1), postgres_cpu_ms_per_transaction: databaseMsPer(before, after, transactions) };
}

async function measure(dbName: string) {
  const { server, client, tenantId } = await benchServer(databaseUrl(dbName));
  try {
    const fleet = await setUpFleet(client, ADMIN_TOKEN, tenantId, 'DEU', REGISTERS);
    const flow = saleFlow(client, fleet);
    console.log(`warm-up: ${STEPS[0]} mutations/s for ${WARMUP_S} s`);
    await runOpenLoop(STEPS[0]! / 2, WARMUP_S, flow);

    console.log(`capacity: signed sale flows on ${REGISTERS} registers, ${STEP_S} s a step`);
    let capacity: Report | null = null;
    const steps: Report[] = [];
    for (const rate of STEPS) {
      const step = await run(`step ${rate}`, server, rate, STEP_S, REGISTERS, flow);
      steps.push(step);
      if (!keptUp(step)) break;
      capacity = step;
    }
    // The steps are coarse: halve the gap between the last rate kept up and the first not, down to RESOLUTION.
    const failed = steps.at(-1)!;
    let low = capacity?.target_mutations_per_s ?? 0;
    let high = keptUp(failed) ? low : failed.target_mutations_per_s;
    while (high - low > RESOLUTION) {
      const rate = Math.round((low + high) / 2);
      const step = await run(`step ${rate}`, server, rate, STEP_S, REGISTERS, flow);
      steps.push(step);
      if (keptUp(step)) {
        capacity = step;
        low = rate;
      } else {
        high = rate;
      }
    }
    const capacityMutations = capacity?.mutations_per_s ?? 0;
    const halfRate = Math.max(20, Math.round(capacityMutations / 2));
    console.log(`half load: ${halfRate} mutations/s for ${HALF_S} s`);
    const half = await run(`half load ${halfRate}`, server, halfRate, HALF_S, REGISTERS, flow);
    return { steps, capacityMutations, halfRate, half, peakMemoryMiB: server.peakMemoryMiB() };
  } finally {
    await client.close();
    await server.stop();
  }
}

async function main() {
  const dbName = `fiscal_compare_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  try {
    const service = await measure(dbName);
    console.log(`pgbench: a signed sale's least cost, ${PGBENCH_S} s`);
    const ceiling = pgbenchTps(databaseUrl(dbName), SIGNED_SALE_SCRIPT);
    console.log(`floors at ${service.halfRate} mutations/s: the bare stack with ${ROUND_TRIPS_PER_MUTATION} round trips a request, then pgbench at ${service.halfRate / 2} sales/s, ${HALF_S} s each`);
    const stack = await measureStackFloor({ databaseUrl: databaseUrl(dbName), rate: service.halfRate, roundTrips: ROUND_TRIPS_PER_MUTATION, durationS: HALF_S, warmupS: WARMUP_S });
    const pgbenchSales = pgbenchAtRate(databaseUrl(dbName), SIGNED_SALE_SCRIPT, service.halfRate / 2, HALF_S);
    // A flow is two mutations (create, complete) and one signed sale; pgbench's transaction is one sale.
    const signedSalesPerS = service.capacityMutations / 2;
    const cpu = service.half.cpu?.ms_per_mutation ?? null;
    const syscalls = service.half.cpu?.syscalls_per_mutation ?? null;
    const ratios = {
      capacity_fraction_of_pgbench: ceiling ? round(signedSalesPerS / ceiling) : null,
      server_cpu_ms_per_mutation: cpu?.server ?? null,
      postgres_cpu_ms_per_mutation: cpu?.database ?? null,
      p99_ms_at_half_capacity: p99Of(service.half),
      server_cpu_over_stack_floor: cpu && stack.cpu_ms_per_request ? round(cpu.server / stack.cpu_ms_per_request.server, 2) : null,
      postgres_cpu_a_sale_over_pgbench: cpu && pgbenchSales.postgres_cpu_ms_per_transaction ? round((2 * cpu.database) / pgbenchSales.postgres_cpu_ms_per_transaction, 2) : null,
    };
    const floors = {
      rate_mutations_per_s: service.halfRate,
      stack,
      pgbench_signed_sales: pgbenchSales,
    };
    const results = {
      at: new Date().toISOString(),
      machine: { cpus: cpus().length, node: process.version },
      targets: { capacity_fraction_of_pgbench: 0.4, server_cpu_ms_per_mutation: 0.35, postgres_cpu_ms_per_mutation: 0.5, p99_ms_at_half_capacity: 20 },
      ratios,
      pgbench_signed_sales_per_s: ceiling,
      service_capacity: { mutations_per_s: service.capacityMutations, signed_sales_per_s: signedSalesPerS, steps: service.steps },
      half_load: service.half,
      // Counts, not times: the server's show a round trip more or less whatever the host's speed.
      syscalls_per_mutation_at_half_capacity: syscalls,
      // What any code pays at the half-load rate in this hour: the targets are read against these.
      floors_at_half_capacity: floors,
      server_peak_memory_mib: service.peakMemoryMiB,
    };
    const file = writeResults('compare', results);
    console.log('');
    console.log(
      `service/pgbench capacity ${ratios.capacity_fraction_of_pgbench} (${signedSalesPerS} of ${ceiling} signed sales/s); ` +
        `server CPU ${ratios.server_cpu_ms_per_mutation} ms/mutation; PostgreSQL CPU ${ratios.postgres_cpu_ms_per_mutation} ms/mutation; ` +
        `p99 at half capacity ${ratios.p99_ms_at_half_capacity} ms; system calls a mutation: server ${syscalls?.server ?? null}, PostgreSQL ${syscalls?.database ?? null}`,
    );
    console.log(
      `floors at ${service.halfRate} mutations/s: bare stack ${stack.cpu_ms_per_request?.server ?? null} ms/request (${ROUND_TRIPS_PER_MUTATION} round trips; the server ${ratios.server_cpu_over_stack_floor}x); ` +
        `PostgreSQL ${pgbenchSales.postgres_cpu_ms_per_transaction} ms a pgbench sale (the service's sale ${ratios.postgres_cpu_a_sale_over_pgbench}x)`,
    );
    console.log(`wrote ${file}`);
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
  }
}

await main();
