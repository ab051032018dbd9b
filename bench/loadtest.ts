// npm run bench: the service on the machine's PostgreSQL, driven over loopback
// at a fixed arrival rate (create a sale, then complete it: signed by the TSE),
// a step test for the highest sustainable rate, and pgbench's ceiling for an
// equivalent transaction on the same server. Results: bench/results/*.json.
//
// Rates count mutations (POST calls) per second: a flow is one create and one
// signed complete, so 500 mutations/s is 250 sales created and completed per second.
// Settings: BENCH_DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/postgres),
// BENCH_RATE (500), BENCH_DURATION_S (60), BENCH_WARMUP_S (10), BENCH_STEPS
// ("200,300,400,500,600,700,800,900,1000"), BENCH_STEP_S (10), BENCH_REGISTERS (50),
// BENCH_PGBENCH_S (15), BENCH_AUT_DURATION_S (30: the same rate, flows alternating between
// German and Austrian registers, each country's calls measured apart), BENCH_RESULTS_DIR (bench/results).
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { Pool } from 'undici';
import { runOpenLoop, type FlowOutcome, type OpenLoopResult } from './lib/openLoop.js';
import { startServer } from './lib/server.js';
import { writeResults } from './lib/results.js';
import { summarize } from './lib/stats.js';

const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const RATE = Number(process.env.BENCH_RATE ?? 500);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 60);
const WARMUP_S = Number(process.env.BENCH_WARMUP_S ?? 10);
const STEPS = (process.env.BENCH_STEPS ?? '200,300,400,500,600,700,800,900,1000').split(',').map(Number);
const STEP_S = Number(process.env.BENCH_STEP_S ?? 10);
const REGISTERS = Number(process.env.BENCH_REGISTERS ?? 50);
const PGBENCH_S = Number(process.env.BENCH_PGBENCH_S ?? 15);
const AUT_DURATION_S = Number(process.env.BENCH_AUT_DURATION_S ?? 30);
const P99_TARGET_MS = 50;
const ADMIN_TOKEN = 'bench-admin-token-0123456789';

/** Each country's merchant and the tax of the bench's one line (11.90 gross). */
const MERCHANT_OF_COUNTRY = {
  DEU: {
    legalName: 'Bench GmbH',
    address: { line1: 'Friedrichstraße 1', city: 'Berlin', postal_code: '10117', country_code: 'DEU' },
    identity: { country_code: 'DEU', tax_number: '21/815/08150', vat_id: 'DE123456789' },
    line: { name: 'MwSt', rate: '0.19', tax_amount: '1.9' },
  },
  AUT: {
    legalName: 'Bench Wien GmbH',
    address: { line1: 'Stephansplatz 1', city: 'Wien', postal_code: '1010', country_code: 'AUT' },
    identity: { country_code: 'AUT', legal_entity_id_type: 'VAT_ID', vat_id: 'ATU12345678' },
    line: { name: 'USt', rate: '0.20', tax_amount: '1.98333333' },
  },
} as const;

const databaseUrl = (name: string) => {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
};

async function main() {
  const dbName = `fiscal_bench_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  const port = 3900 + Math.floor(Math.random() * 90);
  const server = await startServer(
    {
      DATABASE_URL: databaseUrl(dbName),
      DATABASE_POOL_SIZE: process.env.BENCH_POOL_SIZE ?? '20',
      ADMIN_TOKEN,
      RATE_LIMIT_PER_SECOND: '1000000',
      SEED_DEMO_TENANT: 'false',
      DATA_DIR: mkdtempSync(join(tmpdir(), 'fiscal-bench-')),
      SECRETS_KEY: 'ab'.repeat(32),
    },
    port,
  );
  const http = new Pool(server.baseUrl, { connections: 256 });
  const call = async (method: string, path: string, body: unknown, headers: Record<string, string> = {}) => {
    const response = await http.request({
      method: method as 'POST',
      path,
      headers: { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.body.text();
    return { status: response.statusCode, json: text ? JSON.parse(text) : undefined };
  };

  try {
    // Setup through the public API: a merchant per country, each with REGISTERS fiscalized registers and open sessions.
    const tenant = await call('POST', '/admin/v1/tenants', { name: 'bench' }, { authorization: `Bearer ${ADMIN_TOKEN}` });
    const countrySetup = async (country: 'DEU' | 'AUT') => {
      const key = await call('POST', `/admin/v1/tenants/${tenant.json.id}/api-keys`, { kind: 'tenant', country_code: country }, {
        authorization: `Bearer ${ADMIN_TOKEN}`,
      });
      const auth = { authorization: `Bearer ${key.json.api_key}` };
      const { address, identity, legalName } = MERCHANT_OF_COUNTRY[country];
      const merchant = await call('POST', '/v1/merchants', { legal_name: legalName, country_code: country, address, fiscal_identities: [identity] }, auth);
      const headers = { ...auth, 'x-service-merchant': merchant.json.id };
      const location = await call('POST', '/v1/locations', { name: 'Bench', address }, headers);
      const registers: string[] = [];
      for (let i = 0; i < REGISTERS; i += 1) {
        const register = await call('POST', '/v1/registers', { location_id: location.json.id, name: `Kasse ${i}` }, headers);
        const fiscalized = await call('POST', `/v1/registers/${register.json.id}/fiscalize`, undefined, headers);
        if (fiscalized.status !== 200) throw new Error(`fiscalize ${country} failed: ${JSON.stringify(fiscalized.json)}`);
        await call('POST', '/v1/operations', { type: 'session_open', register_id: register.json.id, opening_amount: '100.00' }, {
          ...headers,
          'idempotency-key': `open-${register.json.id}`,
        });
        registers.push(register.json.id);
      }
      return { headers, registers, line: MERCHANT_OF_COUNTRY[country].line };
    };
    const germany = await countrySetup('DEU');
    const austria = await countrySetup('AUT');

    let sequence = 0;
    const sale = (registerId: string, line: object) => ({
      type: 'sale',
      source: 'POS',
      currency: 'EUR',
      register_id: registerId,
      tip_amount: '0.00',
      total_amount: '11.90',
      line_items: [{ title: 'Brot', quantity: 1, unit_price: '11.90', total_amount: '11.90', sku_identifier: 'SKU-1', taxes: [line] }],
    });
    /** A flow on the country's registers; `tag` names its calls apart (create_aut) where countries share a run. */
    const flowOn = ({ headers, registers, line }: Awaited<ReturnType<typeof countrySetup>>, tag = '') => async (index: number): Promise<FlowOutcome> => {
      const registerId = registers[index % registers.length];
      const runId = `${process.pid}-${sequence++}`;
      const calls: FlowOutcome['calls'] = [];
      let started = performance.now();
      const created = await call('POST', '/v1/operations', sale(registerId, line), { ...headers, 'idempotency-key': `c-${runId}` });
      calls.push({ name: `create${tag}`, ms: performance.now() - started, ok: created.status === 201, status: created.status });
      if (created.status !== 201) return { calls };
      started = performance.now();
      const completed = await call(
        'POST',
        `/v1/operations/${created.json.id}/complete`,
        { payments: [{ payment_id: runId, method: 'cash', amount: '11.90', currency: 'EUR', status: 'captured' }] },
        { ...headers, 'idempotency-key': `x-${runId}`, 'if-match': '"1"' },
      );
      calls.push({ name: `complete${tag}`, ms: performance.now() - started, ok: completed.status === 200, status: completed.status });
      return { calls };
    };
    const flow = flowOn(germany);
    // Germany and Austria in one run, alternating flow by flow, so both meet the same database and load.
    const germanInMix = flowOn(germany, '_deu');
    const austrianInMix = flowOn(austria, '_aut');
    const mixedFlow = (index: number) => (index % 2 ? austrianInMix(index) : germanInMix(index));
    const report = (result: OpenLoopResult) => ({
      target_mutations_per_s: result.targetRate * 2,
      duration_s: result.durationS,
      flows_started: result.started,
      flows_completed: result.completed,
      flows_dropped: result.dropped,
      achieved_flows_per_s: result.achievedRate,
      mutations_per_s: Math.round(result.achievedRate * 2 * 10) / 10,
      throughput: {
        requests_per_s: Math.round(result.achievedRate * 2 * 10) / 10,
        signed_completions_per_s: result.achievedRate,
      },
      latency_ms: Object.fromEntries(Object.entries(result.latencies).map(([name, samples]) => [name, summarize(samples)])),
      slowest_call_per_second_ms: result.slowestPerSecond,
      errors: result.errors,
      statuses: result.statuses,
    });

    // Not measured: the JIT compiles the hot paths and the pool opens its connections.
    console.log(`warm-up: ${RATE} mutations/s for ${WARMUP_S} s on ${REGISTERS} registers`);
    await runOpenLoop(RATE / 2, WARMUP_S, flow);

    console.log(`main run: ${RATE} mutations/s (${RATE / 2} sales/s, each created and completed with a signature) for ${DURATION_S} s`);
    const main = report(await runOpenLoop(RATE / 2, DURATION_S, flow));
    console.log(JSON.stringify(main.latency_ms), 'errors', JSON.stringify(main.errors));
    console.log('slowest call per second (ms):', main.slowest_call_per_second_ms.join(' '));

    // Germany (TSE) against Austria (RKSV receipt: chain, AES counter, ES256), half the flows each, in one run.
    console.log(`Germany and Austria alternating: ${RATE} mutations/s for ${AUT_DURATION_S} s on ${REGISTERS} registers each`);
    await runOpenLoop(RATE / 2, Math.min(WARMUP_S, 5), mixedFlow);
    const countries = report(await runOpenLoop(RATE / 2, AUT_DURATION_S, mixedFlow));
    console.log(JSON.stringify(countries.latency_ms), 'errors', JSON.stringify(countries.errors));

    const steps = [];
    for (const rate of STEPS) {
      console.log(`step: ${rate} mutations/s for ${STEP_S} s`);
      const step = report(await runOpenLoop(rate / 2, STEP_S, flow));
      steps.push(step);
      console.log(
        `  achieved ${step.mutations_per_s} mutations/s, p99 create ${step.latency_ms.create?.p99} ms, ` +
          `complete ${step.latency_ms.complete?.p99} ms, errors ${JSON.stringify(step.errors)}`,
      );
    }
    const sustainable = steps
      .filter(
        (step) =>
          Object.keys(step.errors).length === 0 &&
          step.flows_dropped === 0 &&
          step.mutations_per_s >= step.target_mutations_per_s * 0.95 &&
          Math.max(step.latency_ms.create?.p99 ?? Infinity, step.latency_ms.complete?.p99 ?? Infinity) < P99_TARGET_MS,
      )
      .reduce((best, step) => Math.max(best, step.target_mutations_per_s), 0);
    const mainP99 = Math.max(main.latency_ms.create?.p99 ?? Infinity, main.latency_ms.complete?.p99 ?? Infinity);

    // pgbench: the same work as one completion, as plain SQL on the same server.
    const benchUrl = databaseUrl(dbName);
    execFileSync('psql', [benchUrl, '-q', '-f', 'bench/pgbench/setup.sql'], { stdio: 'ignore' });
    const pgbenchOut = execFileSync('pgbench', ['-n', '-c', '16', '-j', '2', '-T', String(PGBENCH_S), '-f', 'bench/pgbench/completion.sql', benchUrl], {
      encoding: 'utf8',
    });
    const pgbenchTps = Number(/tps = ([\d.]+)/.exec(pgbenchOut)?.[1] ?? 0);
    const fraction = (completionsPerS: number) => (pgbenchTps ? Math.round((completionsPerS / pgbenchTps) * 1000) / 1000 : null);

    const results = {
      at: new Date().toISOString(),
      machine: { cpus: (await import('node:os')).cpus().length, node: process.version },
      registers: REGISTERS,
      targets: { mutations_per_s: RATE, p99_ms: P99_TARGET_MS, errors: 0 },
      main: {
        ...main,
        meets_target: Object.keys(main.errors).length === 0 && main.mutations_per_s >= RATE * 0.95 && mainP99 < P99_TARGET_MS,
      },
      germany_and_austria: countries,
      warmup_s: WARMUP_S,
      step_test: { steps, highest_sustainable_mutations_per_s: sustainable },
      pgbench: {
        transactions_per_s: pgbenchTps,
        our_completions_per_s_at_target: main.achieved_flows_per_s,
        fraction_of_ceiling_at_target: fraction(main.achieved_flows_per_s),
        our_highest_sustainable_completions_per_s: sustainable / 2,
        fraction_of_ceiling_sustainable: fraction(sustainable / 2),
      },
      server_peak_memory_mib: server.peakMemoryMiB(),
    };
    const file = writeResults('load', results);
    console.log(`\nmain run: ${main.mutations_per_s} mutations/s, p99 ${mainP99} ms, target met: ${results.main.meets_target}`);
    console.log(
      `in one run, complete p50/p99: Germany (KassenSichV) ${countries.latency_ms.complete_deu?.p50}/${countries.latency_ms.complete_deu?.p99} ms, ` +
        `Austria (RKSV) ${countries.latency_ms.complete_aut?.p50}/${countries.latency_ms.complete_aut?.p99} ms`,
    );
    console.log(`highest sustainable rate: ${sustainable} mutations/s (${sustainable / 2} sales created and completed per second)`);
    console.log(
      `pgbench ceiling: ${pgbenchTps} completions/s; ours ${main.achieved_flows_per_s}/s at the target ` +
        `(${results.pgbench.fraction_of_ceiling_at_target}), ${sustainable / 2}/s sustainable (${results.pgbench.fraction_of_ceiling_sustainable})`,
    );
    console.log(`server peak memory: ${results.server_peak_memory_mib} MiB\nwrote ${file}`);
  } finally {
    await http.close();
    await server.stop();
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
  }
}

await main();
