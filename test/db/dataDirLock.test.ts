// The embedded database serves one process at a time: DATA_DIR's lock refuses a second process with a
// message naming the holder, is released on close and on exit, and is taken over from a holder that is
// gone (kill -9, a restarted container with the same pid, a holder elsewhere that stopped refreshing it).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DataDirLockedError, LOCK_FILE, lockDataDir, REFRESH_MS, STALE_AFTER_MS, type LockHolder } from '../../src/db/dataDirLock.js';
import { openDatabase } from '../../src/db/database.js';
import { ROOT, tempDir } from '../support/processes.js';

let dir: ReturnType<typeof tempDir>;
let lockPath: string;

beforeEach(() => {
  dir = tempDir('fiscal-lock-');
  lockPath = join(dir.path, LOCK_FILE);
});
afterEach(() => dir.remove());

/** Starts test/support/holdDataDirLock.ts on the temp DATA_DIR and waits until it holds the lock. */
async function startHolder(): Promise<{ child: ChildProcess; exited: Promise<number | null> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/holdDataDirLock.ts', dir.path], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let out = '';
  let err = '';
  child.stderr!.on('data', (chunk) => (err += chunk));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      if (out.includes('held')) resolve();
    });
    void exited.then(() => reject(new Error(`the holder exited: ${err}`)));
  });
  return { child, exited };
}

const writeLock = (holder: Partial<LockHolder>) =>
  writeFileSync(
    lockPath,
    JSON.stringify({ pid: 1, host: hostname(), pidNamespace: null, command: 'npm start', since: '2026-01-01T00:00:00.000Z', token: 'old', ...holder }),
  );

const currentPidNamespace = () => JSON.parse(readFileSync(lockPath, 'utf8')).pidNamespace as string | null;

describe('DATA_DIR lock', () => {
  it('refuses a second process while one holds it, naming the holder and what to do', async () => {
    const holder = await startHolder();
    try {
      let refusal: unknown;
      try {
        lockDataDir(dir.path);
      } catch (error) {
        refusal = error;
      }
      expect(refusal).toBeInstanceOf(DataDirLockedError);
      const message = (refusal as Error).message;
      expect(message).toContain(`pid ${holder.child.pid}`);
      expect(message).toContain('test/support/holdDataDirLock.ts');
      expect(message).toMatch(/since \d{4}-\d\d-\d\dT/);
      expect(message).toContain('one process at a time');
      expect(message).toContain('stop that process');
      expect(message).toContain('curl -H "Authorization: Bearer $ADMIN_TOKEN"');
      expect(message).toContain('/admin/v1/');
      expect(message).toContain('PostgreSQL (DATABASE_URL)');
      expect(message).toContain(lockPath);
    } finally {
      holder.child.kill('SIGKILL');
      await holder.exited;
    }
  });

  it('takes over the lock of a holder killed with SIGKILL', async () => {
    const holder = await startHolder();
    holder.child.kill('SIGKILL');
    await holder.exited;
    expect(existsSync(lockPath)).toBe(true);
    const lock = lockDataDir(dir.path);
    expect(JSON.parse(readFileSync(lockPath, 'utf8')).pid).toBe(process.pid);
    lock.release();
    expect(existsSync(lockPath)).toBe(false);
  });

  it('is released by release() and by an exit without it', async () => {
    for (const word of ['release', 'exit']) {
      const holder = await startHolder();
      holder.child.stdin!.write(`${word}\n`);
      expect(await holder.exited).toBe(0);
      expect(existsSync(lockPath), word).toBe(false);
    }
  });

  it('is held by an open embedded database until close()', async () => {
    const database = await openDatabase({ dataDir: dir.path });
    try {
      expect(JSON.parse(readFileSync(lockPath, 'utf8')).pid).toBe(process.pid);
      expect(() => lockDataDir(dir.path)).toThrow(/already open in this process/);
    } finally {
      await database.close();
    }
    expect(existsSync(lockPath)).toBe(false);
    lockDataDir(dir.path).release();
  });

  it('takes over a lock naming its own pid (a restarted container, pid 1 again)', () => {
    const probe = lockDataDir(dir.path);
    const namespace = currentPidNamespace();
    probe.release();
    writeLock({ pid: process.pid, pidNamespace: namespace });
    const lock = lockDataDir(dir.path);
    expect(JSON.parse(readFileSync(lockPath, 'utf8')).token).not.toBe('old');
    lock.release();
  });

  it('a holder on another host or container holds it while it refreshes the lock, and is gone after STALE_AFTER_MS', () => {
    writeLock({ host: 'other-container', pid: process.pid });
    expect(() => lockDataDir(dir.path)).toThrow(/on host other-container \(another host or container\)/);
    const old = new Date(Date.now() - STALE_AFTER_MS - 1000);
    utimesSync(lockPath, old, old);
    const lock = lockDataDir(dir.path);
    expect(JSON.parse(readFileSync(lockPath, 'utf8')).host).toBe(hostname());
    lock.release();
  });

  it('an unreadable lock file counts as held until it is STALE_AFTER_MS old', () => {
    writeFileSync(lockPath, '');
    expect(() => lockDataDir(dir.path)).toThrow(/in use by an unknown process/);
    const old = new Date(Date.now() - STALE_AFTER_MS - 1000);
    utimesSync(lockPath, old, old);
    lockDataDir(dir.path).release();
  });

  it('its holder refreshes the lock file every REFRESH_MS', () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const lock = lockDataDir(dir.path);
      const old = new Date(Date.now() - STALE_AFTER_MS);
      utimesSync(lockPath, old, old);
      vi.advanceTimersByTime(REFRESH_MS);
      expect(Date.now() - statSync(lockPath).mtimeMs).toBeLessThan(REFRESH_MS);
      lock.release();
    } finally {
      vi.useRealTimers();
    }
  });
});
