// Austria (issue 15): a Style O refund of a sale on an AUT register signs an RKSV Standardbeleg
// with negative amounts when completed; its `fiscal` block is the RKSV variant, and the canonical
// receipt carries the same block. Every receipt verifies with the independent verifier.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenantWithKey, createTestApp, json, type TestApp } from '../support/testApp.js';
import { mustComplete, mustCreate, simulate, type OperationsFixture } from '../support/operations.js';
import { autLine, autRegisterWithSession, depOf } from '../support/rksv.js';
import { getReceipt, mustCompleteRefund, mustRefund, organizationKey, orgAuth } from '../support/styleO.js';
import { verifyDep, verifyReceiptQr } from '../fiscal/independentRksv.js';
import { runFiscalRetryPass } from '../../src/modules/refunds/fiscalRetry.js';

let t: TestApp;
let fx: OperationsFixture & { register: any };
let headers: Record<string, string>; // Style O, organization key

beforeAll(async () => {
  t = await createTestApp();
  const tenant = await createTenantWithKey(t.database, 'AUT');
  fx = await autRegisterWithSession(t.app, tenant.apiKey);
  headers = orgAuth(await organizationKey(t.database, tenant.tenantId, fx.merchantId));
});
afterAll(() => t.close());

/** A completed Style M sale on the register: 6,40 at 20 % and 2 × 4,90 at 10 %. */
async function autSale() {
  const created = await mustCreate(t.app, fx.headers, {
    type: 'sale',
    source: 'POS',
    register_id: fx.registerId,
    currency: 'EUR',
    total_amount: '16.20',
    line_items: [autLine('Grüner Veltliner', '6.40', '0.20'), { ...autLine('Melange', '9.80', '0.10'), quantity: 2, unit_price: '4.90' }],
  });
  return mustComplete(t.app, fx.headers, created);
}

const cents = (amount: string) => Math.round(Number(amount) * 100);

/** The turnover counter in cents right after `sale` was signed. */
async function counterAfter(sale: any): Promise<bigint> {
  const { aesKey } = await depOf(t.database, fx.registerId);
  return verifyReceiptQr(sale.fiscal_information.verification.qr_data, sale.fiscal_information.public_key, aesKey).counterCents!;
}

/** The register's DEP verifies, and its last receipt is `jws` with the counter at `counterCents`. */
async function expectDepEndsWith(jws: string, counterCents: bigint) {
  const { dep, cryptoMaterial } = await depOf(t.database, fx.registerId);
  const verified = verifyDep(dep, cryptoMaterial, { counterBytes: 8 });
  expect(verified.errors).toEqual([]);
  expect(dep['Belege-Gruppe'][0]!['Belege-kompakt'].at(-1)).toBe(jws);
  expect(verified.receipts.at(-1)!.counterCents).toBe(counterCents);
}

describe('a Style O refund on an Austrian register', () => {
  it('signs a Standardbeleg with negative amounts; fiscal is the RKSV block, and the canonical receipt carries it', async () => {
    const sale = await autSale();
    const counterBefore = await counterAfter(sale);

    const refund = await mustRefund(t.app, headers, fx.registerId, { original_operation_id: sale.id, reason: 'Reklamation' });
    expect(refund).toMatchObject({ state: 'open', fiscal_state: 'pending', fiscal: null });
    const done = await mustCompleteRefund(t.app, headers, refund.id);
    expect(done).toMatchObject({ state: 'completed', fiscal_state: 'succeeded' });

    const fiscal = done.fiscal;
    expect(fiscal).toMatchObject({
      regime: 'RKSV',
      document_type: 'standard',
      document_number: String(Number(sale.fiscal_information.document_number) + 1),
      transmission_status: 'succeeded',
      cash_register_id: fx.register.fiscalization.client_id,
      client_id: fx.register.fiscalization.client_id,
      suite: 'R1-AT0',
      signature_device_id: fx.register.fiscalization.tse_serial,
      tse_serial: fx.register.fiscalization.tse_serial,
      fiscal_unit_id: fx.register.fiscalization.tse_serial,
      signature_algorithm: 'ES256',
      signature_device_failed: false,
      amounts: { normal: '-6.40', reduced_1: '-9.80', reduced_2: '0.00', zero: '0.00', special: '0.00' },
      transmitted_at: fiscal.signed_at,
      verification: { url: null, qr_data: expect.any(String) },
      error: null,
    });
    expect(done.started_at).toBe(fiscal.signed_at);

    const { aesKey } = await depOf(t.database, fx.registerId);
    const check = verifyReceiptQr(fiscal.verification.qr_data, fiscal.public_key, aesKey, counterBefore - 1620n);
    expect(check.errors).toEqual([]);
    expect(check.fields!.amounts).toEqual(['-6,40', '-9,80', '0,00', '0,00', '0,00']);
    await expectDepEndsWith(fiscal.jws, counterBefore - 1620n);

    expect(json(await t.app.inject({ method: 'GET', url: `/v1/operations/${refund.id}`, headers }))).toEqual(done);
    const receipt = json(await getReceipt(t.app, headers, refund.id));
    expect(receipt.fiscal).toEqual(fiscal);
    expect(receipt.operation).toMatchObject({ type: 'refund', started_at: fiscal.signed_at });
    expect(receipt.notes).toEqual([]);
  });

  it('a partial refund signs only the refunded lines', async () => {
    const sale = await autSale();
    const saleView = json(await getReceipt(t.app, headers, sale.id));
    const melange = saleView.line_items.find((line: any) => line.description === 'Melange');
    const refund = await mustRefund(t.app, headers, fx.registerId, {
      original_operation_id: sale.id,
      refund_type: 'partial',
      line_items: [{ line_item_id: melange.id, quantity: 1 }],
    });
    const done = await mustCompleteRefund(t.app, headers, refund.id);
    expect(done.fiscal.amounts).toEqual({ normal: '0.00', reduced_1: '-4.90', reduced_2: '0.00', zero: '0.00', special: '0.00' });
    const total = Object.values(done.fiscal.amounts as Record<string, string>).reduce((sum, amount) => sum + cents(amount), 0);
    expect(total).toBe(-done.data.totals.total_gross);
    expect(json(await getReceipt(t.app, headers, refund.id)).fiscal).toEqual(done.fiscal);
  });

  it('with the signature device out, completes with the failure marker (fiscal_state succeeded) and a collective receipt follows', async () => {
    const sale = await autSale();
    const refund = await mustRefund(t.app, headers, fx.registerId, { original_operation_id: sale.id });
    await simulate(t.app, fx.headers, fx.registerId, 'reject_after_start');
    let done;
    try {
      done = await mustCompleteRefund(t.app, headers, refund.id);
    } finally {
      await simulate(t.app, fx.headers, fx.registerId, 'ok');
    }
    expect(done).toMatchObject({ state: 'completed', fiscal_state: 'succeeded' });
    expect(done.fiscal).toMatchObject({ regime: 'RKSV', transmission_status: 'succeeded', signature_device_failed: true, error: null });
    const { aesKey } = await depOf(t.database, fx.registerId);
    const check = verifyReceiptQr(done.fiscal.verification.qr_data, done.fiscal.public_key, aesKey);
    expect(check.errors).toEqual([]);
    expect(check.signatureFailed).toBe(true);
    expect(json(await getReceipt(t.app, headers, refund.id)).fiscal).toEqual(done.fiscal);

    const next = await autSale();
    expect(next.fiscal_information.signature_device_failed).toBe(false);
    expect(Number(next.fiscal_information.document_number)).toBe(Number(done.fiscal.document_number) + 2);
    const { dep, cryptoMaterial } = await depOf(t.database, fx.registerId);
    expect(verifyDep(dep, cryptoMaterial, { counterBytes: 8 }).errors).toEqual([]);
  });

  it('when the receipt chain cannot be reached, completes with fiscal_state failed in the RKSV variant, and the retry signs it', async () => {
    const sale = await autSale();
    const refund = await mustRefund(t.app, headers, fx.registerId, { original_operation_id: sale.id });
    const setChain = (status: string) =>
      t.database.sql.query('UPDATE rksv_cash_registers SET status = $2 WHERE register_id = $1', [fx.registerId, status]);
    await setChain('closed');
    let failed;
    try {
      failed = await mustCompleteRefund(t.app, headers, refund.id);
    } finally {
      await setChain('active');
    }
    expect(failed).toMatchObject({ state: 'completed', fiscal_state: 'failed', started_at: null });
    expect(failed.fiscal).toMatchObject({
      regime: 'RKSV',
      suite: 'R1-AT0',
      document_type: 'standard',
      transmission_status: 'failed',
      document_number: null,
      cash_register_id: fx.register.fiscalization.client_id,
      client_id: fx.register.fiscalization.client_id,
      signature_device_id: fx.register.fiscalization.tse_serial,
      tse_serial: fx.register.fiscalization.tse_serial,
      signature_algorithm: 'ES256',
      jws: null,
      amounts: null,
      verification: null,
      error: { phase: 1, reason: 'inactive', attempts: 1, next_attempt_at: expect.any(String) },
    });
    const receipt = json(await getReceipt(t.app, headers, refund.id));
    expect(receipt.fiscal).toEqual(failed.fiscal);
    expect(receipt.notes).toEqual([expect.objectContaining({ type: 'fiscal', text: expect.stringMatching(/^Sicherheitseinrichtung ausgefallen/) })]);

    const pass = await runFiscalRetryPass(t.app.ctx, { now: new Date(Date.now() + 3_600_000) });
    expect(pass.succeeded).toContain(refund.id);
    const signed = json(await t.app.inject({ method: 'GET', url: `/v1/operations/${refund.id}`, headers }));
    expect(signed).toMatchObject({ fiscal_state: 'succeeded', fiscal: { regime: 'RKSV', transmission_status: 'succeeded', error: null } });
    expect(signed.fiscal.amounts).toEqual({ normal: '-6.40', reduced_1: '-9.80', reduced_2: '0.00', zero: '0.00', special: '0.00' });
    await expectDepEndsWith(signed.fiscal.jws, (await counterAfter(sale)) - 1620n);
    expect(json(await getReceipt(t.app, headers, refund.id))).toMatchObject({ version: 2, fiscal: signed.fiscal, notes: [] });
  });
});
