// Fiscal device failures (DESIGN "Fiscal devices"): phase 1 before the TSE
// started the transaction, phase 2 after; both 422 validation_error with
// details.phase, the operation stays open, and nothing is half-signed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { auth, createTenantWithKey, createTestApp, createDeuSetup, json, type TestApp } from '../support/testApp.js';
import {
  completeOp,
  expectApiError,
  fiscalizedRegisterWithSession,
  getOp,
  mustCreate,
  saleBody,
  sessionEvent,
  simulate,
  type OperationsFixture,
} from '../support/operations.js';

let t: TestApp;
let fx: OperationsFixture;
let tseSerial: string;

beforeAll(async () => {
  t = await createTestApp();
  const tenant = await createTenantWithKey(t.database, 'DEU');
  fx = await fiscalizedRegisterWithSession(t.app, tenant.apiKey);
  tseSerial = json(await t.app.inject({ method: 'GET', url: `/v1/registers/${fx.registerId}`, headers: fx.headers })).fiscalization.tse_serial;
});
afterAll(() => t.close());

/** Everything the TSE has recorded: its two counters and its transaction rows. */
async function tseState() {
  const device = await t.database.prisma.tseDevice.findUniqueOrThrow({ where: { serialNumber: tseSerial } });
  const transactions = await t.database.prisma.tseTransaction.findMany({ where: { tseId: device.id }, orderBy: { transactionNumber: 'asc' } });
  return {
    signatureCounter: Number(device.signatureCounter),
    transactionCounter: Number(device.transactionCounter),
    transactions: transactions.map((row) => ({ number: Number(row.transactionNumber), state: row.state })),
  };
}

const cash = [{ payment_id: 'p1', method: 'cash', amount: '11.90', currency: 'EUR', status: 'captured' }];

describe('complete with a failing device', () => {
  it.each([
    ['unreachable', 1],
    ['reject_after_start', 2],
  ] as const)('%s: 422 validation_error with details.phase %i; the operation stays open and the TSE untouched', async (mode, phase) => {
    const sale = await mustCreate(t.app, fx.headers, saleBody(fx.registerId));
    const before = await tseState();

    await simulate(t.app, fx.headers, fx.registerId, mode);
    const error = expectApiError(await completeOp(t.app, fx.headers, sale, cash), 422, 'validation_error');
    expect(error.details.phase).toBe(phase);
    expect(error.message).toMatch(new RegExp(`phase ${phase}`));

    const read = await getOp(t.app, fx.headers, sale.id);
    expect(read.headers.etag).toBe('"1"');
    expect(json(read)).toMatchObject({ status: 'open', resource_version: 1, fiscal_information: null, receipt_id: null, payments: [], completed_at: null });
    expect(await tseState()).toEqual(before);
    expect(await t.database.prisma.receipt.count({ where: { operationId: sale.id } })).toBe(0);

    // Once the device is back, the same operation completes with the same If-Match,
    // taking the very next counters: the failed attempt left no gap.
    await simulate(t.app, fx.headers, fx.registerId, 'ok');
    const response = await completeOp(t.app, fx.headers, sale, cash);
    expect(response.statusCode).toBe(200);
    const done = json(response);
    expect(done).toMatchObject({ status: 'completed', resource_version: 2 });
    expect(done.fiscal_information.end_event.transaction_counter).toBe(before.transactionCounter + 1);
    expect(done.fiscal_information.end_event.signature_counter).toBe(before.signatureCounter + 2);
    const after = await tseState();
    expect(after.transactions).toEqual([...before.transactions, { number: before.transactionCounter + 1, state: 'finished' }]);
  });
});

describe('signed session events with a failing device', () => {
  it('a cash count that cannot be signed is not recorded and leaves the session open', async () => {
    const before = await tseState();
    const operationsBefore = await t.database.prisma.operation.count({ where: { registerId: fx.registerId } });

    await simulate(t.app, fx.headers, fx.registerId, 'unreachable');
    const unreachable = expectApiError(
      await sessionEvent(t.app, fx.headers, fx.registerId, 'session_cash_count', { counted_closing_amount: '100.00' }),
      422,
      'validation_error',
    );
    expect(unreachable.details.phase).toBe(1);
    await simulate(t.app, fx.headers, fx.registerId, 'reject_after_start');
    const rejected = expectApiError(
      await sessionEvent(t.app, fx.headers, fx.registerId, 'session_cash_count', { counted_closing_amount: '100.00' }),
      422,
      'validation_error',
    );
    expect(rejected.details.phase).toBe(2);
    expect(await tseState()).toEqual(before);
    expect(await t.database.prisma.operation.count({ where: { registerId: fx.registerId } })).toBe(operationsBefore);

    // Still open: an unsigned adjustment is accepted even with the device failing.
    expect((await sessionEvent(t.app, fx.headers, fx.registerId, 'session_cash_adjustment', { amount: '1.00' })).statusCode).toBe(201);

    await simulate(t.app, fx.headers, fx.registerId, 'ok');
    const counted = await sessionEvent(t.app, fx.headers, fx.registerId, 'session_cash_count', { counted_closing_amount: '100.00' });
    expect(counted.statusCode).toBe(201);

    // A close that moves cash is signed too, and rolls back the same way.
    await simulate(t.app, fx.headers, fx.registerId, 'reject_after_start');
    const close = expectApiError(
      await sessionEvent(t.app, fx.headers, fx.registerId, 'session_close', { closing_adjustment_amount: '-100.00' }),
      422,
      'validation_error',
    );
    expect(close.details.phase).toBe(2);
    expectApiError(await sessionEvent(t.app, fx.headers, fx.registerId, 'session_cash_adjustment', { amount: '1.00' }), 409, 'session_already_counted');
    await simulate(t.app, fx.headers, fx.registerId, 'ok');
    expect((await sessionEvent(t.app, fx.headers, fx.registerId, 'session_close', { closing_adjustment_amount: '-100.00' })).statusCode).toBe(201);
    await sessionEvent(t.app, fx.headers, fx.registerId, 'session_open');
  });
});

describe('the simulation endpoint', () => {
  it('accepts only ok, unreachable and reject_after_start', async () => {
    const response = await t.app.inject({
      method: 'PUT',
      url: `/v1/registers/${fx.registerId}/simulation`,
      headers: fx.headers,
      payload: { fiscal_device: 'on_fire' },
    });
    expect(expectApiError(response, 400, 'invalid_request').details.field).toBe('fiscal_device');
    const ok = await t.app.inject({ method: 'PUT', url: `/v1/registers/${fx.registerId}/simulation`, headers: fx.headers, payload: { fiscal_device: 'ok' } });
    expect(ok.statusCode).toBe(200);
    expect(json(ok)).toEqual({ register_id: fx.registerId, fiscal_device: 'ok' });
  });

  it('does not exist in production (404)', async () => {
    // A production instance over the same database, with a live key.
    const production = await buildApp({
      config: loadConfig({ LOG_LEVEL: 'silent', SERVICE_ENV: 'production', DATA_DIR: '/tmp/fiscal-test-data', EXPORT_WORKER: 'off' }),
      database: t.database,
      secretsKey: Buffer.alloc(32, 7),
    });
    await production.ready();
    try {
      const tenant = await createTenantWithKey(t.database, 'DEU', 'live');
      const setup = await createDeuSetup(production, tenant.apiKey);
      const response = await production.inject({
        method: 'PUT',
        url: `/v1/registers/${setup.registerId}/simulation`,
        headers: auth(tenant.apiKey, setup.merchantId),
        payload: { fiscal_device: 'unreachable' },
      });
      expectApiError(response, 404, 'not_found');
      const register = await t.database.prisma.register.findUniqueOrThrow({ where: { id: setup.registerId } });
      expect(register.deviceSimulation).toBe('ok');
    } finally {
      await production.close();
    }
  });
});
