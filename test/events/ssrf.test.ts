// SSRF: in production a webhook never goes to the service's own network. Registration refuses
// loopback, private, link-local and unique-local hosts, literal or resolved; delivery checks the
// address it connects to again, so a name that later resolves inward (DNS rebinding) gets nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkDestination, nonPublicKind, RefusedDestinationError } from '../../src/outbox/destinationPolicy.js';
import { createAndCompleteSale, fiscalizedRegisterWithSession, type OperationsFixture } from '../support/operations.js';
import { createTenantWithKey, createTestApp, expectError, json, TEST_SECRETS_KEY, type TestApp } from '../support/testApp.js';
import { eventually, startReceiver, type WebhookReceiver } from '../support/webhookReceiver.js';
import { SecretBox } from '../../src/lib/secretBox.js';

describe('address classification', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.254', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456::1', 'unique-local'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
  ])('%s is %s', (address, kind) => {
    expect(nonPublicKind(address)).toBe(kind);
  });

  it.each(['93.184.215.14', '8.8.8.8', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('%s is public', (address) => {
    expect(nonPublicKind(address)).toBeNull();
  });

  it('checks what a name resolves to, and allows anything in the sandbox', async () => {
    await expect(checkDestination(new URL('http://localhost:8080/'), 'public_only')).rejects.toThrow(/localhost resolves to .*not a public address \(loopback\)/);
    await expect(checkDestination(new URL('http://[::ffff:7f00:1]/'), 'public_only')).rejects.toBeInstanceOf(RefusedDestinationError);
    await expect(checkDestination(new URL('http://no-such-host.invalid/'), 'public_only')).rejects.toThrow(/does not resolve/);
    await expect(checkDestination(new URL('https://93.184.215.14/hooks'), 'public_only')).resolves.toBeUndefined();
    await expect(checkDestination(new URL('http://localhost:8080/'), 'any')).resolves.toBeUndefined();
  });
});

describe('in production', () => {
  let t: TestApp;
  let fx: OperationsFixture;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    t = await createTestApp({ SERVICE_ENV: 'production', EXPORT_POLL_MS: '50', WEBHOOK_RETRY_MS: '50' });
    const tenant = await createTenantWithKey(t.database, 'DEU', 'live');
    fx = await fiscalizedRegisterWithSession(t.app, tenant.apiKey);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await t.close();
  });

  const register = (url: string) => t.app.inject({ method: 'POST', url: '/v1/webhook-endpoints', headers: fx.headers, payload: { url, events: ['*'] } });

  it.each([
    'http://127.0.0.1:9000/hooks',
    'http://localhost/hooks',
    'http://10.0.0.5/hooks',
    'http://192.168.0.10/hooks',
    'http://169.254.169.254/latest/meta-data',
    'http://[::1]/hooks',
    'http://[fd00::5]/hooks',
    'http://[fe80::1]/hooks',
    'http://0x7f.1/hooks',
    'http://2130706433/hooks',
  ])('refuses %s at registration (422 naming url)', async (url) => {
    const body = expectError(await register(url), 422, 'validation_error');
    expect(body.details).toEqual({ field: 'url' });
    expect(body.message).toMatch(/not a public address/);
  });

  it('accepts a public address', async () => {
    const response = await register('https://93.184.215.14/hooks');
    expect(response.statusCode).toBe(201);
    await t.app.inject({ method: 'DELETE', url: `/v1/webhook-endpoints/${json(response).id}`, headers: fx.headers });
  });

  it('refuses at delivery a host that resolves inward now, and an inward address that got stored', async () => {
    // As if these had passed registration: a name that resolved to a public address then (DNS
    // rebinding), and a literal stored before the rule existed.
    const port = new URL(receiver.url).port;
    const secret = new SecretBox(TEST_SECRETS_KEY).seal('whsec_test');
    for (const [id, url] of [
      ['we_rebound', `http://localhost:${port}/hooks`],
      ['we_literal', `http://127.0.0.1:${port}/hooks`],
    ]) {
      await t.database.prisma.webhookEndpoint.create({ data: { id, merchantId: fx.merchantId, url, events: ['*'], sealedSecret: secret } });
    }
    await createAndCompleteSale(t.app, fx);
    for (const [id, refused] of [
      ['we_rebound', /localhost resolves to .*not a public address \(loopback\)/],
      ['we_literal', /127\.0\.0\.1 is not a public address \(loopback\)/],
    ] as const) {
      const delivery = await eventually(async () => {
        const log = json(await t.app.inject({ method: 'GET', url: `/v1/webhook-endpoints/${id}/deliveries`, headers: fx.headers }));
        return log.data[0]?.attempts.length >= 2 ? log.data[0] : undefined;
      });
      expect(delivery.status).toBe('pending');
      for (const attempt of delivery.attempts) expect(attempt).toMatchObject({ status_code: null, error: expect.stringMatching(refused) });
    }
    expect(receiver.received).toEqual([]);
  });
});
