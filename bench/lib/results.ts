import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Writes a run's results as `<kind>-<time>.json` to BENCH_RESULTS_DIR (default bench/results); returns the path. */
export function writeResults(kind: 'load' | 'export' | 'compare', results: { at: string }): string {
  const dir = process.env.BENCH_RESULTS_DIR ?? 'bench/results';
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${kind}-${results.at.replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  return file;
}
