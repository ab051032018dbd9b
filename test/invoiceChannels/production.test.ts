// Invoice channels in production: no simulator to choose, Italian invoices wait (SDI_NOT_CONFIGURED)
// until the organization configures A-Cube, then the waiting ones go out through it; after DELETE
// new invoices wait again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/modules/admin/service.js';
import { auth, createTestApp, expectError, json, type TestApp } from '../support/testApp.js';
import { orgAuth } from '../support/styleO.js';
import { ACUBE_EMAIL, ACUBE_PASSWORD, FakeAcube } from '../support/fakeAcube.js';
import { IT_SELLER_MERCHANT, itInvoice, mustCreateInvoice, waitForInvoice } from '../support/invoices.js';

let production: TestApp;
let acube: FakeAcube;
let headers: Record<string, string>;
let channelUrl: string;

beforeAll(async () => {
  acube = await FakeAcube.start();
  production = await createTestApp({ SERVICE_ENV: 'production', EXPORT_POLL_MS: '50', SECRETS_KEY: 'cd'.repeat(32), INVOICE_CHANNEL_POLL_MS: '100', INVOICE_CHANNEL_TIMEOUT_MS: '2000' });
  const tenant = await production.database.prisma.tenant.create({ data: { id: 'ten_channels_production', name: 'Production' } });
  const { apiKey: itaKey } = await createApiKey(production.database.prisma, tenant.id, 'live', { kind: 'tenant', country_code: 'ITA' });
  const organization = json(await production.app.inject({ method: 'POST', url: '/v1/merchants', headers: auth(itaKey), payload: IT_SELLER_MERCHANT }));
  const { apiKey } = await createApiKey(production.database.prisma, tenant.id, 'live', { kind: 'platform' });
  headers = orgAuth(apiKey, organization.id);
  channelUrl = `/v1/organizations/${organization.id}/invoice-channels/IT`;
});
afterAll(async () => {
  await production.close();
  await acube.close();
});

const submitted = (payload: object) => mustCreateInvoice(production.app, headers, { ...payload, submit: true });
const waiting = (id: string) =>
  waitForInvoice(production.app, headers, id, (invoice) => invoice.fiscal.fiscal_errors[0]?.code === 'SDI_NOT_CONFIGURED');

describe('invoice channels in production', () => {
  it('offers no simulator', async () => {
    const error = expectError(await production.app.inject({ method: 'PUT', url: channelUrl, headers, payload: { driver: 'sandbox' } }), 422, 'invoice_channel_driver_unsupported');
    expect(error.details).toMatchObject({ field: 'driver' });
  });

  it('sends the invoices that waited for a channel once A-Cube is configured, and new ones wait again after DELETE', async () => {
    const early = await submitted(itInvoice());
    expect(await waiting(early.id)).toMatchObject({ state: 'submitted', fiscal: { transmission_status: 'failed' } });

    const put = await production.app.inject({
      method: 'PUT',
      url: channelUrl,
      headers,
      payload: { driver: 'acube', email: ACUBE_EMAIL, password: ACUBE_PASSWORD, base_url: acube.baseUrl, login_url: acube.baseUrl },
    });
    expect(put.statusCode).toBe(200);
    const sent = await waitForInvoice(production.app, headers, early.id, (invoice) => invoice.state === 'transmitted', 40_000);
    expect(sent.fiscal).toMatchObject({ fiscal_errors: [], jurisdiction_data: { channel: 'acube' } });
    expect(acube.received(early.invoice_number)).toHaveLength(1);

    expect((await production.app.inject({ method: 'DELETE', url: channelUrl, headers })).statusCode).toBe(200);
    const later = await submitted(itInvoice());
    await waiting(later.id);
    expect(acube.received(later.invoice_number)).toHaveLength(0);

    // The invoice A-Cube received still hears from it.
    acube.notify(early.invoice_number, 'RC');
    await waitForInvoice(production.app, headers, early.id, (invoice) => invoice.state === 'delivered');
  }, 60_000);
});
