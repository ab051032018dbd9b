// npm run bench:floor: what the stack costs a request without the service's code, to tell
// the service's own share of its CPU apart from what any service on this stack pays.
// A bare Fastify server with the service's request log (bench/lib/floorServer.ts) answers
// BENCH_FLOOR_RATE (500) JSON POSTs a second, open loop, with the same generator as `npm run
// bench`, after 0 to 4 prepared-statement round trips to PostgreSQL each (a signed mutation of
// the service makes 3). Prints CPU a request of the server, PostgreSQL and the generator, and
// p50/p99, per round-trip count. Settings: BENCH_DATABASE_URL, BENCH_FLOOR_RATE,
// BENCH_FLOOR_DURATION_S (15), BENCH_FLOOR_WARMUP_S (5).
import { measureStackFloor } from './lib/stackFloor.js';

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const RATE = Number(process.env.BENCH_FLOOR_RATE ?? 500);
const DURATION_S = Number(process.env.BENCH_FLOOR_DURATION_S ?? 15);
const WARMUP_S = Number(process.env.BENCH_FLOOR_WARMUP_S ?? 5);

for (const roundTrips of [0, 1, 2, 3, 4]) {
  const floor = await measureStackFloor({ databaseUrl: DATABASE_URL, rate: RATE, roundTrips, durationS: DURATION_S, warmupS: WARMUP_S });
  const cpu = floor.cpu_ms_per_request;
  console.log(
    `${roundTrips} round trips: ${floor.requests_per_s} requests/s of ${RATE}; p50/p99 ${floor.latency_ms.p50}/${floor.latency_ms.p99} ms, errors ${JSON.stringify(floor.errors)}; ` +
      `CPU ms/request: server ${cpu?.server}, database ${cpu?.database}, generator ${cpu?.generator}`,
  );
}
