// A device that does not answer: each call is bounded by DEVICE_TIMEOUT_MS, so
// the completing transaction (and the locks it holds) ends at that bound.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withDeviceTimeout } from '../../src/fiscal/deviceErrors.js';
import { createTenantWithKey, createTestApp, json, type TestApp } from '../support/testApp.js';
import { completeOp, expectApiError, fiscalizedRegisterWithSession, mustCreate, saleBody, simulate, type OperationsFixture } from '../support/operations.js';

let t: TestApp;
let fx: OperationsFixture;

beforeAll(async () => {
  t = await createTestApp({ DEVICE_TIMEOUT_MS: '300' });
  const tenant = await createTenantWithKey(t.database, 'DEU');
  fx = await fiscalizedRegisterWithSession(t.app, tenant.apiKey);
});
afterAll(() => t.close());

describe('a hanging fiscal device', () => {
  it('withDeviceTimeout rejects with the phase once the bound passes', async () => {
    const hanging = new Promise<never>(() => undefined);
    await expect(withDeviceTimeout(2, 50, t.database.sql, () => hanging)).rejects.toMatchObject({ phase: 2, reason: 'timeout' });
  });

  it('answers 422 phase 1 within the timeout, leaves the sale open, and releases the register', async () => {
    const sale = await mustCreate(t.app, fx.headers, saleBody(fx.registerId));
    await simulate(t.app, fx.headers, fx.registerId, 'timeout');
    const started = Date.now();
    const failed = await completeOp(t.app, fx.headers, sale);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(expectApiError(failed, 422, 'validation_error').details).toMatchObject({ phase: 1, reason: 'timeout' });

    // Nothing stays locked: other work on the register goes on, and the sale completes once the device is back.
    await simulate(t.app, fx.headers, fx.registerId, 'ok');
    const other = await mustCreate(t.app, fx.headers, saleBody(fx.registerId));
    expect((await completeOp(t.app, fx.headers, other)).statusCode).toBe(200);
    const completed = await completeOp(t.app, fx.headers, sale);
    expect(completed.statusCode).toBe(200);
    expect(json(completed).fiscal_information.end_event.transaction_counter).toBe(2);
  });
});
