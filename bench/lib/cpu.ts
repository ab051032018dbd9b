import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** CPU seconds spent so far, per process of this machine that a run loads (Linux /proc; null elsewhere). */
export interface CpuTotals {
  /** The server's processes (the primary and the processes it forked), by pid. */
  server: Map<string, number>;
  /** Every PostgreSQL process of the machine, by pid: backends come and go during a run. */
  database: Map<string, number>;
  generator: number;
}

/** Where a run's CPU went, per mutation achieved, in milliseconds; and in cores (CPU seconds a second). */
export interface CpuReport {
  ms_per_mutation: { server: number; database: number; generator: number };
  cores: { server: number; database: number; generator: number };
}

const ticksPerSecond = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

interface ProcessStat {
  name: string;
  parent: string;
  /** User + system CPU seconds of all its threads. */
  seconds: number;
}

/** Every process of the machine, by pid, from one pass over /proc/<pid>/stat. */
function readProcesses(): Map<string, ProcessStat> {
  const processes = new Map<string, ProcessStat>();
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      processes.set(pid, {
        name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')),
        parent: fields[1],
        seconds: (Number(fields[11]) + Number(fields[12])) / ticksPerSecond,
      });
    } catch {
      // exited while being read
    }
  }
  return processes;
}

/** The pids of `root` and every process it started, directly or not. */
export function processTree(root: number, processes = readProcesses()): string[] {
  const children = new Map<string, string[]>();
  for (const [pid, { parent }] of processes) {
    const siblings = children.get(parent);
    if (siblings) siblings.push(pid);
    else children.set(parent, [pid]);
  }
  const tree = [String(root)];
  for (let i = 0; i < tree.length; i++) tree.push(...(children.get(tree[i]) ?? []));
  return tree;
}

export function cpuTotals(serverPid: number | undefined): CpuTotals | null {
  const processes = readProcesses();
  if (serverPid === undefined || !processes.has(String(serverPid))) return null;
  const server = new Map(processTree(serverPid, processes).map((pid) => [pid, processes.get(pid)?.seconds ?? 0]));
  const database = new Map([...processes].filter(([, stat]) => stat.name.startsWith('postgres')).map(([pid, stat]) => [pid, stat.seconds]));
  const own = process.cpuUsage();
  return { server, database, generator: (own.user + own.system) / 1e6 };
}

/** CPU seconds spent between two readings by the processes of `after` (one that started meanwhile counts from zero). */
const spent = (before: Map<string, number>, after: Map<string, number>) => {
  let seconds = 0;
  for (const [pid, total] of after) seconds += total - (before.get(pid) ?? 0);
  return seconds;
};

type PerProcess = CpuReport['cores'];

/** Each figure times `factor`, to three decimals. */
const scaled = (seconds: PerProcess, factor: number): PerProcess => ({
  server: Math.round(seconds.server * factor * 1000) / 1000,
  database: Math.round(seconds.database * factor * 1000) / 1000,
  generator: Math.round(seconds.generator * factor * 1000) / 1000,
});

export function cpuReport(before: CpuTotals | null, after: CpuTotals | null, elapsedS: number, mutations: number): CpuReport | null {
  if (!before || !after || mutations === 0) return null;
  const seconds = { server: spent(before.server, after.server), database: spent(before.database, after.database), generator: after.generator - before.generator };
  return { ms_per_mutation: scaled(seconds, 1000 / mutations), cores: scaled(seconds, 1 / elapsedS) };
}
