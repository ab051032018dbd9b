// Logs are pretty-printed on a developer's terminal, JSON lines everywhere else; pretty lines are
// redacted like JSON ones.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it, vi } from 'vitest';
import { logDestination, prettyLogs } from '../../src/lib/logDestination.js';
import { createTestApp } from '../support/testApp.js';

const TOKEN = '9nTWFyn8rc8II8ELsUvgRsyHPVDPxNxB';
const KEY = 'svc_test_deu_AbCdEfGhIjKlMnOpQrStUvWxYz012345';

function terminal(isTTY = true) {
  let text = '';
  return { isTTY, write: (chunk: string) => (text += chunk), text: () => stripVTControlCharacters(text) };
}

describe('prettyLogs', () => {
  it.each([
    [undefined, true, true],
    ['', true, true],
    ['development', true, true],
    ['production', true, false],
    ['test', true, false],
    [undefined, false, false],
    [undefined, undefined, false],
    ['production', false, false],
  ])('NODE_ENV %j on a terminal %j: pretty %j', (nodeEnv, isTTY, pretty) => {
    expect(prettyLogs(nodeEnv, isTTY)).toBe(pretty);
  });
});

describe('logDestination', () => {
  it('writes JSON lines to standard output asynchronously, in blocks, in production and anywhere that is not a terminal', async () => {
    for (const destination of [await logDestination({ NODE_ENV: 'production' }, terminal()), await logDestination({}, terminal(false))]) {
      expect(destination).toMatchObject({ fd: 1, sync: false, minLength: 4096 });
    }
  });

  it('a line waiting for its block is written within a quarter of a second, and what waits at exit is written too', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/logThroughDestination.ts'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    const exited = once(child, 'exit');
    try {
      // stderr is written at once: it tells when the line was logged.
      await vi.waitFor(() => expect(err).toContain('logged'), { timeout: 20_000, interval: 5 });
      const loggedAt = Date.now();
      // Written by the periodic flush: the line alone is far below a block.
      await vi.waitFor(() => expect(out).toContain('first line'), { timeout: 1000, interval: 5 });
      expect(Date.now() - loggedAt).toBeLessThan(1000);
      child.stdin.end('exit\n');
      await exited;
      expect(out).toContain('last line');
      expect(out.trim().split('\n').map((line) => JSON.parse(line).msg)).toEqual(['first line', 'last line']);
    } finally {
      child.kill();
    }
  });

  it('pretty-prints the service log on a terminal, with credentials redacted', async () => {
    const output = terminal();
    const logStream = await logDestination({}, output);
    expect(logStream).toBeDefined();
    const t = await createTestApp({ LOG_LEVEL: 'info' }, { logStream });
    try {
      const response = await t.app.inject({ method: 'GET', url: `/receipts/${TOKEN}`, headers: { authorization: `Bearer ${KEY}`, 'x-request-id': 'pretty-1' } });
      expect(response.statusCode).toBe(404);
    } finally {
      await t.close();
    }
    const text = output.text();
    expect(text).toMatch(/INFO.*request completed/);
    expect(text).toContain('"pretty-1"');
    expect(text).toContain('/receipts/[redacted]');
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain(KEY);
    expect(text.split('\n').filter((line) => line.startsWith('{'))).toEqual([]);
  });
});
