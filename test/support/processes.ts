import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { databaseUrlFor } from './databases.js';

export const ROOT = resolve(import.meta.dirname, '../..');

/** The parent's environment without the settings a child must only get on purpose. */
function baseEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of [
    'DATABASE_URL',
    'REDIS_URL',
    'ADMIN_TOKEN',
    'SECRETS_KEY',
    'PORT',
    'DATA_DIR',
    'LOG_LEVEL',
    'SERVICE_ENV',
    'SEED_DEMO_TENANT',
    'VITEST',
    'NODE_ENV',
  ]) {
    delete env[name];
  }
  return env;
}

export function tempDir(prefix = 'fiscal-srv-'): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePort(port));
    });
  });
}

/** An empty PostgreSQL database on the server of DATABASE_URL (for tests that need a fresh one). */
export async function createEmptyPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const base = process.env.DATABASE_URL!;
  const name = `fiscal_e_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  return {
    url: databaseUrlFor(base, name),
    async drop() {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

export interface ChildServer {
  port: number;
  url: string;
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code once the process has exited. */
  exited: Promise<number | null>;
  /** Waits until stdout contains the text (or matches the pattern). */
  waitForOutput(pattern: string | RegExp, timeoutMs?: number): Promise<void>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** A server's command line and working directory. */
export interface ServerCommand {
  argv: string[];
  cwd: string;
}

/**
 * What `npm start` runs once its build has compiled src/ into dist/ (the suite's global setup builds
 * it the same way): node on the compiled server, with no npm in between, which could not relay SIGKILL.
 */
export const STARTED_SERVER: ServerCommand = { argv: [process.execPath, 'dist/server.js'], cwd: ROOT };

/** Starts the server (as `npm start` runs it unless told otherwise) and waits until it answers /healthz. */
export async function startServer(env: Record<string, string>, command = STARTED_SERVER, timeoutMs = 60_000): Promise<ChildServer> {
  const port = await freePort();
  const [program, ...args] = command.argv;
  const child = spawn(program, args, {
    cwd: command.cwd,
    env: { ...baseEnv(), HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk) => (out += chunk));
  child.stderr!.on('data', (chunk) => (err += chunk));
  const exited = new Promise<number | null>((resolveExit) => child.once('exit', (code) => resolveExit(code)));
  let hasExited = false;
  void exited.then(() => (hasExited = true));

  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (hasExited) throw new Error(`server exited before it was ready\nstdout:\n${out}\nstderr:\n${err}`);
    try {
      const response = await fetch(`${url}/healthz`);
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server did not become ready\nstdout:\n${out}\nstderr:\n${err}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }

  return {
    port,
    url,
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    async waitForOutput(pattern, waitMs = 20_000) {
      const end = Date.now() + waitMs;
      const matches = () => (typeof pattern === 'string' ? out.includes(pattern) : pattern.test(out));
      while (!matches()) {
        if (Date.now() > end) throw new Error(`no ${String(pattern)} in output:\n${out}\n${err}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    async stop(signal = 'SIGTERM') {
      if (!hasExited) child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 40_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `npm run --silent <script> -- <args>` in the project with the given settings. */
export async function runNpmScript(script: string, args: string[], env: Record<string, string>): Promise<CommandResult> {
  const child = spawn('npm', ['run', '--silent', script, '--', ...args], {
    cwd: ROOT,
    env: { ...baseEnv(), LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const code = await new Promise<number | null>((resolveExit) => child.once('exit', (exitCode) => resolveExit(exitCode)));
  return { code, stdout, stderr };
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Parses the HTTP/1.1 responses a raw socket received (Content-Length framed). */
export function parseResponses(raw: string): RawResponse[] {
  const responses: RawResponse[] = [];
  let rest = Buffer.from(raw, 'latin1');
  while (rest.length) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) break;
    const [statusLine, ...lines] = rest.subarray(0, end).toString('latin1').split('\r\n');
    const headers = Object.fromEntries(
      lines.map((line) => [line.slice(0, line.indexOf(':')).trim().toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
    );
    const length = Number(headers['content-length'] ?? 0);
    const body = rest.subarray(end + 4, end + 4 + length).toString('utf8');
    responses.push({ status: Number(statusLine.split(' ')[1]), headers, body });
    rest = rest.subarray(end + 4 + length);
  }
  return responses;
}

/** A raw HTTP connection, so a test controls exactly when each byte is sent. */
export async function openConnection(port: number): Promise<{ socket: Socket; received: Promise<string>; text(): string }> {
  const socket = new Socket();
  await new Promise<void>((resolveConnect, reject) => {
    socket.once('error', reject);
    socket.connect(port, '127.0.0.1', () => resolveConnect());
  });
  let data = '';
  socket.setEncoding('latin1');
  socket.on('data', (chunk) => (data += chunk));
  const received = new Promise<string>((resolveData) => {
    socket.once('close', () => resolveData(data));
  });
  socket.on('error', () => undefined);
  return { socket, received, text: () => data };
}

/** Whether a new TCP connection to the port is refused. */
export async function connectionRefused(port: number): Promise<boolean> {
  return new Promise((resolveRefused) => {
    const socket = new Socket();
    socket.once('error', () => resolveRefused(true));
    socket.connect(port, '127.0.0.1', () => {
      socket.destroy();
      resolveRefused(false);
    });
  });
}
