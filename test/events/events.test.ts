// Events: each type the service emits, written in the transaction of the change it reports (none
// for a change that rolled back), listed newest first with a type filter and a cursor, and visible
// to the merchant's callers only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordEvent } from '../../src/outbox/recordEvent.js';
import { runFiscalRetryPass } from '../../src/modules/refunds/fiscalRetry.js';
import {
  completeOp,
  createAndCompleteSale,
  createOperation,
  fiscalizedRegisterWithSession,
  idem,
  saleBody,
  simulate,
  type OperationsFixture,
} from '../support/operations.js';
import { autLine, autRegisterWithSession } from '../support/rksv.js';
import { FakeFpmate } from '../support/fakeFpmate.js';
import { itaLine, itaMovement, itaRegisterWithSession } from '../support/rt.js';
import { mustCompleteRefund, mustRefund, orgAuth, organizationKey, styleOAction } from '../support/styleO.js';
import { auth, createTenantWithKey, createTestApp, expectError, json, type Tenant, type TestApp } from '../support/testApp.js';
import { eventually } from '../support/webhookReceiver.js';

let t: TestApp;
let deu: Tenant;
let fx: OperationsFixture;

beforeAll(async () => {
  t = await createTestApp({ EXPORT_POLL_MS: '50', RT_TRANSMISSION_RETRY_MS: '50' });
  deu = await createTenantWithKey(t.database, 'DEU');
  fx = await fiscalizedRegisterWithSession(t.app, deu.apiKey);
});
afterAll(() => t.close());

/** Every event of the merchant `headers` act for, newest first, through the cursor. */
async function allEvents(headers: Record<string, string>, query = ''): Promise<any[]> {
  const events: any[] = [];
  let cursor: string | null = null;
  do {
    const page: { data: any[]; cursor: string | null } = json(await t.app.inject({ method: 'GET', url: `/v1/events?limit=3${query}${cursor ? `&cursor=${cursor}` : ''}`, headers }));
    events.push(...page.data);
    cursor = page.cursor;
  } while (cursor);
  return events;
}

const eventsAbout = async (headers: Record<string, string>, type: string, id: string) =>
  (await allEvents(headers, `&type=${type}`)).filter((event) => event.data.object.id === id);

/** The first event of `type` about the resource `id`, once there is one. */
const awaitEvent = (headers: Record<string, string>, type: string, id: string) =>
  eventually(async () => (await eventsAbout(headers, type, id))[0]);

describe('operation.fiscal_state_changed', () => {
  it('a Style M sale signed at completion: the operation in Style M', async () => {
    const sale = await createAndCompleteSale(t.app, fx);
    const [event] = await eventsAbout(fx.headers, 'operation.fiscal_state_changed', sale.id);
    expect(event).toMatchObject({ object: 'event', type: 'operation.fiscal_state_changed', organization_id: fx.merchantId, created_at: expect.any(String) });
    expect(event.id).toMatch(/^evt_[A-Za-z0-9]{20}$/);
    // The operation exactly as GET /v1/operations/{id} showed it after the change.
    expect(event.data.object).toEqual(sale);
  });

  it('a Style O refund: pending -> succeeded; a failed device: failed, then the retry succeeds, with the device events', async () => {
    const styleO = orgAuth(deu.apiKey, fx.merchantId);
    const signed = await mustCompleteRefund(t.app, styleO, (await mustRefund(t.app, styleO, fx.registerId, { original_operation_id: (await createAndCompleteSale(t.app, fx)).id })).id);
    const [succeeded] = await eventsAbout(styleO, 'operation.fiscal_state_changed', signed.id);
    expect(succeeded.data.object).toEqual(signed);
    expect(succeeded.data.object).toMatchObject({ object: 'operation', type: 'refund', fiscal_state: 'succeeded' });

    const refund = await mustRefund(t.app, styleO, fx.registerId, { original_operation_id: (await createAndCompleteSale(t.app, fx)).id });
    await simulate(t.app, fx.headers, fx.registerId, 'unreachable');
    const failed = json(await styleOAction(t.app, styleO, refund.id, 'complete'));
    await simulate(t.app, fx.headers, fx.registerId, 'ok');
    expect(failed.fiscal_state).toBe('failed');
    expect((await eventsAbout(styleO, 'operation.fiscal_state_changed', refund.id)).map((event) => event.data.object.fiscal_state)).toEqual(['failed']);
    const [down] = await eventsAbout(styleO, 'signature_device.failed', fx.registerId);
    expect(down.data.object).toMatchObject({ id: fx.registerId, merchant_id: fx.merchantId, fiscalization: { regime: 'KassenSichV' } });
    expect(down.data.signature_device).toMatchObject({ regime: 'KassenSichV', serial: down.data.object.fiscalization.tse_serial, failed_since: expect.any(String), recovered_at: null });

    const pass = await runFiscalRetryPass(t.app.ctx, { now: new Date(Date.now() + 3_600_000) });
    expect(pass.succeeded).toContain(refund.id);
    const states = (await eventsAbout(styleO, 'operation.fiscal_state_changed', refund.id)).map((event) => event.data.object.fiscal_state);
    expect(states).toEqual(['succeeded', 'failed']);
    const [up] = await eventsAbout(styleO, 'signature_device.recovered', fx.registerId);
    expect(up.data.signature_device).toMatchObject({ failed_since: down.data.signature_device.failed_since, recovered_at: expect.any(String) });
    // One outage, one pair: later signings change nothing.
    await createAndCompleteSale(t.app, fx);
    expect(await eventsAbout(styleO, 'signature_device.failed', fx.registerId)).toHaveLength(1);
    expect(await eventsAbout(styleO, 'signature_device.recovered', fx.registerId)).toHaveLength(1);
  });
});

describe('written with the change, or not at all', () => {
  it('a completion the device refuses (422, rolled back) writes no event', async () => {
    const created = json(await createOperation(t.app, fx.headers, saleBody(fx.registerId)));
    const before = (await allEvents(fx.headers)).length;
    await simulate(t.app, fx.headers, fx.registerId, 'unreachable');
    try {
      expectError(await completeOp(t.app, fx.headers, created), 422, 'validation_error');
    } finally {
      await simulate(t.app, fx.headers, fx.registerId, 'ok');
    }
    expect(await allEvents(fx.headers)).toHaveLength(before);
  });

  it('an event recorded in a transaction that rolls back leaves neither event nor delivery', async () => {
    const endpoint = json(await t.app.inject({ method: 'POST', url: '/v1/webhook-endpoints', headers: fx.headers, payload: { url: 'http://127.0.0.1:9/hooks', events: ['*'] } }));
    const count = async () =>
      (await t.database.sql.query<{ events: number; deliveries: number }>(
        'SELECT (SELECT count(*)::int FROM events) AS events, (SELECT count(*)::int FROM webhook_deliveries) AS deliveries',
      ))[0];
    const before = await count();
    await expect(
      t.database.sql.transaction(async (sql) => {
        await recordEvent(sql, { type: 'export.completed', merchantId: fx.merchantId, data: { object: { id: 'exp_x' } } });
        expect((await sql.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_deliveries'))[0].n).toBe(before.deliveries + 1);
        throw new Error('the change fails');
      }),
    ).rejects.toThrow('the change fails');
    expect(await count()).toEqual(before);
    await t.app.inject({ method: 'DELETE', url: `/v1/webhook-endpoints/${endpoint.id}`, headers: fx.headers });
  });
});

describe('export.completed and export.failed', () => {
  it('report the job as GET /v1/exports/{id} shows it, from the worker', async () => {
    const setup = await fiscalizedRegisterWithSession(t.app, deu.apiKey);
    await createAndCompleteSale(t.app, setup);
    const range = { type: 'dsfinvk', from: '2020-01-01T00:00:00Z', to: '2099-01-01T00:00:00Z' };
    const doomed = json(await t.app.inject({ method: 'POST', url: '/v1/exports', headers: setup.headers, payload: range }));
    const failed = await awaitEvent(setup.headers, 'export.failed', doomed.id);
    expect(failed.data.object).toMatchObject({ id: doomed.id, status: 'failed', error: { details: { unbuilt_session_ids: [expect.any(String)] } } });

    await createOperation(t.app, setup.headers, { type: 'session_cash_count', register_id: setup.registerId, counted_closing_amount: '111.90' });
    await createOperation(t.app, setup.headers, { type: 'session_close', register_id: setup.registerId });
    const built = json(await t.app.inject({ method: 'POST', url: '/v1/exports', headers: setup.headers, payload: range }));
    const completed = await awaitEvent(setup.headers, 'export.completed', built.id);
    expect(completed.data.object).toMatchObject({ id: built.id, type: 'dsfinvk', status: 'completed', download_url: expect.stringContaining(`/v1/exports/${built.id}/download?`) });
    expect(await eventsAbout(setup.headers, 'export.failed', built.id)).toEqual([]);
  });
});

describe('daily_closure.transmitted and daily_closure.rejected', () => {
  it('report the closure once the authority answered', async () => {
    const ita = await createTenantWithKey(t.database, 'ITA');
    const rt = await itaRegisterWithSession(t.app, ita.apiKey);
    const sale = json(await createOperation(t.app, rt.headers, itaMovement(rt, 'sale', [itaLine('Caffè', '1.10', '0.10')])));
    expect((await completeOp(t.app, rt.headers, sale, [{ method: 'cash', amount: '1.10' }])).statusCode).toBe(200);
    const close = () => t.app.inject({ method: 'POST', url: `/v1/registers/${rt.registerId}/daily-closures`, headers: { ...rt.headers, 'idempotency-key': idem() } });

    const accepted = json(await close());
    const transmitted = await awaitEvent(rt.headers, 'daily_closure.transmitted', accepted.id);
    expect(transmitted.data.object).toMatchObject({ id: accepted.id, register_id: rt.registerId, transmission: { status: 'transmitted' } });

    await t.app.inject({ method: 'PUT', url: `/v1/registers/${rt.registerId}/simulation`, headers: rt.headers, payload: { fiscal_device: 'ok', authority: 'reject' } });
    const refused = json(await close());
    const rejected = await awaitEvent(rt.headers, 'daily_closure.rejected', refused.id);
    expect(rejected.data.object).toMatchObject({ id: refused.id, transmission: { status: 'rejected', errors: [{ code: 'COR10_REJECTED' }] } });
    expect(await eventsAbout(rt.headers, 'daily_closure.transmitted', refused.id)).toEqual([]);
  });

  it('report a printer\'s closure as transmitted in the transaction that makes it (the printer transmits its own COR10)', async () => {
    const printer = await FakeFpmate.start({ zRepNumber: 7 });
    try {
      const ita = await createTenantWithKey(t.database, 'ITA');
      const rt = await itaRegisterWithSession(t.app, ita.apiKey, { rt: { driver: 'epson_fpmate', url: printer.url, serial: '99MEY026532' } });
      const closure = json(await t.app.inject({ method: 'POST', url: `/v1/registers/${rt.registerId}/daily-closures`, headers: { ...rt.headers, 'idempotency-key': idem() } }));
      const [event] = await eventsAbout(rt.headers, 'daily_closure.transmitted', closure.id);
      expect(event.data.object).toEqual(closure);
    } finally {
      await printer.close();
    }
  });
});

describe('signature_device.failed and signature_device.recovered', () => {
  it('an RKSV register signing with the failure marker, then again with its unit', async () => {
    const aut = await createTenantWithKey(t.database, 'AUT');
    const rksv = await autRegisterWithSession(t.app, aut.apiKey);
    const sell = async () => {
      const line = autLine('Melange', '4.20', '0.10');
      const created = json(await createOperation(t.app, rksv.headers, { type: 'sale', source: 'POS', currency: 'EUR', register_id: rksv.registerId, total_amount: '4.20', line_items: [line] }));
      const completed = await completeOp(t.app, rksv.headers, created);
      expect(completed.statusCode, completed.body).toBe(200);
      return json(completed);
    };
    await simulate(t.app, rksv.headers, rksv.registerId, 'unreachable');
    const marked = await sell();
    expect(marked.fiscal_information.signature_device_failed).toBe(true);
    await sell();
    await simulate(t.app, rksv.headers, rksv.registerId, 'ok');
    const signed = await sell();
    expect(signed.fiscal_information.signature_device_failed).toBe(false);

    const [down] = await eventsAbout(rksv.headers, 'signature_device.failed', rksv.registerId);
    const [up] = await eventsAbout(rksv.headers, 'signature_device.recovered', rksv.registerId);
    expect(await eventsAbout(rksv.headers, 'signature_device.failed', rksv.registerId)).toHaveLength(1);
    expect(down.data.signature_device).toMatchObject({ regime: 'RKSV', serial: rksv.register.fiscalization.tse_serial, recovered_at: null });
    expect(up.data.signature_device).toMatchObject({ regime: 'RKSV', failed_since: down.data.signature_device.failed_since, recovered_at: expect.any(String) });
    expect(up.data.object).toMatchObject({ id: rksv.registerId, fiscalization: { regime: 'RKSV' } });
    // Each sale's own event says whether it carries the marker.
    const [markedEvent] = await eventsAbout(rksv.headers, 'operation.fiscal_state_changed', marked.id);
    expect(markedEvent.data.object.fiscal_information.signature_device_failed).toBe(true);
  });
});

describe('listing', () => {
  it('newest first, filtered by type, paged by cursor without gaps or repeats; an unknown type is 422', async () => {
    const every = await allEvents(fx.headers);
    expect(every.length).toBeGreaterThan(5);
    expect(new Set(every.map((event) => event.id)).size).toBe(every.length);
    const times = every.map((event) => Date.parse(event.created_at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    const single = json(await t.app.inject({ method: 'GET', url: '/v1/events?limit=200', headers: fx.headers }));
    expect(single.data.map((event: any) => event.id)).toEqual(every.map((event) => event.id));

    const failures = await allEvents(fx.headers, '&type=signature_device.failed');
    expect(failures.length).toBeGreaterThan(0);
    expect(failures.every((event) => event.type === 'signature_device.failed')).toBe(true);
    expect(failures).toEqual(every.filter((event) => event.type === 'signature_device.failed'));

    const unknown = expectError(await t.app.inject({ method: 'GET', url: '/v1/events?type=operation.created', headers: fx.headers }), 422, 'validation_error');
    expect(unknown.details).toEqual({ field: 'type' });
    expectError(await t.app.inject({ method: 'GET', url: '/v1/events?cursor=bogus', headers: fx.headers }), 400, 'invalid_request');
  });

  it('one event by id, in either style; another merchant\'s is 404 and out of its list', async () => {
    const [latest] = json(await t.app.inject({ method: 'GET', url: '/v1/events?limit=1', headers: fx.headers })).data;
    for (const headers of [fx.headers, orgAuth(deu.apiKey, fx.merchantId), orgAuth(await organizationKey(t.database, deu.tenantId, fx.merchantId))]) {
      expect(json(await t.app.inject({ method: 'GET', url: `/v1/events/${latest.id}`, headers }))).toEqual(latest);
    }
    const neighbour = await fiscalizedRegisterWithSession(t.app, deu.apiKey);
    const stranger = await createTenantWithKey(t.database, 'DEU');
    for (const headers of [neighbour.headers, orgAuth(await organizationKey(t.database, deu.tenantId, neighbour.merchantId)), auth(stranger.apiKey, fx.merchantId)]) {
      expectError(await t.app.inject({ method: 'GET', url: `/v1/events/${latest.id}`, headers }), 404, 'not_found');
    }
    expect((await allEvents(neighbour.headers)).map((event) => event.id)).not.toContain(latest.id);
  });
});
