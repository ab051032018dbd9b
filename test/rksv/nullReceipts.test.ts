// Austria (issue 15 point 7): POST /v1/registers/{id}/null-receipts signs a null, monthly,
// annual or closing receipt on an RKSV register; GET lists the register's null receipts
// (the start receipt included); a closing receipt takes the register out of service, after
// which it takes no further operations or receipts, whatever the regime (409).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenantWithKey, createTestApp, json, type TestApp } from '../support/testApp.js';
import { completeOp, createOperation, expectApiError, fiscalizedRegisterWithSession, sessionEvent } from '../support/operations.js';
import { autLine, autRegisterWithSession, autSetup, depOf } from '../support/rksv.js';
import { autSale, journalTypes, listNullReceipts, openAutSale, postNullReceipt } from '../support/rksvJournal.js';
import { decodeCompactJws, verifyDep, verifyReceiptQr } from '../fiscal/independentRksv.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

let t: TestApp;
let apiKey: string;
// A March day in Vienna: a monthly receipt closes March, an annual one is refused.
let now = new Date('2026-03-10T10:00:00Z');

beforeAll(async () => {
  t = await createTestApp({}, { clock: () => now });
  apiKey = (await createTenantWithKey(t.database, 'AUT')).apiKey;
});
afterAll(() => t.close());

describe('POST /v1/registers/{id}/null-receipts', () => {
  it('signs a null receipt that verifies, journaled after the start receipt, and lists both', async () => {
    const fx = await autRegisterWithSession(t.app, apiKey);
    const response = await postNullReceipt(t.app, fx.headers, fx.registerId, 'null');
    expect(response.statusCode).toBe(201);
    const receipt = json(response);
    expect(receipt).toEqual({
      id: expect.stringMatching(/^rkb_/),
      register_id: fx.registerId,
      type: 'null',
      document_number: '2',
      signed_at: expect.stringMatching(ISO),
      jws: expect.any(String),
      verification: { qr_data: expect.any(String) },
      signature_device_failed: false,
    });
    const decoded = decodeCompactJws(receipt.jws);
    expect(decoded.fields.amounts).toEqual(['0,00', '0,00', '0,00', '0,00', '0,00']);
    const { aesKey, dep, cryptoMaterial } = await depOf(t.database, fx.registerId);
    const rksv = fx.register.fiscalization.rksv;
    expect(verifyReceiptQr(receipt.verification.qr_data, rksv.public_key, aesKey, 0n).errors).toEqual([]);

    await autSale(t.app, fx);
    const listed = await listNullReceipts(t.app, fx.headers, fx.registerId);
    expect(listed.map((entry) => [entry.type, entry.document_number])).toEqual([
      ['start', '1'],
      ['null', '2'],
    ]);
    expect(listed[0]).toMatchObject({ jws: rksv.start_receipt.jws, verification: { qr_data: rksv.start_receipt.qr_data }, signature_device_failed: false });
    expect(listed[1]).toEqual(receipt);
    expect(verifyDep(dep, cryptoMaterial, { counterBytes: 8 }).errors).toEqual([]);
  });

  it('requires an Idempotency-Key; a retry replays the receipt, another type under the key is 409', async () => {
    const fx = await autRegisterWithSession(t.app, apiKey);
    const missing = await t.app.inject({ method: 'POST', url: `/v1/registers/${fx.registerId}/null-receipts`, headers: fx.headers, payload: { type: 'null' } });
    expect(expectApiError(missing, 400, 'invalid_request').details).toMatchObject({ header: 'Idempotency-Key' });

    const first = await postNullReceipt(t.app, fx.headers, fx.registerId, 'null', 'null-receipt-once');
    const again = await postNullReceipt(t.app, fx.headers, fx.registerId, 'null', 'null-receipt-once');
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(json(again)).toEqual(json(first));
    expectApiError(await postNullReceipt(t.app, fx.headers, fx.registerId, 'monthly', 'null-receipt-once'), 409, 'idempotency_key_conflict');
    expect(await journalTypes(t.database, fx.registerId)).toEqual(['start', 'null']);
  });

  it('closes the current month with a monthly receipt, December with the annual one; the other type is 422 naming type', async () => {
    const fx = await autRegisterWithSession(t.app, apiKey);
    const annualInMarch = expectApiError(await postNullReceipt(t.app, fx.headers, fx.registerId, 'annual'), 422, 'regime_validation_failed');
    expect(annualInMarch.details).toMatchObject({ field: 'type', regime: 'RKSV' });
    expect(json(await postNullReceipt(t.app, fx.headers, fx.registerId, 'monthly'))).toMatchObject({ type: 'monthly', document_number: '2' });

    const march = now;
    try {
      now = new Date('2026-12-31T12:00:00Z');
      // March is closed: no automatic receipt comes before these.
      const monthlyInDecember = expectApiError(await postNullReceipt(t.app, fx.headers, fx.registerId, 'monthly'), 422, 'regime_validation_failed');
      expect(monthlyInDecember.details.field).toBe('type');
      expect(json(await postNullReceipt(t.app, fx.headers, fx.registerId, 'annual'))).toMatchObject({ type: 'annual', document_number: '3' });
    } finally {
      now = march;
    }
    expect(await journalTypes(t.database, fx.registerId)).toEqual(['start', 'monthly', 'annual']);
    const { dep, cryptoMaterial } = await depOf(t.database, fx.registerId);
    expect(verifyDep(dep, cryptoMaterial, { counterBytes: 8 }).errors).toEqual([]);
  });

  it('is 422 on a register of another regime or one not fiscalized, 404 on an unknown one, 400 on an unknown type', async () => {
    const deuKey = (await createTenantWithKey(t.database, 'DEU')).apiKey;
    const deu = await fiscalizedRegisterWithSession(t.app, deuKey);
    const otherRegime = expectApiError(await postNullReceipt(t.app, deu.headers, deu.registerId, 'null'), 422, 'validation_error');
    expect(otherRegime.details).toMatchObject({ field: 'register_id', regime: 'KassenSichV' });
    expect(await listNullReceipts(t.app, deu.headers, deu.registerId)).toEqual([]);

    const unfiscalized = await autSetup(t.app, apiKey);
    const notFiscalized = expectApiError(await postNullReceipt(t.app, unfiscalized.headers, unfiscalized.registerId, 'null'), 422, 'validation_error');
    expect(notFiscalized.details).toMatchObject({ field: 'register_id', fiscalization_status: 'not_fiscalized' });
    expect(await listNullReceipts(t.app, unfiscalized.headers, unfiscalized.registerId)).toEqual([]);

    expectApiError(await postNullReceipt(t.app, unfiscalized.headers, 'reg_unknown', 'null'), 404, 'not_found');
    expectApiError(await t.app.inject({ method: 'GET', url: '/v1/registers/reg_unknown/null-receipts', headers: unfiscalized.headers }), 404, 'not_found');
    expectApiError(await postNullReceipt(t.app, unfiscalized.headers, unfiscalized.registerId, 'start'), 400, 'invalid_request');
  });
});

describe('the closing receipt', () => {
  it('takes the register out of service: decommissioned and inactive; later operations and receipts are 409', async () => {
    const fx = await autRegisterWithSession(t.app, apiKey);
    await autSale(t.app, fx);
    const open = await openAutSale(t.app, fx, '3.50');
    const response = await postNullReceipt(t.app, fx.headers, fx.registerId, 'closing');
    expect(response.statusCode).toBe(201);
    const closing = json(response);
    expect(closing).toMatchObject({ type: 'closing', document_number: '3', signature_device_failed: false });

    const register = json(await t.app.inject({ method: 'GET', url: `/v1/registers/${fx.registerId}`, headers: fx.headers }));
    expect(register).toMatchObject({ fiscalization_status: 'decommissioned', status: 'inactive', decommissionedAt: closing.signed_at });
    expect(register.resource_version).toBe(fx.register.resource_version + 1);

    const refused = [
      await postNullReceipt(t.app, fx.headers, fx.registerId, 'null'),
      await postNullReceipt(t.app, fx.headers, fx.registerId, 'closing'),
      await createOperation(t.app, fx.headers, {
        type: 'sale',
        source: 'POS',
        register_id: fx.registerId,
        currency: 'EUR',
        total_amount: '2.00',
        line_items: [autLine('Semmel', '2.00', '0.10')],
      }),
      await sessionEvent(t.app, fx.headers, fx.registerId, 'session_open'),
      await t.app.inject({ method: 'POST', url: `/v1/registers/${fx.registerId}/decommission`, headers: fx.headers }),
    ];
    for (const answer of refused) expectApiError(answer, 409, 'register_invalid_fiscal_state');
    // An operation recorded before cannot complete: the register lacks an active fiscal device (contract 7, 422).
    expect(expectApiError(await completeOp(t.app, fx.headers, open), 422, 'validation_error').details).toMatchObject({ field: 'register_id' });
    expect(json(await t.app.inject({ method: 'GET', url: `/v1/operations/${open.id}`, headers: fx.headers }))).toMatchObject({ status: 'open', fiscal_information: null });
    expectApiError(await t.app.inject({ method: 'POST', url: `/v1/registers/${fx.registerId}/fiscalize`, headers: fx.headers }), 409, 'register_already_fiscalized');

    // The drawer of the session still open can be settled.
    expect((await sessionEvent(t.app, fx.headers, fx.registerId, 'session_cash_count', { counted_closing_amount: '112.00' })).statusCode).toBe(201);
    expect((await sessionEvent(t.app, fx.headers, fx.registerId, 'session_close')).statusCode).toBe(201);

    expect(await journalTypes(t.database, fx.registerId)).toEqual(['start', 'standard', 'closing']);
    const [cashBox] = await t.database.sql.query<{ status: string }>('SELECT status FROM rksv_cash_registers WHERE register_id = $1', [fx.registerId]);
    expect(cashBox!.status).toBe('closed');
    const { dep, cryptoMaterial } = await depOf(t.database, fx.registerId);
    expect(verifyDep(dep, cryptoMaterial, { counterBytes: 8 }).errors).toEqual([]);
    expect((await listNullReceipts(t.app, fx.headers, fx.registerId)).at(-1)).toEqual(closing);
  });
});
