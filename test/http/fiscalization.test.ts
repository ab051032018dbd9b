// POST /v1/registers/{id}/fiscalize and /decommission (contract 2.3, 3.3, 4.1, 7).
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, createTenantWithKey, createTestApp, DEU_ADDRESS, deuMerchantBody, json, type TestApp } from '../support/testApp.js';
import {
  completeOp,
  createOperation,
  decommission,
  expectApiError,
  fiscalize,
  getOp,
  mustCreate,
  plainRegister,
  saleBody,
} from '../support/operations.js';

let t: TestApp;
let apiKey: string;

beforeAll(async () => {
  t = await createTestApp();
  apiKey = (await createTenantWithKey(t.database, 'DEU')).apiKey;
});
afterAll(() => t.close());

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** A merchant (optionally without fiscal identities) with a location at `address` and one register. */
async function registerAt(address: object, merchantOverrides: Record<string, unknown> = {}) {
  const merchant = json(await t.app.inject({ method: 'POST', url: '/v1/merchants', headers: auth(apiKey), payload: deuMerchantBody(merchantOverrides) }));
  const headers = auth(apiKey, merchant.id);
  const location = json(await t.app.inject({ method: 'POST', url: '/v1/locations', headers, payload: { name: 'Filiale', address } }));
  const register = json(await t.app.inject({ method: 'POST', url: '/v1/registers', headers, payload: { location_id: location.id, name: 'Kasse' } }));
  expect(register.fiscalization_status).toBe('not_fiscalized');
  return { headers, registerId: register.id as string };
}

describe('fiscalize', () => {
  it('provisions a software TSE and a client for a German register', async () => {
    const fx = await plainRegister(t.app, apiKey);
    const before = Date.now();
    const response = await fiscalize(t.app, fx.headers, fx.registerId);
    expect(response.statusCode).toBe(200);
    const register = json(response);
    expect(register).toMatchObject({ id: fx.registerId, fiscalization_status: 'fiscalized' });
    expect(register.fiscalization).toEqual({
      regime: 'KassenSichV',
      fiscalized_at: expect.stringMatching(ISO),
      tse_serial: expect.stringMatching(/^[0-9a-f]{64}$/),
      client_id: expect.stringMatching(/^[A-Za-z0-9 '()+,\-./:=?]+$/),
      tse: { driver: 'software', serial: expect.stringMatching(/^[0-9a-f]{64}$/), signature_algorithm: 'ecdsa-plain-SHA256' },
    });
    expect(register.fiscalization.tse.serial).toBe(register.fiscalization.tse_serial);
    expect(Date.parse(register.fiscalization.fiscalized_at)).toBeGreaterThanOrEqual(before - 1000);

    // The serial is SHA-256 of the TSE's uncompressed public point.
    const device = await t.database.prisma.tseDevice.findUniqueOrThrow({ where: { serialNumber: register.fiscalization.tse_serial } });
    expect(device.status).toBe('active');
    const point = Buffer.from(device.publicKey, 'base64');
    expect(point[0]).toBe(0x04);
    expect(createHash('sha256').update(point).digest('hex')).toBe(register.fiscalization.tse_serial);

    const read = json(await t.app.inject({ method: 'GET', url: `/v1/registers/${fx.registerId}`, headers: fx.headers }));
    expect(read.fiscalization).toEqual(register.fiscalization);
    expect(read.fiscalization_status).toBe('fiscalized');
  });

  it('gives each register its own TSE and client', async () => {
    const a = await plainRegister(t.app, apiKey);
    const b = await plainRegister(t.app, apiKey);
    const fa = json(await fiscalize(t.app, a.headers, a.registerId)).fiscalization;
    const fb = json(await fiscalize(t.app, b.headers, b.registerId)).fiscalization;
    expect(fa.tse_serial).not.toBe(fb.tse_serial);
    expect(fa.client_id).not.toBe(fb.client_id);
  });

  it('is 409 register_already_fiscalized when the register is already fiscalized', async () => {
    const fx = await plainRegister(t.app, apiKey);
    const first = json(await fiscalize(t.app, fx.headers, fx.registerId));
    const error = expectApiError(await fiscalize(t.app, fx.headers, fx.registerId), 409, 'register_already_fiscalized');
    expect(error.details.alias).toBe('fiscalization_conflict');
    const read = json(await t.app.inject({ method: 'GET', url: `/v1/registers/${fx.registerId}`, headers: fx.headers }));
    expect(read.fiscalization).toEqual(first.fiscalization);
  });

  it('is 422 validation_error when the merchant has no DEU fiscal identity', async () => {
    const fx = await registerAt(DEU_ADDRESS, { fiscal_identities: [] });
    const error = expectApiError(await fiscalize(t.app, fx.headers, fx.registerId), 422, 'validation_error');
    expect(error.details.field).toBe('fiscal_identities');
    const read = json(await t.app.inject({ method: 'GET', url: `/v1/registers/${fx.registerId}`, headers: fx.headers }));
    expect(read).toMatchObject({ fiscalization_status: 'not_fiscalized', fiscalization: null });
  });

  it('is 422 validation_error when the location is in a country without a built regime', async () => {
    const fx = await registerAt({ line1: 'Rue de Rivoli 1', city: 'Paris', postal_code: '75001', country_code: 'FRA' });
    const error = expectApiError(await fiscalize(t.app, fx.headers, fx.registerId), 422, 'validation_error');
    expect(error.details.field).toBe('location_id');
    const register = await t.database.prisma.register.findUniqueOrThrow({ where: { id: fx.registerId } });
    expect(register.deviceId).toBeNull();
  });

  it('is 404 for an unknown register or one of another merchant', async () => {
    const fx = await plainRegister(t.app, apiKey);
    const other = await plainRegister(t.app, apiKey);
    expectApiError(await fiscalize(t.app, fx.headers, 'reg_unknown'), 404, 'not_found');
    expectApiError(await fiscalize(t.app, other.headers, fx.registerId), 404, 'not_found');
    expectApiError(await decommission(t.app, other.headers, fx.registerId), 404, 'not_found');
  });
});

describe('decommission', () => {
  it('is 409 register_invalid_fiscal_state for a register never fiscalized', async () => {
    const fx = await plainRegister(t.app, apiKey);
    const error = expectApiError(await decommission(t.app, fx.headers, fx.registerId), 409, 'register_invalid_fiscal_state');
    expect(error.details.alias).toBe('decommission_conflict');
  });

  it('moves fiscalized to decommissioned with decommissionedAt; again is 409; fiscalize again is 409', async () => {
    const fx = await plainRegister(t.app, apiKey);
    const fiscalized = json(await fiscalize(t.app, fx.headers, fx.registerId));
    const response = await decommission(t.app, fx.headers, fx.registerId);
    expect(response.statusCode).toBe(200);
    const register = json(response);
    expect(register).toMatchObject({ id: fx.registerId, fiscalization_status: 'decommissioned' });
    expect(register.decommissionedAt).toMatch(ISO);
    expect(register.fiscalization).toEqual(fiscalized.fiscalization);
    const device = await t.database.prisma.tseDevice.findUniqueOrThrow({ where: { serialNumber: fiscalized.fiscalization.tse_serial } });
    expect(device.status).toBe('decommissioned');

    expectApiError(await decommission(t.app, fx.headers, fx.registerId), 409, 'register_invalid_fiscal_state');
    expectApiError(await fiscalize(t.app, fx.headers, fx.registerId), 409, 'register_already_fiscalized');
    const read = json(await t.app.inject({ method: 'GET', url: `/v1/registers/${fx.registerId}`, headers: fx.headers }));
    expect(read).toMatchObject({ fiscalization_status: 'decommissioned', decommissionedAt: register.decommissionedAt });
  });
});

describe('complete needs a fiscalized register (contract 7, 422 on fiscal calls)', () => {
  const pay = [{ payment_id: 'p1', method: 'cash', amount: '11.90', currency: 'EUR', status: 'captured' }];

  it('a POS operation on a register that is not fiscalized cannot complete (422), and stays open', async () => {
    const fx = await plainRegister(t.app, apiKey);
    await mustCreate(t.app, fx.headers, { type: 'session_open', register_id: fx.registerId });
    const sale = await mustCreate(t.app, fx.headers, saleBody(fx.registerId));
    const error = expectApiError(await completeOp(t.app, fx.headers, sale, pay), 422, 'validation_error');
    expect(error.details).toMatchObject({ field: 'register_id', fiscalization_status: 'not_fiscalized' });
    expect(json(await getOp(t.app, fx.headers, sale.id))).toMatchObject({ status: 'open', resource_version: 1, fiscal_information: null, receipt_id: null });
  });

  it('a decommissioned register takes no further goods movement: complete is 422 (contract 7), create 409 register_invalid_fiscal_state', async () => {
    const fx = await plainRegister(t.app, apiKey);
    expect((await fiscalize(t.app, fx.headers, fx.registerId)).statusCode).toBe(200);
    await mustCreate(t.app, fx.headers, { type: 'session_open', register_id: fx.registerId });
    const sale = await mustCreate(t.app, fx.headers, saleBody(fx.registerId));
    expect((await decommission(t.app, fx.headers, fx.registerId)).statusCode).toBe(200);
    const error = expectApiError(await completeOp(t.app, fx.headers, sale, pay), 422, 'validation_error');
    expect(error.details).toMatchObject({ field: 'register_id', register_id: fx.registerId, fiscalization_status: 'decommissioned' });
    expect(json(await getOp(t.app, fx.headers, sale.id)).status).toBe('open');
    expectApiError(await createOperation(t.app, fx.headers, saleBody(fx.registerId)), 409, 'register_invalid_fiscal_state');
  });

  it('an ONLINE goods movement completes without signing', async () => {
    const fx = await plainRegister(t.app, apiKey);
    const sale = await mustCreate(t.app, fx.headers, saleBody(null));
    const response = await completeOp(t.app, fx.headers, sale, pay);
    expect(response.statusCode).toBe(200);
    expect(json(response)).toMatchObject({ status: 'completed', fiscal_information: null, receipt_id: expect.any(String) });
  });
});
