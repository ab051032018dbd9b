// The request log: at `info` one line a request, written when it completes, with the request,
// its status and its time (a canonical log line); at `debug` the incoming line as well.
import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/testApp.js';

const TOKEN = '9nTWFyn8rc8II8ELsUvgRsyHPVDPxNxB';

interface LogLine {
  level: number;
  msg: string;
  reqId?: string;
  req?: { method: string; url: string; host: string; remoteAddress: string };
  res?: { statusCode: number };
  responseTime?: number;
}

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function requestsLoggedAt(level: string): Promise<LogLine[]> {
  const lines: LogLine[] = [];
  t = await createTestApp({ LOG_LEVEL: level }, { logStream: { write: (line: string) => void lines.push(JSON.parse(line)) } });
  await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'log-health' } });
  await t.app.inject({ method: 'GET', url: '/v1/merchants', headers: { 'x-request-id': 'log-unauthenticated' } });
  await t.app.inject({ method: 'GET', url: `/receipts/${TOKEN}`, headers: { 'x-request-id': 'log-receipt' } });
  return lines.filter((line) => line.reqId?.startsWith('log-'));
}

describe('request log', () => {
  it('at info: one line a request when it completes, with the method, the redacted URL, the status and the time', async () => {
    const lines = await requestsLoggedAt('info');
    expect(lines.map((line) => [line.reqId, line.msg, line.req?.method, line.req?.url, line.res?.statusCode])).toEqual([
      ['log-health', 'request completed', 'GET', '/healthz', 200],
      ['log-unauthenticated', 'request completed', 'GET', '/v1/merchants', 401],
      ['log-receipt', 'request completed', 'GET', '/receipts/[redacted]', 404],
    ]);
    for (const line of lines) {
      expect(line.level).toBe(30);
      expect(line.responseTime).toBeGreaterThanOrEqual(0);
      expect(line.req?.host).toBe('localhost:80');
    }
    expect(JSON.stringify(lines)).not.toContain(TOKEN);
  });

  it('at debug: the incoming line too, before the completed one', async () => {
    const lines = await requestsLoggedAt('debug');
    const receipt = lines.filter((line) => line.reqId === 'log-receipt');
    expect(receipt.map((line) => [line.msg, line.req?.url])).toEqual([
      ['incoming request', '/receipts/[redacted]'],
      ['request completed', '/receipts/[redacted]'],
    ]);
    expect(lines.filter((line) => line.msg === 'incoming request')).toHaveLength(3);
  });
});
