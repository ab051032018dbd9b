import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { summarize, type LatencySummary } from './stats.js';

/** A flow's call type as the request log names its URL: POST /v1/operations, POST /v1/operations/{id}/complete. */
const callOf = (url: string) => (url === '/v1/operations' ? 'create' : url.endsWith('/complete') ? 'complete' : null);

/** Where the server's request log ends now: a run reads its lines from there. */
export const logEnd = (logFile: string) => statSync(logFile).size;

/**
 * The server's own time for each call type, from the request's arrival to its response (the request
 * log's `responseTime`), for the POSTs logged after `fromOffset` that completed between `fromMs` and
 * `toMs`. Set against the generator's latency, it tells a queue or a pause inside the server from one
 * outside it (the generator, the kernel, the connection).
 */
export function serverLatency(logFile: string, fromOffset: number, fromMs: number, toMs: number): Record<string, LatencySummary> {
  const length = statSync(logFile).size - fromOffset;
  const text = Buffer.alloc(Math.max(0, length));
  const fd = openSync(logFile, 'r');
  try {
    readSync(fd, text, 0, text.length, fromOffset);
  } finally {
    closeSync(fd);
  }
  const samples: Record<string, number[]> = {};
  for (const line of text.toString('utf8').split('\n')) {
    // A block another process was writing when the run began may start mid-line.
    if (!line.startsWith('{') || !line.includes('"request completed"')) continue;
    const entry = JSON.parse(line) as { time: number; responseTime: number; req?: { method: string; url: string } };
    if (entry.time < fromMs || entry.time > toMs || entry.req?.method !== 'POST') continue;
    const call = callOf(entry.req.url);
    if (call) (samples[call] ??= []).push(entry.responseTime);
  }
  return Object.fromEntries(Object.entries(samples).map(([call, values]) => [call, summarize(values)]));
}
