// The README's sample receiver is code integrators copy: run exactly that block as a process,
// point an endpoint at it, and check that it accepts the service's deliveries and refuses forgeries.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAndCompleteSale, fiscalizedRegisterWithSession, type OperationsFixture } from '../support/operations.js';
import { freePort, ROOT, tempDir } from '../support/processes.js';
import { createTenantWithKey, createTestApp, json, type TestApp } from '../support/testApp.js';
import { eventually } from '../support/webhookReceiver.js';

/** The one js block of the README's "Events and webhooks" section. */
function sampleReceiver(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('## Events and webhooks');
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
  const blocks = [...section.matchAll(/```js\n([\s\S]*?)```/g)].map((match) => match[1]!);
  expect(blocks).toHaveLength(1);
  return blocks[0]!;
}

let t: TestApp;
let fx: OperationsFixture;
let receiver: ChildProcess;
let output = '';
const work = tempDir('fiscal-receiver-');

beforeAll(async () => {
  t = await createTestApp({ EXPORT_POLL_MS: '50' });
  fx = await fiscalizedRegisterWithSession(t.app, (await createTenantWithKey(t.database)).apiKey);
});
afterAll(async () => {
  receiver?.kill();
  work.remove();
  await t.close();
});

describe('the README sample receiver', () => {
  it('accepts a delivery of the service and refuses a forged, unsigned or replayed one', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/`;
    const endpoint = json(await t.app.inject({ method: 'POST', url: '/v1/webhook-endpoints', headers: fx.headers, payload: { url, events: ['*'] } }));
    const script = join(work.path, 'receiver.mjs');
    writeFileSync(script, sampleReceiver());
    receiver = spawn(process.execPath, [script], { env: { PATH: process.env.PATH, PORT: String(port), WEBHOOK_SECRET: endpoint.secret } });
    receiver.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await eventually(async () => (await fetch(url, { method: 'POST', body: '{}' }).then((response) => response.status).catch(() => undefined)));

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
    expect(output).not.toContain('evt_forged');
  });
});
