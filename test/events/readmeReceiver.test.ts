// The sample receivers of docs/api.md are code integrators copy: run exactly those blocks (Node
// and Python) as processes, point an endpoint at each, and check that it accepts the service's
// deliveries and refuses forgeries.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAndCompleteSale, fiscalizedRegisterWithSession, type OperationsFixture } from '../support/operations.js';
import { freePort, ROOT, tempDir } from '../support/processes.js';
import { createTenantWithKey, createTestApp, json, type TestApp } from '../support/testApp.js';
import { requireTools } from '../support/tools.js';
import { eventually } from '../support/webhookReceiver.js';

const DOC = 'docs/api.md';
const SECTION_START = '## Events and webhooks';

/** The one block of the given language in the "Events and webhooks" section of docs/api.md. */
function sampleReceiver(language: 'js' | 'python'): string {
  const doc = readFileSync(join(ROOT, DOC), 'utf8');
  const start = doc.indexOf(SECTION_START);
  expect(start).toBeGreaterThanOrEqual(0);
  const end = doc.indexOf('\n## ', start + SECTION_START.length);
  const section = doc.slice(start, end === -1 ? undefined : end);
  const blocks = [...section.matchAll(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((match) => match[1]!);
  expect(blocks).toHaveLength(1);
  return blocks[0]!;
}

interface Receiver {
  language: 'js' | 'python';
  file: string;
  command: string;
  tools: string[];
}

const RECEIVERS: Receiver[] = [
  { language: 'js', file: 'receiver.mjs', command: process.execPath, tools: [] },
  { language: 'python', file: 'receiver.py', command: 'python3', tools: ['python3'] },
];

let t: TestApp;
let fx: OperationsFixture;
let receiver: ChildProcess | undefined;
const work = tempDir('fiscal-receiver-');

beforeAll(async () => {
  t = await createTestApp({ EXPORT_POLL_MS: '50' });
  fx = await fiscalizedRegisterWithSession(t.app, (await createTenantWithKey(t.database)).apiKey);
});
afterEach(() => {
  receiver?.kill();
  receiver = undefined;
});
afterAll(async () => {
  work.remove();
  await t.close();
});

describe('the sample receivers of docs/api.md', () => {
  it.for(RECEIVERS)('$language: accepts a delivery of the service and refuses a forged, unsigned or replayed one', async (sample, context) => {
    requireTools(context, ...sample.tools);
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/`;
    const endpoint = json(await t.app.inject({ method: 'POST', url: '/v1/webhook-endpoints', headers: fx.headers, payload: { url, events: ['*'] } }));
    const script = join(work.path, sample.file);
    writeFileSync(script, sampleReceiver(sample.language));
    let output = '';
    let errors = '';
    // HOME lets a python3 found through a version manager's shim find its installation.
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, PORT: String(port), WEBHOOK_SECRET: endpoint.secret };
    if (process.env.HOME) env.HOME = process.env.HOME;
    receiver = spawn(sample.command, [script], { env });
    receiver.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    receiver.stderr!.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    await eventually(async () => (await fetch(url, { method: 'POST', body: '{}' }).then((response) => response.status).catch(() => undefined)));

    try {
      const sale = await createAndCompleteSale(t.app, fx);
      const delivery = await eventually(async () => {
        const log = json(await t.app.inject({ method: 'GET', url: `/v1/webhook-endpoints/${endpoint.id}/deliveries`, headers: fx.headers }));
        return log.data.find((entry: any) => entry.status === 'succeeded');
      });
      expect(delivery.attempts[0].status_code).toBe(200);
      expect(output).toContain(`operation.fiscal_state_changed ${delivery.event_id} ${sale.id}`);

      const body = JSON.stringify({ id: 'evt_forged', type: 'export.completed', data: { object: { id: 'exp_x' } } });
      const stolen = `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}`;
      expect((await fetch(url, { method: 'POST', body, headers: { 'service-signature': stolen } })).status).toBe(400);
      expect((await fetch(url, { method: 'POST', body })).status).toBe(400);
      // Rightly signed, but 10 minutes ago: a replay.
      const then = Math.floor(Date.now() / 1000) - 600;
      const replayed = `t=${then},v1=${createHmac('sha256', endpoint.secret).update(`${then}.${body}`).digest('hex')}`;
      expect((await fetch(url, { method: 'POST', body, headers: { 'service-signature': replayed } })).status).toBe(400);
      // Rightly signed and fresh: accepted, so the refusals above were the checks' doing.
      const now = Math.floor(Date.now() / 1000);
      const signed = `t=${now},v1=${createHmac('sha256', endpoint.secret).update(`${now}.${body}`).digest('hex')}`;
      expect((await fetch(url, { method: 'POST', body, headers: { 'service-signature': signed } })).status).toBe(200);
      await eventually(async () => output.includes('export.completed evt_forged exp_x') || undefined);
      expect(output.match(/evt_forged/g)).toHaveLength(1);
      expect(errors).toBe('');
    } finally {
      await t.app.inject({ method: 'DELETE', url: `/v1/webhook-endpoints/${endpoint.id}`, headers: fx.headers });
    }
  });
});
