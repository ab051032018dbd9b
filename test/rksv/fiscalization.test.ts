// Austria (issue 15): fiscalizing an AUT register provisions its signature unit and signs the
// start receipt; completing a sale signs a Standardbeleg; every receipt verifies with the
// independent verifier (test/fiscal/independentRksv.ts), which shares no code with the signer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenantWithKey, createTestApp, json, type TestApp } from '../support/testApp.js';
import { completeOp, createOperation, expectApiError } from '../support/operations.js';
import { AUT_UID, autLine, autRegisterWithSession, autSetup, depOf } from '../support/rksv.js';
import { aesKeyCheckValue, chainValue, decodeCompactJws, verifyDep, verifyReceiptQr } from '../fiscal/independentRksv.js';

let t: TestApp;
let apiKey: string;

beforeAll(async () => {
  t = await createTestApp();
  apiKey = (await createTenantWithKey(t.database, 'AUT')).apiKey;
});
afterAll(() => t.close());

describe('fiscalizing an Austrian register', () => {
  it('provisions the signature unit and signs the start receipt; fiscalization carries the rksv block', async () => {
    const fx = await autSetup(t.app, apiKey);
    const response = await t.app.inject({ method: 'POST', url: `/v1/registers/${fx.registerId}/fiscalize`, headers: fx.headers });
    expect(response.statusCode).toBe(200);
    const register = json(response);
    expect(register.fiscalization_status).toBe('fiscalized');
    const { fiscalization } = register;
    expect(fiscalization).toMatchObject({ regime: 'RKSV', tse_serial: expect.stringMatching(new RegExp(`^U:${AUT_UID}-[0-9A-F]+$`)) });
    expect(fiscalization.client_id).toMatch(/^[^_]+$/);
    expect(fiscalization.rksv).toMatchObject({
      cash_register_id: fiscalization.client_id,
      suite: 'R1-AT0',
      signature_device_id: fiscalization.tse_serial,
      turnover_counter_size: 8,
      start_receipt: { receipt_number: '1' },
    });
    const start = decodeCompactJws(fiscalization.rksv.start_receipt.jws);
    expect(start.fields.chainValue).toBe(chainValue(fiscalization.client_id));
    expect(start.fields.amounts).toEqual(['0,00', '0,00', '0,00', '0,00', '0,00']);

    const { aesKey, dep, cryptoMaterial } = await depOf(t.database, fx.registerId);
    expect(fiscalization.rksv.aes_key_check_value).toBe(aesKeyCheckValue(aesKey));
    expect(fiscalization.rksv.public_key).toBe(cryptoMaterial.certificateOrPublicKeyMap[fiscalization.tse_serial].signatureCertificateOrPublicKey);
    const verified = verifyDep(dep, cryptoMaterial, { counterBytes: 8 });
    expect(verified.errors).toEqual([]);
    expect(verified.receipts.map((receipt) => receipt.kind)).toEqual(['start']);

    expectApiError(await t.app.inject({ method: 'POST', url: `/v1/registers/${fx.registerId}/fiscalize`, headers: fx.headers }), 409, 'register_already_fiscalized');
  });

  it('is 422 without an AUT fiscal identity, and decommission stays KassenSichV-only', async () => {
    const fx = await autSetup(t.app, apiKey);
    await t.app.inject({ method: 'PATCH', url: `/v1/merchants/${fx.merchantId}`, headers: { authorization: fx.headers.authorization }, payload: { fiscal_identities: [] } });
    const merchant = json(await t.app.inject({ method: 'GET', url: `/v1/merchants/${fx.merchantId}`, headers: { authorization: fx.headers.authorization } }));
    if (merchant.fiscal_identities.length === 0) {
      const error = expectApiError(await t.app.inject({ method: 'POST', url: `/v1/registers/${fx.registerId}/fiscalize`, headers: fx.headers }), 422, 'validation_error');
      expect(error.details.field).toBe('fiscal_identities');
    }
    const fiscalized = await autRegisterWithSession(t.app, apiKey);
    const error = expectApiError(
      await t.app.inject({ method: 'POST', url: `/v1/registers/${fiscalized.registerId}/decommission`, headers: fiscalized.headers }),
      422,
      'validation_error',
    );
    expect(error.message).toMatch(/KassenSichV/);
  });
});

describe('completing on an Austrian register', () => {
  it('signs a Standardbeleg: amounts per rate with discounts and tip spread, counter, chain, JWS and QR that verify', async () => {
    const fx = await autRegisterWithSession(t.app, apiKey);
    const lines = [autLine('Melange', '4.90', '0.10'), autLine('Sachertorte', '5.70', '0.10'), autLine('Wein', '6.40', '0.20'), autLine('Gutschein', '10.00', '0')];
    const created = await createOperation(t.app, fx.headers, {
      type: 'sale',
      source: 'POS',
      register_id: fx.registerId,
      currency: 'EUR',
      total_amount: '26.00',
      tip_amount: '1.00',
      line_items: lines,
      cart_level_discounts: [{ amount: '2.00', description: 'Stammgast' }],
    });
    expect(created.statusCode).toBe(201);
    const sale = json(created);
    const completed = await completeOp(t.app, fx.headers, sale);
    expect(completed.statusCode).toBe(200);
    const fiscal = json(completed).fiscal_information;
    expect(fiscal).toMatchObject({
      regime: 'RKSV',
      document_type: 'standard',
      document_number: '2',
      cash_register_id: fx.register.fiscalization.client_id,
      suite: 'R1-AT0',
      signature_device_failed: false,
    });
    const sum = Object.values(fiscal.amounts as Record<string, string>).reduce((total, amount) => total + Math.round(Number(amount) * 100), 0);
    expect(sum).toBe(2600);
    expect(fiscal.amounts.reduced_2).toBe('0.00');
    expect(fiscal.amounts.special).toBe('0.00');

    const { aesKey, dep, cryptoMaterial } = await depOf(t.database, fx.registerId);
    const verified = verifyDep(dep, cryptoMaterial, { counterBytes: 8 });
    expect(verified.errors).toEqual([]);
    expect(verified.receipts.at(-1)!.counterCents).toBe(2600n);
    const qr = verifyReceiptQr(fiscal.verification.qr_data, fiscal.public_key, aesKey, 2600n);
    expect(qr.errors).toEqual([]);
    expect(fiscal.jws).toBe(dep['Belege-Gruppe'][0]!['Belege-kompakt'].at(-1));
  });

  it('refuses a line rate outside the five Austrian rates at create (422 regime_validation_failed naming the field)', async () => {
    const fx = await autRegisterWithSession(t.app, apiKey);
    const error = expectApiError(
      await createOperation(t.app, fx.headers, {
        type: 'sale',
        source: 'POS',
        register_id: fx.registerId,
        currency: 'EUR',
        total_amount: '11.90',
        line_items: [autLine('Brot', '11.90', '0.07')],
      }),
      422,
      'regime_validation_failed',
    );
    expect(error.details.field).toBe('line_items[0].taxes[0].rate');
  });
});
