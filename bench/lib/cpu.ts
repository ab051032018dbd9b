import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** CPU seconds and system calls so far, per process of this machine that a run loads (Linux /proc; null elsewhere). */
export interface CpuTotals {
  /** The server's processes (the primary and the processes it forked), by pid. */
  server: Map<string, Spent>;
  /** Every PostgreSQL process of the machine, by pid: backends come and go during a run. */
  database: Map<string, Spent>;
  generator: number;
}

/**
 * A process's CPU seconds, with those of its children that ended and were waited for (a
 * backend of a connection that closed lands in the postmaster's), and its read and write
 * system calls (0 where /proc/<pid>/io cannot be read; an ended process's are lost).
 */
interface Spent {
  seconds: number;
  syscalls: number;
}

/**
 * Where a run's CPU went, per mutation achieved, in milliseconds; in cores (CPU seconds a second);
 * and the read and write system calls a mutation (syscr + syscw of /proc/<pid>/io), a count the
 * host's speed hardly moves. The server reads and writes its sockets with read and writev, so
 * each of its round trips is counted; PostgreSQL's backends use recv and send, which are not,
 * so its figure is its file reads and writes (WAL, data).
 */
export interface CpuReport {
  ms_per_mutation: { server: number; database: number; generator: number };
  cores: { server: number; database: number; generator: number };
  syscalls_per_mutation: { server: number; database: number };
}

const ticksPerSecond = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

interface ProcessStat extends Spent {
  name: string;
  parent: string;
}

/** syscr + syscw of /proc/<pid>/io: the read and write system calls of all its threads. */
function syscallsOf(pid: string): number {
  try {
    const io = readFileSync(`/proc/${pid}/io`, 'utf8');
    return Number(/syscr: (\d+)/.exec(io)?.[1] ?? 0) + Number(/syscw: (\d+)/.exec(io)?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** Every process of the machine, by pid, from one pass over /proc/<pid>/stat. */
function readProcesses(): Map<string, ProcessStat> {
  const processes = new Map<string, ProcessStat>();
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      processes.set(pid, {
        name,
        parent: fields[1],
        seconds: (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / ticksPerSecond,
        // Only the processes a run reports on: reading io of every process would cost the generator.
        syscalls: name.startsWith('postgres') || name.startsWith('node') ? syscallsOf(pid) : 0,
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

const spentBy = (processes: Map<string, ProcessStat>, pid: string): Spent => ({ seconds: processes.get(pid)?.seconds ?? 0, syscalls: processes.get(pid)?.syscalls ?? 0 });

const databaseOf = (processes: Map<string, ProcessStat>) =>
  new Map([...processes].filter(([, stat]) => stat.name.startsWith('postgres')).map(([pid]) => [pid, spentBy(processes, pid)]));

export function cpuTotals(serverPid: number | undefined): CpuTotals | null {
  const processes = readProcesses();
  if (serverPid === undefined || !processes.has(String(serverPid))) return null;
  const server = new Map(processTree(serverPid, processes).map((pid) => [pid, spentBy(processes, pid)]));
  const own = process.cpuUsage();
  return { server, database: databaseOf(processes), generator: (own.user + own.system) / 1e6 };
}

/** PostgreSQL's processes alone, for a load that is not the service's (pgbench). */
export const databaseTotals = (): CpuTotals['database'] => databaseOf(readProcesses());

/** PostgreSQL's CPU milliseconds a unit of work (`count` of them) between two databaseTotals readings. */
export const databaseMsPer = (before: CpuTotals['database'], after: CpuTotals['database'], count: number): number | null =>
  count > 0 ? Math.round((spent(before, after, 'seconds') * 1000 * 1000) / count) / 1000 : null;

/**
 * What a set of processes spent between two readings. Seconds are the difference of the totals:
 * a process that ended meanwhile took its seconds to its parent's waited-for children, which
 * the set holds too. System calls are counted per process that is still there (one that started
 * meanwhile counts from zero), since an ended process's go nowhere.
 */
const spent = (before: Map<string, Spent>, after: Map<string, Spent>, figure: keyof Spent) => {
  if (figure === 'seconds') return total(after, 'seconds') - total(before, 'seconds');
  let sum = 0;
  for (const [pid, now] of after) sum += now[figure] - (before.get(pid)?.[figure] ?? 0);
  return sum;
};

const total = (processes: Map<string, Spent>, figure: keyof Spent) => {
  let sum = 0;
  for (const process of processes.values()) sum += process[figure];
  return sum;
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
  const seconds = {
    server: spent(before.server, after.server, 'seconds'),
    database: spent(before.database, after.database, 'seconds'),
    generator: after.generator - before.generator,
  };
  const perMutation = (calls: number) => Math.round((calls / mutations) * 100) / 100;
  return {
    ms_per_mutation: scaled(seconds, 1000 / mutations),
    cores: scaled(seconds, 1 / elapsedS),
    syscalls_per_mutation: {
      server: perMutation(spent(before.server, after.server, 'syscalls')),
      database: perMutation(spent(before.database, after.database, 'syscalls')),
    },
  };
}
