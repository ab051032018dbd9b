// Contract 2.1 FiscalIdentity, a union on country_code: every rule per country. Shape errors are
// 400 invalid_request, format violations 422 regime_validation_failed; both name the field.
// Italian portal secrets are never returned in clear.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox } from '../../src/lib/secretBox.js';
import { createApiKey } from '../../src/modules/admin/service.js';
import { auth, createTenantWithKey, createTestApp, deuMerchantBody, expectError, json, TEST_SECRETS_KEY, type TestApp } from '../support/testApp.js';

let t: TestApp;
let deuKey: string;
let autKey: string;
let itaKey: string;

beforeAll(async () => {
  t = await createTestApp();
  const tenant = await createTenantWithKey(t.database, 'DEU');
  deuKey = tenant.apiKey;
  autKey = (await createApiKey(t.database.prisma, tenant.tenantId, 'test', { kind: 'tenant', country_code: 'AUT' })).apiKey;
  itaKey = (await createApiKey(t.database.prisma, tenant.tenantId, 'test', { kind: 'tenant', country_code: 'ITA' })).apiKey;
});
afterAll(() => t.close());

const DEU = { country_code: 'DEU', tax_number: '21/815/08150', vat_id: 'DE123456789' };
const AUT = { country_code: 'AUT', legal_entity_id_type: 'VAT_ID', vat_id: 'ATU12345678' };
const ITA = {
  country_code: 'ITA',
  tax_number: '12345678901',
  vat_number: '12345678901',
  legal_entity_type: 'COMPANY',
  fisconline_user: 'RSSMRA85T10A562S',
  fisconline_password: 'Fisc0nline-Secret!',
  fisconline_pin: '7319024586',
};

const addresses = {
  DEU: { line1: 'Friedrichstraße 1', city: 'Berlin', postal_code: '10117', country_code: 'DEU' },
  AUT: { line1: 'Stephansplatz 1', city: 'Wien', postal_code: '1010', country_code: 'AUT' },
  ITA: { line1: 'Via del Corso 1', city: 'Roma', postal_code: '00186', country_code: 'ITA' },
};
const keys = () => ({ DEU: deuKey, AUT: autKey, ITA: itaKey });

/** Creates a merchant of `country` with the given identities. */
function createWith(country: 'DEU' | 'AUT' | 'ITA', identities: object[]) {
  return t.app.inject({
    method: 'POST',
    url: '/v1/merchants',
    headers: auth(keys()[country]),
    payload: deuMerchantBody({ country_code: country, address: addresses[country], fiscal_identities: identities }),
  });
}

const without = (object: Record<string, unknown>, field: string) => Object.fromEntries(Object.entries(object).filter(([k]) => k !== field));

async function expectShapeError(country: 'DEU' | 'AUT' | 'ITA', identity: object, field: string) {
  const body = expectError(await createWith(country, [identity]), 400, 'invalid_request');
  expect(body.details?.field).toBe(field);
}

async function expectRegimeError(country: 'DEU' | 'AUT' | 'ITA', identities: object[], field: string) {
  const body = expectError(await createWith(country, identities), 422, 'regime_validation_failed');
  expect(body.details?.field).toBe(field);
  expect(body.retryable).toBe(false);
}

async function expectCreated(country: 'DEU' | 'AUT' | 'ITA', identities: object[]) {
  const response = await createWith(country, identities);
  if (response.statusCode !== 201) throw new Error(`expected 201, got ${response.statusCode}: ${response.body}`);
  return json(response);
}

describe('DEU', () => {
  it('requires tax_number and vat_id', async () => {
    await expectShapeError('DEU', without(DEU, 'tax_number'), 'fiscal_identities[0].tax_number');
    await expectShapeError('DEU', without(DEU, 'vat_id'), 'fiscal_identities[0].vat_id');
    await expectShapeError('DEU', { ...DEU, vat_id: '' }, 'fiscal_identities[0].vat_id');
    await expectShapeError('DEU', { ...DEU, tax_number: 2181508150 }, 'fiscal_identities[0].tax_number');
    expect((await expectCreated('DEU', [DEU])).fiscal_identities).toEqual([DEU]);
  });

  it('has no other fields', async () => {
    await expectShapeError('DEU', { ...DEU, gln: '4012345000009' }, 'fiscal_identities[0].gln');
    await expectShapeError('DEU', { ...DEU, legal_entity_id_type: 'VAT_ID' }, 'fiscal_identities[0].legal_entity_id_type');
  });
});

describe('AUT', () => {
  it('requires legal_entity_id_type, one of VAT_ID, TAX_ID, GLN', async () => {
    await expectShapeError('AUT', without(AUT, 'legal_entity_id_type'), 'fiscal_identities[0].legal_entity_id_type');
    await expectShapeError('AUT', { ...AUT, legal_entity_id_type: 'UID' }, 'fiscal_identities[0].legal_entity_id_type');
    await expectShapeError('AUT', { ...AUT, legal_entity_id_type: 'vat_id' }, 'fiscal_identities[0].legal_entity_id_type');
    await expectCreated('AUT', [AUT]);
    await expectCreated('AUT', [{ country_code: 'AUT', legal_entity_id_type: 'TAX_ID', tax_number: '12 345/6789' }]);
  });

  it('vat_id, tax_number and gln are optional otherwise', async () => {
    const created = await expectCreated('AUT', [{ country_code: 'AUT', legal_entity_id_type: 'VAT_ID' }]);
    expect(created.fiscal_identities).toEqual([{ country_code: 'AUT', legal_entity_id_type: 'VAT_ID' }]);
  });

  it('requires a gln when legal_entity_id_type is GLN (422)', async () => {
    await expectRegimeError('AUT', [{ country_code: 'AUT', legal_entity_id_type: 'GLN' }], 'fiscal_identities[0].gln');
    await expectRegimeError('AUT', [{ country_code: 'AUT', legal_entity_id_type: 'GLN', vat_id: 'ATU12345678' }], 'fiscal_identities[0].gln');
  });

  it('requires the gln to be 13 digits (422)', async () => {
    for (const gln of ['123', '401234500000', '40123450000091', '401234500000A', ' 4012345000009', '4012-345000009']) {
      await expectRegimeError('AUT', [{ country_code: 'AUT', legal_entity_id_type: 'GLN', gln }], 'fiscal_identities[0].gln');
    }
    // also when sent with another id type
    await expectRegimeError('AUT', [{ ...AUT, gln: '123' }], 'fiscal_identities[0].gln');
    const ok = await expectCreated('AUT', [{ country_code: 'AUT', legal_entity_id_type: 'GLN', gln: '4012345000009' }]);
    expect(ok.fiscal_identities[0].gln).toBe('4012345000009');
  });

  it('a gln that is not a string is a shape error (400)', async () => {
    await expectShapeError('AUT', { country_code: 'AUT', legal_entity_id_type: 'GLN', gln: 4012345000009 }, 'fiscal_identities[0].gln');
  });

  it('names the position of the offending identity', async () => {
    await expectRegimeError('DEU', [DEU, { country_code: 'AUT', legal_entity_id_type: 'GLN', gln: '12' }], 'fiscal_identities[1].gln');
  });
});

describe('ITA', () => {
  it('requires all seven fields', async () => {
    for (const field of ['tax_number', 'vat_number', 'legal_entity_type', 'fisconline_user', 'fisconline_password', 'fisconline_pin']) {
      await expectShapeError('ITA', without(ITA, field), `fiscal_identities[0].${field}`);
    }
    await expectShapeError('ITA', { ...ITA, legal_entity_type: 'PARTNERSHIP' }, 'fiscal_identities[0].legal_entity_type');
    const created = await expectCreated('ITA', [ITA]);
    expect(created.fiscal_identities[0]).toMatchObject({ country_code: 'ITA', tax_number: ITA.tax_number, legal_entity_type: 'COMPANY' });
  });

  it('refuses the removed fields vat_id and codice_fiscale', async () => {
    await expectShapeError('ITA', { ...ITA, vat_id: 'IT12345678901' }, 'fiscal_identities[0].vat_id');
    await expectShapeError('ITA', { ...ITA, codice_fiscale: 'RSSMRA85T10A562S' }, 'fiscal_identities[0].codice_fiscale');
  });

  it('tax_number is 11 digits or 16 alphanumeric characters (422)', async () => {
    await expectCreated('ITA', [{ ...ITA, tax_number: '01234567890' }]);
    await expectCreated('ITA', [{ ...ITA, tax_number: 'RSSMRA85T10A562S' }]);
    for (const taxNumber of ['1234567890', '123456789012', 'RSSMRA85T10A562', 'RSSMRA85T10A562SX', 'RSSMRA85T10A562!', '1234567890A']) {
      await expectRegimeError('ITA', [{ ...ITA, tax_number: taxNumber }], 'fiscal_identities[0].tax_number');
    }
  });

  it('vat_number is 11 digits (422)', async () => {
    for (const vatNumber of ['1234567890', '123456789012', '1234567890A', 'IT12345678901', 'RSSMRA85T10A562S']) {
      await expectRegimeError('ITA', [{ ...ITA, vat_number: vatNumber }], 'fiscal_identities[0].vat_number');
    }
  });

  it('fisconline_user is 16 alphanumeric characters (422)', async () => {
    for (const user of ['RSSMRA85T10A562', 'RSSMRA85T10A562SX', 'RSSMRA85T10A562!', 'RSSMRA85 10A562S', '12345678901']) {
      await expectRegimeError('ITA', [{ ...ITA, fisconline_user: user }], 'fiscal_identities[0].fisconline_user');
    }
  });

  it('never returns fisconline_password or fisconline_pin in clear', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/merchants',
      headers: { ...auth(itaKey), 'idempotency-key': 'ita-secret-1' },
      payload: deuMerchantBody({ country_code: 'ITA', address: addresses.ITA, fiscal_identities: [ITA] }),
    });
    expect(response.statusCode).toBe(201);
    const merchant = json(response);
    const identity = merchant.fiscal_identities[0];
    expect(identity.fisconline_password).not.toBe(ITA.fisconline_password);
    expect(identity.fisconline_pin).not.toBe(ITA.fisconline_pin);

    const responses = [
      response,
      await t.app.inject({ method: 'GET', url: `/v1/merchants/${merchant.id}`, headers: auth(itaKey) }),
      await t.app.inject({ method: 'GET', url: '/v1/merchants', headers: auth(itaKey) }),
      await t.app.inject({ method: 'PATCH', url: `/v1/merchants/${merchant.id}`, headers: auth(itaKey), payload: { legal_name: 'Pasticceria Srl' } }),
      // an idempotent replay comes from the stored response
      await t.app.inject({
        method: 'POST',
        url: '/v1/merchants',
        headers: { ...auth(itaKey), 'idempotency-key': 'ita-secret-1' },
        payload: deuMerchantBody({ country_code: 'ITA', address: addresses.ITA, fiscal_identities: [ITA] }),
      }),
    ];
    for (const each of responses) {
      expect(each.statusCode).toBeLessThan(300);
      expect(each.body).not.toContain(ITA.fisconline_password);
      expect(each.body).not.toContain(ITA.fisconline_pin);
    }

    // and they are not stored in clear either: the identity keeps none of them, the
    // organization's Fisconline credential holds them sealed with the secrets key
    const row = await t.database.prisma.merchant.findUniqueOrThrow({ where: { id: merchant.id } });
    expect(JSON.stringify(row.fiscalIdentities)).not.toMatch(/fisconline/);
    const credential = await t.database.prisma.fiscalPortalCredential.findFirstOrThrow({ where: { merchantId: merchant.id, portalType: 'fisconline' } });
    const stored = JSON.stringify(credential);
    expect(stored).not.toContain(ITA.fisconline_password);
    expect(stored).not.toContain(ITA.fisconline_pin);
    const box = new SecretBox(TEST_SECRETS_KEY);
    expect(box.open(credential.passwordSealed!)).toBe(ITA.fisconline_password);
    expect(box.open(credential.pinSealed!)).toBe(ITA.fisconline_pin);
    expect(box.open(credential.userIdSealed!)).toBe(ITA.fisconline_user);
    const stores = await t.database.prisma.idempotencyKey.findMany({ where: { key: 'ita-secret-1' } });
    expect(JSON.stringify(stores)).not.toContain(ITA.fisconline_password);
  });

  it('a PATCH replacing the ITA identity keeps the secrets masked and validates formats', async () => {
    const merchant = await expectCreated('ITA', [ITA]);
    const replaced = await t.app.inject({
      method: 'PATCH',
      url: `/v1/merchants/${merchant.id}`,
      headers: auth(itaKey),
      payload: { fiscal_identities: [{ ...ITA, fisconline_password: 'Another-Secret-2', fisconline_pin: '5550001112' }] },
    });
    expect(replaced.statusCode).toBe(200);
    expect(replaced.body).not.toContain('Another-Secret-2');
    expect(replaced.body).not.toContain('5550001112');
    expect(json(replaced).fiscal_identities).toHaveLength(1);
    const bad = expectError(
      await t.app.inject({
        method: 'PATCH',
        url: `/v1/merchants/${merchant.id}`,
        headers: auth(itaKey),
        payload: { fiscal_identities: [{ ...ITA, vat_number: '123' }] },
      }),
      422,
      'regime_validation_failed',
    );
    expect(bad.details?.field).toBe('fiscal_identities[0].vat_number');
  });
});

describe('the union', () => {
  it('is discriminated by country_code; `country` is rejected', async () => {
    await expectShapeError('DEU', { country: 'DEU', tax_number: '1', vat_id: 'DE1' }, 'fiscal_identities[0].country_code');
    await expectShapeError('DEU', { ...DEU, country: 'DEU' }, 'fiscal_identities[0].country');
    await expectShapeError('DEU', { country_code: 'FRA', tax_number: '1' }, 'fiscal_identities[0].country_code');
    await expectShapeError('DEU', { country_code: 'deu', tax_number: '1', vat_id: 'DE1' }, 'fiscal_identities[0].country_code');
  });

  it('a merchant may hold identities of several countries, one per country', async () => {
    const created = await expectCreated('DEU', [DEU, AUT, ITA]);
    expect(created.fiscal_identities.map((i: { country_code: string }) => i.country_code)).toEqual(['DEU', 'AUT', 'ITA']);
    const duplicate = expectError(await createWith('DEU', [DEU, { ...DEU, vat_id: 'DE999999999' }]), 422);
    expect(duplicate.details?.field).toBe('fiscal_identities[1].country_code');
  });

  it('fiscal_identities is required', async () => {
    const { fiscal_identities: _omit, ...rest } = deuMerchantBody();
    const body = expectError(await t.app.inject({ method: 'POST', url: '/v1/merchants', headers: auth(deuKey), payload: rest }), 400, 'invalid_request');
    expect(body.details?.field).toBe('fiscal_identities');
  });
});
