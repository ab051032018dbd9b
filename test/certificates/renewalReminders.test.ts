// Renewal reminders (contract 6, DESIGN "Fiscal certificates"): fiscal_certificate.expiring
// 60, 30 and 7 days before valid_until, once per certificate and threshold, also with two
// instances scanning at once; after downtime (or for a certificate uploaded late) one
// reminder for the nearest threshold; none for revoked or expired certificates.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExpiryScan } from '../../src/modules/expiryScan/expiryScan.js';
import { makeCertificate } from '../support/certificates.js';
import { orgAuth, platformKey } from '../support/styleO.js';
import { createDeuSetup, createPeerApp, createTenantWithKey, createTestApp, json, type TestApp } from '../support/testApp.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const HOUR_MS = 60 * 60 * 1000;
const START = new Date('2027-01-10T10:00:00.000Z');
let now = START;
const clock = () => now;

let t: TestApp;
let tenant: { tenantId: string; apiKey: string };
let platform: string;

beforeAll(async () => {
  // The app's own timer stays out of the way: the tests scan when they choose.
  t = await createTestApp({ EXPIRY_SCAN_MS: '30000' }, { clock });
  tenant = await createTenantWithKey(t.database, 'DEU');
  platform = await platformKey(t.database, tenant.tenantId);
});
afterAll(() => t.close());

async function newOrganization(): Promise<string> {
  return (await createDeuSetup(t.app, tenant.apiKey)).merchantId;
}

async function uploadExpiringAt(organizationId: string, notAfter: Date) {
  const certificate = await makeCertificate({ notBefore: new Date(START.getTime() - 300 * DAY_MS), notAfter });
  const response = await t.app.inject({
    method: 'POST',
    url: `/v1/organizations/${organizationId}/fiscal-certificates`,
    headers: orgAuth(platform, organizationId),
    payload: { jurisdiction: 'IT', certificate: certificate.pem },
  });
  expect(response.statusCode).toBe(201);
  return json(response);
}

interface StoredEvent {
  type: string;
  data: { object: { id: string; status: string }; days_left: number };
}

const eventsOf = (organizationId: string, type = 'fiscal_certificate.expiring') =>
  t.database.sql.query<StoredEvent>('SELECT type, data FROM events WHERE merchant_id = $1 AND type = $2 ORDER BY created_at, id', [organizationId, type]);

const scan = () => new ExpiryScan(t.app.ctx, t.app.log).scan();

describe('certificate reminders', () => {
  it('go out at 60, 30 and 7 days, each exactly once, with the certificate and the days left', async () => {
    now = START;
    const organization = await newOrganization();
    const validUntil = new Date(START.getTime() + 100 * DAY_MS);
    const certificate = await uploadExpiringAt(organization, validUntil);
    const at = (daysBefore: number, offsetMs = 0) => new Date(validUntil.getTime() - daysBefore * DAY_MS + offsetMs);

    await scan();
    expect(await eventsOf(organization)).toEqual([]);
    now = at(60, -HOUR_MS);
    await scan();
    expect(await eventsOf(organization)).toEqual([]);

    now = at(60, HOUR_MS);
    await scan();
    await scan();
    let events = await eventsOf(organization);
    expect(events).toHaveLength(1);
    expect(events[0].data.days_left).toBe(60);
    expect(events[0].data.object).toMatchObject({ id: certificate.id, object: 'fiscal_certificate', status: 'active', valid_until: validUntil.toISOString() });

    now = at(45);
    await scan();
    expect(await eventsOf(organization)).toHaveLength(1);
    now = at(30, HOUR_MS);
    await scan();
    now = at(7, 2 * HOUR_MS);
    await scan();
    await scan();
    now = at(1);
    await scan();
    now = at(-1);
    await scan();
    events = await eventsOf(organization);
    expect(events.map((event) => event.data.days_left)).toEqual([60, 30, 7]);
    const claims = await t.database.sql.query<{ threshold_days: number }>(
      'SELECT threshold_days FROM fiscal_certificate_reminders WHERE certificate_id = $1 ORDER BY threshold_days DESC',
      [certificate.id],
    );
    expect(claims.map((claim) => claim.threshold_days)).toEqual([60, 30, 7]);
    // The organization reads them as events.
    const listed = json(
      await t.app.inject({ method: 'GET', url: '/v1/events?type=fiscal_certificate.expiring', headers: orgAuth(platform, organization) }),
    );
    expect(listed.data.map((event: { data: { days_left: number } }) => event.data.days_left)).toEqual([7, 30, 60]);
    expect(listed.data[0]).toMatchObject({ object: 'event', type: 'fiscal_certificate.expiring', organization_id: organization });
  });

  it('after downtime across thresholds, or for a certificate uploaded 5 days before expiry, one reminder: the nearest', async () => {
    now = START;
    const organization = await newOrganization();
    const validUntil = new Date(START.getTime() + 40 * DAY_MS);
    await uploadExpiringAt(organization, validUntil);
    // Down from 40 days before expiry until 5 days before it.
    now = new Date(validUntil.getTime() - 5 * DAY_MS);
    await scan();
    await scan();
    expect((await eventsOf(organization)).map((event) => event.data.days_left)).toEqual([5]);

    const late = await newOrganization();
    await uploadExpiringAt(late, new Date(now.getTime() + 5 * DAY_MS));
    await scan();
    await scan();
    expect((await eventsOf(late)).map((event) => event.data.days_left)).toEqual([5]);
  });

  it('none for a revoked or an expired certificate', async () => {
    now = START;
    const organization = await newOrganization();
    const revoked = await uploadExpiringAt(organization, new Date(START.getTime() + 20 * DAY_MS));
    await t.app.inject({
      method: 'POST',
      url: `/v1/organizations/${organization}/fiscal-certificates/${revoked.id}/revoke`,
      headers: orgAuth(platform, organization),
    });
    await uploadExpiringAt(organization, new Date(START.getTime() - DAY_MS));
    await scan();
    expect(await eventsOf(organization)).toEqual([]);
  });

  it('the server scans by itself at start and on its timer: a reminder due at upload is an event within the interval', async () => {
    now = START;
    const timed = await createTestApp({ EXPIRY_SCAN_MS: '50' }, { clock });
    try {
      const keys = await createTenantWithKey(timed.database, 'DEU');
      const organization = (await createDeuSetup(timed.app, keys.apiKey)).merchantId;
      const key = await platformKey(timed.database, keys.tenantId);
      const certificate = await makeCertificate({ notBefore: new Date(START.getTime() - DAY_MS), notAfter: new Date(START.getTime() + 3 * DAY_MS) });
      await timed.app.inject({
        method: 'POST',
        url: `/v1/organizations/${organization}/fiscal-certificates`,
        headers: orgAuth(key, organization),
        payload: { jurisdiction: 'IT', certificate: certificate.pem },
      });
      const deadline = Date.now() + 5000;
      let events: StoredEvent[] = [];
      while (Date.now() < deadline && events.length === 0) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        events = await timed.database.sql.query<StoredEvent>("SELECT type, data FROM events WHERE merchant_id = $1 AND type = 'fiscal_certificate.expiring'", [organization]);
      }
      expect(events.map((event) => event.data.days_left)).toEqual([3]);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await timed.database.sql.query("SELECT id FROM events WHERE merchant_id = $1", [organization])).toHaveLength(1);
    } finally {
      await timed.close();
    }
  });

  it.skipIf(!process.env.DATABASE_URL)('two instances scanning at the same moment send each reminder once (PostgreSQL)', { timeout: 60_000 }, async () => {
    now = START;
    const peer = await createPeerApp(t, { EXPIRY_SCAN_MS: '30000' }, { clock });
    try {
      const organization = await newOrganization();
      const validUntil = new Date(START.getTime() + 10 * DAY_MS);
      for (let i = 0; i < 8; i += 1) await uploadExpiringAt(organization, new Date(validUntil.getTime() + i * HOUR_MS));
      const scans = [t.app, peer.app].map((app) => new ExpiryScan(app.ctx, app.log));
      for (const daysBefore of [8.5, 6.5]) {
        now = new Date(validUntil.getTime() - daysBefore * DAY_MS);
        for (let round = 0; round < 3; round += 1) await Promise.all(scans.flatMap((each) => [each.scan(), each.scan()]));
      }
      const events = await eventsOf(organization);
      expect(events).toHaveLength(16);
      const perCertificate = new Map<string, number[]>();
      for (const event of events) perCertificate.set(event.data.object.id, [...(perCertificate.get(event.data.object.id) ?? []), event.data.days_left]);
      expect(perCertificate.size).toBe(8);
      for (const daysLeft of perCertificate.values()) expect(daysLeft).toHaveLength(2);
    } finally {
      await peer.close();
    }
  });
});

describe('portal password reminders', () => {
  it('a Fisconline password gets fiscal_portal_credential.expiring once at day 60, again for a new password; none once expired', async () => {
    now = START;
    const organization = await newOrganization();
    const headers = orgAuth(platform, organization);
    const created = json(
      await t.app.inject({
        method: 'POST',
        url: `/v1/organizations/${organization}/fiscal-portal-credentials`,
        headers,
        payload: { portal_type: 'fisconline', jurisdiction: 'IT', credentials: { user_id: 'RSSMRA85T10A562S', password: 'First-Pass-1', pin: '1234' } },
      }),
    );
    const reminders = () => eventsOf(organization, 'fiscal_portal_credential.expiring');
    now = new Date(START.getTime() + 60 * DAY_MS - HOUR_MS);
    await scan();
    expect(await reminders()).toEqual([]);
    now = new Date(START.getTime() + 60 * DAY_MS);
    await scan();
    await scan();
    let events = await reminders();
    expect(events).toHaveLength(1);
    expect(events[0].data).toMatchObject({ days_left: 30, object: { id: created.id, object: 'fiscal_portal_credential', state: 'unvalidated' } });
    expect(JSON.stringify(events[0].data)).not.toContain('First-Pass-1');

    // A new password: its own reminder 60 days later.
    const renewedAt = new Date(START.getTime() + 70 * DAY_MS);
    now = renewedAt;
    await t.app.inject({
      method: 'PATCH',
      url: `/v1/organizations/${organization}/fiscal-portal-credentials/${created.id}`,
      headers,
      payload: { credentials: { password: 'Second-Pass-2' } },
    });
    await scan();
    expect(await reminders()).toHaveLength(1);
    now = new Date(renewedAt.getTime() + 61 * DAY_MS);
    await scan();
    events = await reminders();
    expect(events.map((event) => event.data.days_left)).toEqual([30, 29]);

    // Down past the expiry: the credential is expired, and no reminder comes late.
    const other = await newOrganization();
    now = START;
    await t.app.inject({
      method: 'POST',
      url: `/v1/organizations/${other}/fiscal-portal-credentials`,
      headers: orgAuth(platform, other),
      payload: { portal_type: 'fisconline', jurisdiction: 'IT', credentials: { password: 'Old-Pass-3' } },
    });
    now = new Date(START.getTime() + 91 * DAY_MS);
    await scan();
    expect(await eventsOf(other, 'fiscal_portal_credential.expiring')).toEqual([]);
  });
});
