// npm run bench: the service as README starts it (default settings, request log at info)
// on the machine's PostgreSQL, driven over loopback at a fixed arrival rate (create a sale,
// then complete it: signed by the register's device), then the same on the embedded database.
// Results: bench/results/load-*.json.
//
// Rates count mutations (POST calls) per second: a flow is one create and one signed
// complete, so 500 mutations/s is 250 sales created and completed per second. A run:
// - warm-up (not measured: the JIT compiles the hot paths, the pool opens its connections);
// - the main run, Germany (TSE), at BENCH_RATE on each register count of BENCH_REGISTERS
//   (a fleet: many registers at a modest rate each; and a few busy ones);
// - one run per other regime at the same rate: Austria (RKSV) and Italy (RT simulator);
// - a step test for the highest rate with p99 < 50 ms and no errors;
// - pgbench's ceiling for one completion's statements as plain SQL on the same server;
// - the embedded database (PGlite): warm-up and the main run (one transaction at a time).
// Settings: BENCH_DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/postgres),
// BENCH_RATE (500), BENCH_DURATION_S (60), BENCH_WARMUP_S (10), BENCH_REGISTERS ("40,8"),
// BENCH_REGIME_DURATION_S (30), BENCH_STEPS ("200,300,400,500,600,800,1000,1100,1200,1300,1400,1600"; it stops after the first rate not kept up), BENCH_STEP_S (10),
// BENCH_PGBENCH_S (15), BENCH_EMBEDDED_DURATION_S (30; 0 skips the embedded run),
// BENCH_RESULTS_DIR (bench/results), BENCH_SERVER_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof").
import { execFileSync } from 'node:child_process';
import { cpus } from 'node:os';
import pg from 'pg';
import { saleFlow, setUpFleet, type Fleet } from './lib/fleet.js';
import { runOpenLoop } from './lib/openLoop.js';
import { writeResults } from './lib/results.js';
import { ADMIN_TOKEN, ADMIN_URL, benchServer, databaseUrl, keptUp, p99Of, run } from './lib/runs.js';

const RATE = Number(process.env.BENCH_RATE ?? 500);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 60);
const WARMUP_S = Number(process.env.BENCH_WARMUP_S ?? 10);
const REGISTER_COUNTS = (process.env.BENCH_REGISTERS ?? '40,8').split(',').map(Number);
const REGIME_DURATION_S = Number(process.env.BENCH_REGIME_DURATION_S ?? 30);
const STEPS = (process.env.BENCH_STEPS ?? '200,300,400,500,600,800,1000,1100,1200,1300,1400,1600').split(',').map(Number);
const STEP_S = Number(process.env.BENCH_STEP_S ?? 10);
const PGBENCH_S = Number(process.env.BENCH_PGBENCH_S ?? 15);
const EMBEDDED_DURATION_S = Number(process.env.BENCH_EMBEDDED_DURATION_S ?? 30);
const P99_TARGET_MS = 50;
const FLEET_SIZE = Math.max(...REGISTER_COUNTS);

async function postgresRuns(dbName: string) {
  const { server, client, tenantId } = await benchServer(databaseUrl(dbName));
  try {
    console.log(`setting up: ${FLEET_SIZE} registers each in Germany, Austria and Italy`);
    const fleets: Record<string, Fleet> = {};
    for (const country of ['DEU', 'AUT', 'ITA'] as const) fleets[country] = await setUpFleet(client, ADMIN_TOKEN, tenantId, country, FLEET_SIZE);
    const germany = (registers: number) => saleFlow(client, fleets.DEU, registers);

    console.log(`warm-up: ${RATE} mutations/s for ${WARMUP_S} s, each regime`);
    for (const fleet of Object.values(fleets)) await runOpenLoop(RATE / 2, WARMUP_S, saleFlow(client, fleet));

    console.log(`main runs: Germany (TSE), ${RATE} mutations/s for ${DURATION_S} s`);
    const main = [];
    for (const registers of REGISTER_COUNTS) main.push(await run(`Germany, ${registers} registers`, server, RATE, DURATION_S, registers, germany(registers)));

    console.log(`one flow per regime: ${RATE} mutations/s for ${REGIME_DURATION_S} s on ${FLEET_SIZE} registers`);
    const regimes = {
      kassensichv: await run('Germany (KassenSichV, TSE)', server, RATE, REGIME_DURATION_S, FLEET_SIZE, germany(FLEET_SIZE)),
      rksv: await run('Austria (RKSV)', server, RATE, REGIME_DURATION_S, FLEET_SIZE, saleFlow(client, fleets.AUT)),
      rt: await run('Italy (RT simulator)', server, RATE, REGIME_DURATION_S, FLEET_SIZE, saleFlow(client, fleets.ITA)),
    };

    console.log(`step test: Germany on ${FLEET_SIZE} registers, ${STEP_S} s a step`);
    const steps = [];
    for (const rate of STEPS) {
      const step = await run(`step ${rate}`, server, rate, STEP_S, FLEET_SIZE, germany(FLEET_SIZE));
      steps.push(step);
      // A rate the server cannot keep up with only queues more at every higher one.
      if (!keptUp(step)) break;
    }
    return { main, regimes, steps, peakMemoryMiB: server.peakMemoryMiB() };
  } finally {
    await client.close();
    await server.stop();
  }
}

async function embeddedRun() {
  const { server, client, tenantId } = await benchServer(undefined);
  try {
    const fleet = await setUpFleet(client, ADMIN_TOKEN, tenantId, 'DEU', FLEET_SIZE);
    console.log(`embedded database (PGlite): warm-up, then ${RATE} mutations/s for ${EMBEDDED_DURATION_S} s`);
    await runOpenLoop(RATE / 2, WARMUP_S, saleFlow(client, fleet));
    const result = await run('embedded, Germany', server, RATE, EMBEDDED_DURATION_S, FLEET_SIZE, saleFlow(client, fleet));
    return { ...result, server_peak_memory_mib: server.peakMemoryMiB() };
  } finally {
    await client.close();
    await server.stop();
  }
}

async function main() {
  const dbName = `fiscal_bench_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  try {
    const postgres = await postgresRuns(dbName);
    const sustainable = postgres.steps.filter((step) => keptUp(step) && p99Of(step) < P99_TARGET_MS).reduce((best, step) => Math.max(best, step.target_mutations_per_s), 0);
    const sustainableStep = postgres.steps.find((step) => step.target_mutations_per_s === sustainable);

    // pgbench: the same work as one completion, as plain SQL on the same server.
    const benchUrl = databaseUrl(dbName);
    execFileSync('psql', [benchUrl, '-q', '-f', 'bench/pgbench/setup.sql'], { stdio: 'ignore' });
    const pgbenchOut = execFileSync('pgbench', ['-n', '-c', '16', '-j', '2', '-T', String(PGBENCH_S), '-f', 'bench/pgbench/completion.sql', benchUrl], {
      encoding: 'utf8',
    });
    const pgbenchTps = Number(/tps = ([\d.]+)/.exec(pgbenchOut)?.[1] ?? 0);
    const fraction = (completionsPerS: number) => (pgbenchTps ? Math.round((completionsPerS / pgbenchTps) * 1000) / 1000 : null);

    const embedded = EMBEDDED_DURATION_S > 0 ? await embeddedRun() : null;

    const results = {
      at: new Date().toISOString(),
      machine: { cpus: cpus().length, node: process.version },
      targets: { main_p99_ms: 20, sustainable_p99_ms: P99_TARGET_MS, sustainable_mutations_per_s: 1000, fraction_of_pgbench_ceiling: 0.25, errors: 0 },
      warmup_s: WARMUP_S,
      main: postgres.main.map((result) => ({ ...result, meets_target: keptUp(result) && p99Of(result) < 20 })),
      regimes: postgres.regimes,
      step_test: { steps: postgres.steps, highest_sustainable_mutations_per_s: sustainable },
      pgbench: {
        transactions_per_s: pgbenchTps,
        our_completions_per_s_at_main_rate: postgres.main[0]?.signed_completions_per_s ?? 0,
        fraction_of_ceiling_at_main_rate: fraction(postgres.main[0]?.signed_completions_per_s ?? 0),
        our_completions_per_s_at_highest_sustainable: sustainableStep?.signed_completions_per_s ?? 0,
        fraction_of_ceiling_at_highest_sustainable: fraction(sustainableStep?.signed_completions_per_s ?? 0),
      },
      server_peak_memory_mib: postgres.peakMemoryMiB,
      embedded,
    };
    const file = writeResults('load', results);
    console.log('');
    for (const result of results.main) console.log(`main run on ${result.registers} registers: p99 ${p99Of(result)} ms, target (p99 < 20 ms, no errors) met: ${result.meets_target}`);
    console.log(`highest rate with p99 < ${P99_TARGET_MS} ms and no errors: ${sustainable} mutations/s`);
    console.log(
      `pgbench ceiling: ${pgbenchTps} completions/s; ours ${results.pgbench.our_completions_per_s_at_highest_sustainable}/s at the highest sustainable rate ` +
        `(${results.pgbench.fraction_of_ceiling_at_highest_sustainable} of it)`,
    );
    console.log(`server peak memory: ${results.server_peak_memory_mib} MiB\nwrote ${file}`);
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
  }
}

await main();
