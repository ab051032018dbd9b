// Style M registers (contract 2.3): create, list ({data}), get, update with ETag / If-Match, and
// delete, which is 409 register_has_dependencies once the register has operations or is fiscalized.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.js';
import { auth, createDeuSetup, createTenantWithKey, createTestApp, DEU_ADDRESS, expectError, json, type TestApp } from '../support/testApp.js';

let t: TestApp;
let key: string;
let setup: { merchantId: string; locationId: string; registerId: string };
let h: Record<string, string>;

beforeAll(async () => {
  t = await createTestApp();
  key = (await createTenantWithKey(t.database)).apiKey;
  setup = await createDeuSetup(t.app, key);
  h = auth(key, setup.merchantId);
});
afterAll(() => t.close());

const createRegister = (payload: object = { location_id: setup.locationId, name: 'Kasse' }) =>
  t.app.inject({ method: 'POST', url: '/v1/registers', headers: h, payload });
const getRegister = (id: string) => t.app.inject({ method: 'GET', url: `/v1/registers/${id}`, headers: h });
const patchRegister = (id: string, payload: object, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'PATCH', url: `/v1/registers/${id}`, headers: { ...h, ...headers }, payload });
const deleteRegister = (id: string) => t.app.inject({ method: 'DELETE', url: `/v1/registers/${id}`, headers: h });

describe('registers', () => {
  it('create: 201, not_fiscalized, ETag "1"', async () => {
    const response = await createRegister({ location_id: setup.locationId, name: 'Kasse 2', external_id: 'pos-2' });
    expect(response.statusCode).toBe(201);
    expect(response.headers.etag).toBe('"1"');
    const register = json(response);
    expect(register).toMatchObject({
      id: expect.stringMatching(/^reg_/),
      merchant_id: setup.merchantId,
      location_id: setup.locationId,
      name: 'Kasse 2',
      status: 'active',
      fiscalization_status: 'not_fiscalized',
      fiscalization: null,
      external_id: 'pos-2',
      resource_version: 1,
    });
    expect(register.created_at).toBe(new Date(register.created_at).toISOString());
  });

  it('create validates the body and the location', async () => {
    expect(expectError(await createRegister({ name: 'x' }), 400, 'invalid_request').details?.field).toBe('location_id');
    expect(expectError(await createRegister({ location_id: setup.locationId }), 400, 'invalid_request').details?.field).toBe('name');
    expect(expectError(await createRegister({ location_id: setup.locationId, name: 'x', status: 'active' }), 400, 'invalid_request').details?.field).toBe(
      'status',
    );
    expectError(await createRegister({ location_id: 'loc_doesnotexist', name: 'x' }), 404, 'not_found');
  });

  it('list wraps the registers in data; get one has the ETag', async () => {
    const list = await t.app.inject({ method: 'GET', url: '/v1/registers', headers: h });
    expect(list.statusCode).toBe(200);
    const body = json(list);
    expect(Object.keys(body)).toEqual(['data']);
    expect(body.data.map((r: { id: string }) => r.id)).toContain(setup.registerId);
    const one = await getRegister(setup.registerId);
    expect(one.statusCode).toBe(200);
    expect(one.headers.etag).toBe('"1"');
    expect(body.data.find((r: { id: string }) => r.id === setup.registerId)).toEqual(json(one));
    expectError(await getRegister('reg_doesnotexist'), 404, 'not_found');
  });

  it('update: name, status, external_id; ETag and resource_version', async () => {
    const register = json(await createRegister());
    const renamed = await patchRegister(register.id, { name: 'Kasse Theke' }, { 'if-match': '"1"' });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.headers.etag).toBe('"2"');
    expect(json(renamed)).toMatchObject({ name: 'Kasse Theke', status: 'active', resource_version: 2 });
    const inactive = json(await patchRegister(register.id, { status: 'inactive', external_id: 'pos-9' }));
    expect(inactive).toMatchObject({ name: 'Kasse Theke', status: 'inactive', external_id: 'pos-9', resource_version: 3 });
    expect((await getRegister(register.id)).headers.etag).toBe('"3"');
    expectError(await patchRegister(register.id, { status: 'fiscalized' }), 400, 'invalid_request');
    expectError(await patchRegister(register.id, { fiscalization_status: 'fiscalized' }), 400, 'invalid_request');
    expectError(await patchRegister(register.id, { location_id: setup.locationId }), 400, 'invalid_request');
    expectError(await patchRegister('reg_doesnotexist', { name: 'x' }), 404, 'not_found');
  });

  it('If-Match: malformed 400, stale 412 with both versions', async () => {
    const register = json(await createRegister());
    expect(expectError(await patchRegister(register.id, { name: 'x' }, { 'if-match': 'one' }), 400, 'invalid_request').details?.header).toBe('If-Match');
    await patchRegister(register.id, { name: 'v2' });
    await patchRegister(register.id, { name: 'v3' });
    const stale = expectError(await patchRegister(register.id, { name: 'v4' }, { 'if-match': '"2"' }), 412, 'precondition_failed');
    expect(stale).toMatchObject({ retryable: true, details: { expected_resource_version: 2, current_resource_version: 3 } });
    expect(json(await getRegister(register.id)).name).toBe('v3');
  });

  describe('delete', () => {
    it('a register without operations that was never fiscalized: 200, then gone', async () => {
      const register = json(await createRegister());
      const deleted = await deleteRegister(register.id);
      expect(deleted.statusCode).toBe(200);
      expect(json(deleted)).toEqual({ id: register.id, deleted: true });
      expectError(await getRegister(register.id), 404, 'not_found');
      expectError(await deleteRegister(register.id), 404, 'not_found');
    });

    it('409 register_has_dependencies once it has operations', async () => {
      const register = json(await createRegister());
      await t.database.prisma.operation.create({
        data: {
          id: newId('op'),
          merchantId: setup.merchantId,
          type: 'sale',
          source: 'POS',
          status: 'open',
          currency: 'EUR',
          registerId: register.id,
          locationId: setup.locationId,
        },
      });
      const body = expectError(await deleteRegister(register.id), 409, 'register_has_dependencies');
      expect(body.retryable).toBe(false);
      expect((await getRegister(register.id)).statusCode).toBe(200);
    });

    for (const status of ['fiscalized', 'decommissioned']) {
      it(`409 register_has_dependencies when ${status}`, async () => {
        const register = json(await createRegister());
        await t.database.prisma.register.update({
          where: { id: register.id },
          data: { fiscalizationStatus: status, regime: 'KassenSichV', fiscalizedAt: new Date(), clientId: 'client-1' },
        });
        expectError(await deleteRegister(register.id), 409, 'register_has_dependencies');
        const read = json(await getRegister(register.id));
        expect(read.fiscalization_status).toBe(status);
        expect(read.fiscalization).toMatchObject({ regime: 'KassenSichV', client_id: 'client-1' });
      });
    }

    it('an operation on another register does not block it', async () => {
      const register = json(await createRegister());
      const location = json(
        await t.app.inject({ method: 'POST', url: '/v1/locations', headers: h, payload: { name: 'Zweite', address: DEU_ADDRESS } }),
      );
      const other = json(await createRegister({ location_id: location.id, name: 'Andere' }));
      await t.database.prisma.operation.create({
        data: { id: newId('op'), merchantId: setup.merchantId, type: 'sale', source: 'POS', status: 'completed', currency: 'EUR', registerId: other.id },
      });
      expect((await deleteRegister(register.id)).statusCode).toBe(200);
    });
  });
});
