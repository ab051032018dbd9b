// An instance on PostgreSQL serves from one process per two cores by default (SERVER_PROCESSES):
// the primary forks the server processes, which share its port and one rate-limit budget
// per key (the primary's counters, without Redis); one that dies is replaced, and a
// replacement that cannot start is tried again later; SIGTERM drains them all and the
// primary exits 0. The embedded database refuses more than one.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultServerProcesses, loadConfig } from '../../src/config.js';
import { createEmptyPostgresDatabase, startServer, tempDir, type ChildServer } from '../support/processes.js';
import { alive, descendants, usesPostgres } from '../reliability/support.js';

const TIMEOUT = 120_000;
const BUDGET = 20;

/** GET over a connection of its own, so the primary deals each request to the next process. */
function getOnNewConnection(url: string, apiKey: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const call = request(url, { agent: false, headers: { authorization: `Bearer ${apiKey}` } }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode!));
    });
    call.on('error', reject);
    call.end();
  });
}

/** The primary's server processes: its children running the server. */
const serverProcessesOf = (primary: number) =>
  descendants(primary).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').some((arg) => arg.endsWith('dist/server.js'));
    } catch {
      return false;
    }
  });

const servingPids = (log: string) => new Set([...log.matchAll(/"pid":(\d+)[^\n]*"msg":"request completed"/g)].map((match) => Number(match[1])));

describe('SERVER_PROCESSES', () => {
  it('defaults to one process per two cores with 10 pool connections or more each', () => {
    expect(defaultServerProcesses(1, 40)).toBe(1);
    expect(defaultServerProcesses(2, 40)).toBe(1);
    expect(defaultServerProcesses(3, 40)).toBe(1);
    expect(defaultServerProcesses(8, 40)).toBe(4);
    expect(defaultServerProcesses(16, 40)).toBe(4);
    expect(defaultServerProcesses(16, 200)).toBe(8);
    expect(defaultServerProcesses(8, 25)).toBe(2);
    expect(defaultServerProcesses(8, 9)).toBe(1);
  });

  it('applies that default on PostgreSQL, and one process on the embedded database, which refuses more', () => {
    expect(loadConfig({ DATA_DIR: '/tmp/x' }).serverProcesses).toBe(1);
    const postgres = { DATABASE_URL: 'postgresql://localhost/x' };
    expect(loadConfig(postgres).serverProcesses).toBe(defaultServerProcesses(availableParallelism(), 40));
    expect(loadConfig({ ...postgres, DATABASE_POOL_SIZE: '200' }).serverProcesses).toBe(defaultServerProcesses(availableParallelism(), 200));
    expect(loadConfig({ ...postgres, DATABASE_POOL_SIZE: '10' }).serverProcesses).toBe(1);
    expect(loadConfig({ ...postgres, SERVER_PROCESSES: '3' }).serverProcesses).toBe(3);
    expect(() => loadConfig({ SERVER_PROCESSES: '2' })).toThrow(/SERVER_PROCESSES: the embedded database serves one process/);
    expect(() => loadConfig({ ...postgres, SERVER_PROCESSES: '8', DATABASE_POOL_SIZE: '15' })).toThrow(/each process needs at least 2 of DATABASE_POOL_SIZE connections/);
  });
});

describe.skipIf(!usesPostgres)('several server processes (PostgreSQL)', () => {
  let server: ChildServer;
  let database: Awaited<ReturnType<typeof createEmptyPostgresDatabase>>;
  let dir: ReturnType<typeof tempDir>;
  let apiKey: string;

  beforeAll(async () => {
    dir = tempDir('fiscal-processes-');
    database = await createEmptyPostgresDatabase();
    server = await startServer({
      DATABASE_URL: database.url,
      DATA_DIR: dir.path,
      SERVER_PROCESSES: '2',
      RATE_LIMIT_PER_SECOND: String(BUDGET),
      LOG_LEVEL: 'info',
      EXPORT_WORKER: 'off',
    });
    // Ready (healthz) once the first listens; both, before the tests deal requests to them.
    await server.waitForOutput(/(Server listening[^]*){2}/);
    apiKey = /svc_test_\w+/.exec(server.stdout())![0];
  }, TIMEOUT);

  afterAll(async () => {
    await server?.stop('SIGKILL');
    await database?.drop();
    dir?.remove();
  });

  it(
    'prepares the database and seeds the demo tenant once, then serves from two processes under one rate-limit budget per key',
    async () => {
      expect(server.stdout().match(/A demo tenant was created/g)).toHaveLength(1);
      expect(serverProcessesOf(server.child.pid!)).toHaveLength(2);
      // Their garbage collector runs on their own thread only, and their code is compiled at first call (serverProcesses.ts says why).
      for (const pid of serverProcessesOf(server.child.pid!)) {
        expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')).toEqual(expect.arrayContaining(['--single-threaded-gc', '--always-sparkplug']));
      }
      const burst = () => Promise.all(Array.from({ length: 2 * BUDGET }, () => getOnNewConnection(`${server.url}/v1/merchants`, apiKey)));
      // A first burst opens each process's database connections and runs the route for the first
      // time: on a slow host that took well over a second, so the burst's requests reached the
      // processes in two windows of the budget. The measured burst comes after its window is over.
      await burst();
      await sleep(2 * 1000 + 100);
      const statuses = await burst();
      expect(statuses.filter((status) => status === 200)).toHaveLength(BUDGET);
      expect(statuses.filter((status) => status === 429)).toHaveLength(BUDGET);
      expect(servingPids(server.stdout())).toEqual(new Set(serverProcessesOf(server.child.pid!)));
    },
    TIMEOUT,
  );

  it(
    'replaces a server process that dies, and keeps serving meanwhile',
    async () => {
      const [victim, survivor] = serverProcessesOf(server.child.pid!);
      process.kill(victim, 'SIGKILL');
      await server.waitForOutput('a server process exited unexpectedly; starting another');
      expect(await getOnNewConnection(`${server.url}/healthz`, apiKey)).toBe(200);
      await server.waitForOutput(/(Server listening[^]*){3}/);
      const processes = serverProcessesOf(server.child.pid!);
      expect(processes).toHaveLength(2);
      expect(processes).toContain(survivor);
      expect(processes).not.toContain(victim);
    },
    TIMEOUT,
  );

  it(
    'tries a replacement that fails to start again, later, while the other process serves',
    async () => {
      // The sandbox's secrets key, which every server process reads at start, made unreadable.
      const keyFile = join(dir.path, 'secrets.key');
      const key = readFileSync(keyFile, 'utf8');
      rmSync(keyFile);
      mkdirSync(keyFile);
      const [victim] = serverProcessesOf(server.child.pid!);
      process.kill(victim, 'SIGKILL');
      await server.waitForOutput('a replacement server process exited before it served; trying again');
      expect(await getOnNewConnection(`${server.url}/healthz`, apiKey)).toBe(200);
      rmSync(keyFile, { recursive: true });
      writeFileSync(keyFile, key, { mode: 0o600 });
      await server.waitForOutput(/(Server listening[^]*){4}/, 60_000);
      expect(serverProcessesOf(server.child.pid!)).toHaveLength(2);
    },
    TIMEOUT,
  );

  it(
    'drains every process on SIGTERM and exits 0 with none left',
    async () => {
      const processes = serverProcessesOf(server.child.pid!);
      expect(processes).toHaveLength(2);
      expect(await server.stop('SIGTERM')).toBe(0);
      // Their last lines may still be in the pipe when the primary's exit is seen.
      await server.waitForOutput(/(draining in-flight requests[^]*){2}/);
      expect(processes.filter(alive)).toEqual([]);
    },
    TIMEOUT,
  );
});
