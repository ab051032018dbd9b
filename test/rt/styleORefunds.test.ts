// Italy (issue 16 point 4): a Style O refund of a sale on an ITA register is a documento di reso
// naming the original; its `fiscal` block (and the canonical receipt's) is the RT variant; an RT
// that is out leaves the refund completed with fiscal_state failed until the retry issues it.
// DSFinV-K exports never cover an Italian register (point 9).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenantWithKey, createTestApp, json, type TestApp } from '../support/testApp.js';
import { completeOp, createOperation, expectApiError, simulate, type OperationsFixture } from '../support/operations.js';
import { itaLine, itaMovement, itaRegisterWithSession } from '../support/rt.js';
import { getReceipt, mustCompleteRefund, mustRefund, organizationKey, orgAuth } from '../support/styleO.js';
import { runFiscalRetryPass } from '../../src/modules/refunds/fiscalRetry.js';

let t: TestApp;
let fx: OperationsFixture & { register: any };
let headers: Record<string, string>;

beforeAll(async () => {
  t = await createTestApp();
  const tenant = await createTenantWithKey(t.database, 'ITA');
  fx = await itaRegisterWithSession(t.app, tenant.apiKey);
  headers = orgAuth(await organizationKey(t.database, tenant.tenantId, fx.merchantId));
});
afterAll(() => t.close());

async function itaSale() {
  const created = json(await createOperation(t.app, fx.headers, itaMovement(fx, 'sale', [itaLine('Borsa', '45.00', '0.22'), itaLine('Libro', '10.00', '0.04')])));
  return json(await completeOp(t.app, fx.headers, created, [{ method: 'credit_card', amount: '55.00' }]));
}

describe('a Style O refund on an Italian register', () => {
  it('is a documento di reso naming its original; fiscal and the canonical receipt carry the RT variant', async () => {
    const sale = await itaSale();
    const refund = await mustRefund(t.app, headers, fx.registerId, { original_operation_id: sale.id, reason: 'reso' });
    const done = await mustCompleteRefund(t.app, headers, refund.id);
    expect(done).toMatchObject({ state: 'completed', fiscal_state: 'succeeded' });
    expect(done.fiscal).toMatchObject({
      regime: 'RT',
      document_type: 'return',
      device_serial: fx.register.fiscalization.rt.serial,
      referenced_document: {
        document_number: sale.fiscal_information.document_number,
        device_serial: sale.fiscal_information.device_serial,
        issued_at: sale.fiscal_information.issued_at,
      },
      transmission_status: 'succeeded',
      error: null,
    });
    expect(json(await getReceipt(t.app, headers, refund.id)).fiscal).toEqual(done.fiscal);
  });

  it('is completed with fiscal_state failed while the RT is out, and issued by the retry', async () => {
    const sale = await itaSale();
    const refund = await mustRefund(t.app, headers, fx.registerId, { original_operation_id: sale.id, reason: 'reso' });
    await simulate(t.app, fx.headers, fx.registerId, 'unreachable');
    const failed = await mustCompleteRefund(t.app, headers, refund.id);
    expect(failed).toMatchObject({ state: 'completed', fiscal_state: 'failed', fiscal: { regime: 'RT', transmission_status: 'failed', document_number: null } });
    await simulate(t.app, fx.headers, fx.registerId, 'ok');
    await runFiscalRetryPass(t.app.ctx, { now: new Date(Date.now() + 3_600_000) });
    const read = json(await t.app.inject({ method: 'GET', url: `/v1/operations/${refund.id}`, headers }));
    expect(read).toMatchObject({ fiscal_state: 'succeeded', fiscal: { regime: 'RT', document_type: 'return' } });
  });
});

describe('DSFinV-K exports and Italian registers', () => {
  it('refuses a dsfinvk export naming an Italian register (422 naming register_id)', async () => {
    const error = expectApiError(
      await t.app.inject({ method: 'POST', url: '/v1/exports', headers: fx.headers, payload: { type: 'dsfinvk', register_id: fx.registerId, from: '2026-01-01T00:00:00Z', to: '2026-12-31T00:00:00Z' } }),
      422,
      'validation_error',
    );
    expect(error.details.field).toBe('register_id');
  });
});
