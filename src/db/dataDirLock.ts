import { randomBytes } from 'node:crypto';
import { readFileSync, readlinkSync, renameSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { relative, resolve } from 'node:path';

/**
 * The embedded database (PGlite) may be opened by one process at a time: a second one
 * would write the same files unseen and lose what the first stored. Every process that
 * opens it takes this lock file in DATA_DIR first.
 *
 * A lock outlives a holder killed without closing (kill -9, a crash), so a holder counts
 * as gone when, on this host and pid namespace, its pid no longer runs, or the pid is this
 * very process's while it holds no such lock (a restarted container whose process is pid 1
 * again). A pid that runs here keeps its lock however long it is busy. A holder elsewhere
 * (another container sharing the volume) cannot be checked by pid, so holders refresh the
 * file's mtime, and such a holder counts as gone once that is STALE_AFTER_MS old.
 */
export const LOCK_FILE = 'pglite.lock';
export const REFRESH_MS = 5_000;
export const STALE_AFTER_MS = 30_000;

export interface LockHolder {
  pid: number;
  host: string;
  /** The pid namespace, so pids are compared only within one (null where /proc is absent). */
  pidNamespace: string | null;
  command: string;
  since: string;
  token: string;
}

export interface DataDirLock {
  release(): void;
}

export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly lockPath: string,
    readonly holder: LockHolder,
  ) {
    super(describeRefusal(dataDir, lockPath, holder));
    this.name = 'DataDirLockedError';
  }
}

/** The lock files this process holds. */
const heldHere = new Set<string>();

const currentPidNamespace = (): string | null => {
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return null;
  }
};

const isThisPlace = (holder: LockHolder) => holder.host === hostname() && holder.pidNamespace === currentPidNamespace();

/** How an operator would recognise the process: its npm script when npm started it, else its node command line. */
const currentCommand = (): string => {
  const script = process.argv[1] ? relative(process.cwd(), process.argv[1]) : '';
  const npmScript = process.env.npm_lifecycle_event;
  if (npmScript && script && process.env.npm_lifecycle_script?.includes(script)) {
    return npmScript === 'start' ? 'npm start' : `npm run ${npmScript}`;
  }
  return ['node', script, ...process.argv.slice(2)].filter(Boolean).join(' ');
};

/** Takes the lock of `dataDir` for this process, or throws DataDirLockedError naming its holder. */
export function lockDataDir(dataDir: string): DataDirLock {
  const lockPath = resolve(dataDir, LOCK_FILE);
  const mine: LockHolder = {
    pid: process.pid,
    host: hostname(),
    pidNamespace: currentPidNamespace(),
    command: currentCommand(),
    since: new Date().toISOString(),
    token: randomBytes(12).toString('hex'),
  };
  if (heldHere.has(lockPath)) throw new Error(`The embedded database in ${dataDir} is already open in this process`);
  // A takeover may race another process doing the same; a few rounds settle who holds it.
  for (let round = 0; round < 3; round++) {
    if (tryCreate(lockPath, mine)) return hold(lockPath, mine);
    const current = readLock(lockPath);
    if (!current) continue;
    if (!isGone(lockPath, current.holder)) throw new DataDirLockedError(dataDir, lockPath, current.holder);
    setAside(lockPath, current.text, mine.token);
  }
  const last = readLock(lockPath);
  throw new DataDirLockedError(dataDir, lockPath, last?.holder ?? unknownHolder(lockPath));
}

function tryCreate(lockPath: string, holder: LockHolder): boolean {
  try {
    writeFileSync(lockPath, JSON.stringify(holder), { flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/** The lock file's holder, or undefined when there is none; an unreadable file (being written) counts as a holder. */
function readLock(lockPath: string): { text: string; holder: LockHolder } | undefined {
  let text: string;
  try {
    text = readFileSync(lockPath, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    return { text, holder: JSON.parse(text) as LockHolder };
  } catch {
    return { text, holder: unknownHolder(lockPath) };
  }
}

function unknownHolder(lockPath: string): LockHolder {
  let since = new Date().toISOString();
  try {
    since = statSync(lockPath).mtime.toISOString();
  } catch {
    // gone meanwhile: the time of asking is as good
  }
  return { pid: 0, host: 'unknown', pidNamespace: null, command: 'unknown', since, token: '' };
}

function isGone(lockPath: string, holder: LockHolder): boolean {
  if (isThisPlace(holder)) return holder.pid === process.pid || !isRunning(holder.pid);
  try {
    return Date.now() - statSync(lockPath).mtimeMs > STALE_AFTER_MS;
  } catch {
    return true;
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the lock of a holder that is gone. It is renamed first, so that of two processes
 * taking it over at once only one removes it; a lock that changed since it was judged (a
 * new holder won the race) is put back.
 */
function setAside(lockPath: string, judgedText: string, token: string): void {
  const aside = `${lockPath}.${token}`;
  try {
    renameSync(lockPath, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  if (readFileSync(aside, 'utf8') !== judgedText && !readLock(lockPath)) {
    renameSync(aside, lockPath);
    return;
  }
  unlinkSync(aside);
}

function hold(lockPath: string, holder: LockHolder): DataDirLock {
  heldHere.add(lockPath);
  const refresh = setInterval(() => {
    const now = new Date();
    try {
      utimesSync(lockPath, now, now);
    } catch {
      // removed by hand: nothing to refresh
    }
  }, REFRESH_MS);
  refresh.unref();
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    clearInterval(refresh);
    process.off('exit', release);
    heldHere.delete(lockPath);
    if (readLock(lockPath)?.holder.token === holder.token) unlinkSync(lockPath);
  };
  // process.exit() without close(); a crash or a kill leaves a lock that isGone() recognises.
  process.on('exit', release);
  return { release };
}

function describeRefusal(dataDir: string, lockPath: string, holder: LockHolder): string {
  const where = isThisPlace(holder) ? '' : ` on host ${holder.host} (another host or container)`;
  const who = holder.pid ? `pid ${holder.pid}${where} (${holder.command}) since ${holder.since}` : `an unknown process since ${holder.since}`;
  const ifGone = isThisPlace(holder)
    ? `If pid ${holder.pid} is not that command, delete the lock file.`
    : `A holder that stops refreshing it counts as gone after ${STALE_AFTER_MS / 1000} s.`;
  return [
    `The embedded database in ${dataDir} is in use by ${who}; it serves one process at a time.`,
    '  - stop that process, then run this again;',
    '  - or, while the server runs, use its admin API (the server needs ADMIN_TOKEN), e.g.',
    '    curl -H "Authorization: Bearer $ADMIN_TOKEN" http://localhost:3000/admin/v1/tenants',
    '  - or use PostgreSQL (DATABASE_URL), which serves several processes at once.',
    `Lock file: ${lockPath}. ${ifGone}`,
  ].join('\n');
}
