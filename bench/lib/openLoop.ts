import { performance } from 'node:perf_hooks';

export interface FlowOutcome {
  /** Latency per call type in ms. */
  calls: { name: string; ms: number; ok: boolean; status: number }[];
}

export interface OpenLoopResult {
  targetRate: number;
  durationS: number;
  started: number;
  completed: number;
  /** Flows not started because too many were already in flight (the server fell behind). */
  dropped: number;
  latencies: Record<string, number[]>;
  /** The slowest call that started in each second of the run, in ms: shows whether the tail is steady or a stall. */
  slowestPerSecond: number[];
  errors: Record<string, number>;
  statuses: Record<string, number>;
  achievedRate: number;
}

/**
 * Open-loop load: a new flow starts every 1/rate seconds whether or not earlier
 * ones finished, so a slow server shows up as latency and not as a lower
 * offered load (no coordinated omission).
 */
export async function runOpenLoop(
  rate: number,
  durationS: number,
  flow: (index: number) => Promise<FlowOutcome>,
  maxInFlight = 5000,
): Promise<OpenLoopResult> {
  const result: OpenLoopResult = {
    targetRate: rate,
    durationS,
    started: 0,
    completed: 0,
    dropped: 0,
    latencies: {},
    slowestPerSecond: [],
    errors: {},
    statuses: {},
    achievedRate: 0,
  };
  const total = Math.round(rate * durationS);
  const intervalMs = 1000 / rate;
  const begin = performance.now();
  let inFlight = 0;
  const pending: Promise<void>[] = [];
  for (let index = 0; index < total; index += 1) {
    const due = begin + index * intervalMs;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    if (inFlight >= maxInFlight) {
      result.dropped += 1;
      continue;
    }
    inFlight += 1;
    result.started += 1;
    const second = Math.floor((performance.now() - begin) / 1000);
    pending.push(
      flow(index)
        .then((outcome) => {
          const slowest = Math.max(...outcome.calls.map((call) => call.ms));
          result.slowestPerSecond[second] = Math.round(Math.max(result.slowestPerSecond[second] ?? 0, slowest) * 10) / 10;
          for (const call of outcome.calls) {
            (result.latencies[call.name] ??= []).push(call.ms);
            const key = `${call.name} ${call.status}`;
            result.statuses[key] = (result.statuses[key] ?? 0) + 1;
            if (!call.ok) result.errors[call.name] = (result.errors[call.name] ?? 0) + 1;
          }
          if (outcome.calls.every((call) => call.ok)) result.completed += 1;
        })
        .catch(() => {
          result.errors.flow = (result.errors.flow ?? 0) + 1;
        })
        .finally(() => {
          inFlight -= 1;
        }),
    );
  }
  await Promise.all(pending);
  result.achievedRate = Math.round((result.completed / ((performance.now() - begin) / 1000)) * 10) / 10;
  return result;
}
