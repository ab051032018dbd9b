// Fiscal-portal credentials (contract 2.11, 4.3; DESIGN "Fiscal certificates and portal
// credentials"): masking, sealing, states, validation against the sandbox portal, Fisconline
// password expiry, tenancy, and the ITA fiscal identity's Fisconline fields as the same record.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, createTenant } from '../../src/modules/admin/service.js';
import { organizationKey, orgAuth, platformKey } from '../support/styleO.js';
import {
  auth,
  createDeuSetup,
  createTenantWithKey,
  createTestApp,
  expectError,
  itaMerchantBody,
  json,
  type TestApp,
} from '../support/testApp.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const START = new Date('2026-03-01T09:00:00.000Z');
let now = START;

let t: TestApp;
let tenantId: string;
let orgA: string;
let orgB: string;
let platform: string;
let stranger: { platform: string; orgId: string };

const PASSWORD = 'Fisc0nline-Secret!';
const PIN = '7319024586';
const USER = 'RSSMRA85T10A562S';

const url = (organizationId: string, suffix = '') => `/v1/organizations/${organizationId}/fiscal-portal-credentials${suffix}`;
const asA = () => orgAuth(platform, orgA);
const asB = () => orgAuth(platform, orgB);
/** Moves the service's clock on by a second, so creations are ordered. */
const tick = () => (now = new Date(now.getTime() + 1000));

function create(headers: Record<string, string>, organizationId: string, payload: object) {
  return t.app.inject({ method: 'POST', url: url(organizationId), headers, payload });
}

const fisconline = (credentials: Record<string, string> = { user_id: USER, password: PASSWORD, pin: PIN }) => ({
  portal_type: 'fisconline',
  jurisdiction: 'IT',
  label: 'Fisconline',
  credentials,
});

beforeAll(async () => {
  t = await createTestApp({}, { clock: () => now });
  const tenant = await createTenantWithKey(t.database, 'DEU');
  tenantId = tenant.tenantId;
  orgA = (await createDeuSetup(t.app, tenant.apiKey)).merchantId;
  orgB = (await createDeuSetup(t.app, tenant.apiKey)).merchantId;
  platform = await platformKey(t.database, tenantId);
  const other = await createTenantWithKey(t.database, 'DEU');
  stranger = { platform: await platformKey(t.database, other.tenantId), orgId: (await createDeuSetup(t.app, other.apiKey)).merchantId };
});
afterAll(() => t.close());

describe('create, read, mask, seal', () => {
  it('stores a Fisconline credential: unvalidated, masked, expiring 90 days after the password was set', async () => {
    const response = await create(asA(), orgA, fisconline({ user_id: USER, password: PASSWORD, pin: PIN, tax_id_number: '12345678901' }));
    expect(response.statusCode).toBe(201);
    const body = json(response);
    expect(Object.keys(body).sort()).toEqual(
      ['created_at', 'expires_at', 'id', 'jurisdiction', 'label', 'last_validated_at', 'masked_credentials', 'object', 'organization_id', 'portal_type', 'state', 'updated_at', 'validation_error'].sort(),
    );
    expect(body).toEqual({
      object: 'fiscal_portal_credential',
      id: expect.stringMatching(/^fpc_/),
      organization_id: orgA,
      portal_type: 'fisconline',
      jurisdiction: 'IT',
      state: 'unvalidated',
      label: 'Fisconline',
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
      expires_at: new Date(now.getTime() + 90 * DAY_MS).toISOString(),
      last_validated_at: null,
      validation_error: null,
      masked_credentials: { tax_id_number: '*********01', participant_id: null, user_id: '**************2S', pin: '********', password: '********' },
    });
    for (const secret of [PASSWORD, PIN, USER, '12345678901']) expect(response.body).not.toContain(secret);

    // The row holds every field sealed, nothing in clear.
    const row = await t.database.prisma.fiscalPortalCredential.findUniqueOrThrow({ where: { id: body.id } });
    const stored = JSON.stringify(row);
    for (const secret of [PASSWORD, PIN, USER, '12345678901']) expect(stored).not.toContain(secret);
    for (const column of [row.userIdSealed, row.passwordSealed, row.pinSealed, row.taxIdNumberSealed]) expect(column).toMatch(/^v1:/);
    const dump = await t.database.sql.query<{ text: string }>('SELECT row_to_json(c)::text AS text FROM fiscal_portal_credentials c WHERE id = $1', [body.id]);
    for (const secret of [PASSWORD, PIN, USER]) expect(dump[0].text).not.toContain(secret);
  });

  it('an organization has one Fisconline credential (409); other portals may repeat', async () => {
    expectError(await create(asA(), orgA, fisconline()), 409, 'fiscal_portal_credential_exists');
    const entratel = { portal_type: 'entratel', jurisdiction: 'IT', credentials: { user_id: USER, password: PASSWORD, pin: PIN } };
    tick();
    expect((await create(asA(), orgA, entratel)).statusCode).toBe(201);
    tick();
    expect((await create(asA(), orgA, entratel)).statusCode).toBe(201);
    tick();
    const finanzOnline = await create(asA(), orgA, {
      portal_type: 'finanz_online',
      jurisdiction: 'AT',
      credentials: { participant_id: 'TID123456', user_id: 'BENID7890', pin: '4711' },
    });
    expect(finanzOnline.statusCode).toBe(201);
    // FinanzOnline has no password rotation: no expiry.
    expect(json(finanzOnline)).toMatchObject({ expires_at: null, masked_credentials: { participant_id: '*******56', user_id: '*******90', pin: '********', password: null } });
  });

  it('bad input is named: portal type and jurisdiction by schema (400), the portal\'s jurisdiction and the user format (422)', async () => {
    const unknownPortal = expectError(await create(asA(), orgA, { ...fisconline(), portal_type: 'spid' }), 400, 'invalid_request');
    expect(unknownPortal.details?.field).toBe('portal_type');
    const unknownJurisdiction = expectError(await create(asA(), orgA, { ...fisconline(), jurisdiction: 'FR' }), 400, 'invalid_request');
    expect(unknownJurisdiction.details?.field).toBe('jurisdiction');
    const wrongJurisdiction = expectError(await create(asB(), orgB, { ...fisconline(), jurisdiction: 'AT' }), 422, 'validation_error');
    expect(wrongJurisdiction.details?.field).toBe('jurisdiction');
    const badUser = expectError(await create(asB(), orgB, fisconline({ user_id: 'mario.rossi', password: PASSWORD, pin: PIN })), 422, 'regime_validation_failed');
    expect(badUser.details?.field).toBe('credentials.user_id');
    const unknownField = expectError(await create(asB(), orgB, fisconline({ user_id: USER, otp: '123' })), 400, 'invalid_request');
    expect(unknownField.details?.field).toBe('credentials.otp');
    expect(await t.database.prisma.fiscalPortalCredential.count({ where: { merchantId: orgB } })).toBe(0);
  });

  it('lists newest first as {object: list, data}, filtered by portal_type; gets one', async () => {
    const all = json(await t.app.inject({ method: 'GET', url: url(orgA), headers: asA() }));
    expect(all.object).toBe('list');
    expect(all.data.map((credential: { portal_type: string }) => credential.portal_type)).toEqual(['finanz_online', 'entratel', 'entratel', 'fisconline']);
    const filtered = json(await t.app.inject({ method: 'GET', url: url(orgA, '?portal_type=entratel'), headers: asA() }));
    expect(filtered.data).toHaveLength(2);
    expect(filtered.data.every((credential: { portal_type: string }) => credential.portal_type === 'entratel')).toBe(true);
    const bad = expectError(await t.app.inject({ method: 'GET', url: url(orgA, '?portal_type=spid'), headers: asA() }), 400, 'invalid_request');
    expect(bad.details?.field).toBe('portal_type');
    const one = await t.app.inject({ method: 'GET', url: url(orgA, `/${all.data[3].id}`), headers: asA() });
    expect(json(one)).toEqual(all.data[3]);
  });
});

describe('validate, update, expire, delete', () => {
  let id: string;

  it('validates against the sandbox portal: valid with last_validated_at; wrong-password invalid with validation_error', async () => {
    id = json(await create(asB(), orgB, fisconline())).id;
    const validated = await t.app.inject({ method: 'POST', url: url(orgB, `/${id}/validate`), headers: asB() });
    expect(validated.statusCode).toBe(200);
    expect(json(validated)).toMatchObject({ state: 'valid', last_validated_at: now.toISOString(), validation_error: null });

    // New secrets put it back to unvalidated; the same ones change nothing.
    const same = json(await t.app.inject({ method: 'PATCH', url: url(orgB, `/${id}`), headers: asB(), payload: { credentials: { pin: PIN }, label: 'Main' } }));
    expect(same).toMatchObject({ state: 'valid', label: 'Main' });
    const validatedAt = now.toISOString();
    now = new Date(now.getTime() + 10 * DAY_MS);
    const changed = json(await t.app.inject({ method: 'PATCH', url: url(orgB, `/${id}`), headers: asB(), payload: { credentials: { password: 'wrong-password' } } }));
    expect(changed).toMatchObject({ state: 'unvalidated', expires_at: new Date(now.getTime() + 90 * DAY_MS).toISOString() });
    expect(changed.last_validated_at).toBe(validatedAt);

    const rejected = json(await t.app.inject({ method: 'POST', url: url(orgB, `/${id}/validate`), headers: asB() }));
    expect(rejected).toMatchObject({ state: 'invalid', validation_error: 'The portal rejected the password' });
  });

  it('a credential missing what its portal needs validates as invalid', async () => {
    const partial = json(await create(asB(), orgB, { portal_type: 'entratel', jurisdiction: 'IT', credentials: { user_id: USER } }));
    const result = json(await t.app.inject({ method: 'POST', url: url(orgB, `/${partial.id}/validate`), headers: asB() }));
    expect(result).toMatchObject({ state: 'invalid', validation_error: 'The portal needs password, pin to log in' });
  });

  it('a Fisconline password is expired 90 days after it was set, whatever the last validation said', async () => {
    await t.app.inject({ method: 'PATCH', url: url(orgB, `/${id}`), headers: asB(), payload: { credentials: { password: 'Another-Secret-9' } } });
    expect(json(await t.app.inject({ method: 'POST', url: url(orgB, `/${id}/validate`), headers: asB() })).state).toBe('valid');
    const setAt = now;
    now = new Date(setAt.getTime() + 90 * DAY_MS - 1);
    expect(json(await t.app.inject({ method: 'GET', url: url(orgB, `/${id}`), headers: asB() })).state).toBe('valid');
    now = new Date(setAt.getTime() + 90 * DAY_MS);
    const expired = json(await t.app.inject({ method: 'GET', url: url(orgB, `/${id}`), headers: asB() }));
    expect(expired).toMatchObject({ state: 'expired', expires_at: now.toISOString() });
    // A new password brings it back.
    const renewed = json(await t.app.inject({ method: 'PATCH', url: url(orgB, `/${id}`), headers: asB(), payload: { credentials: { password: 'Renewed-Secret-1' } } }));
    expect(renewed).toMatchObject({ state: 'unvalidated', expires_at: new Date(now.getTime() + 90 * DAY_MS).toISOString() });
  });

  it('deletes a credential (then 404)', async () => {
    const deleted = await t.app.inject({ method: 'DELETE', url: url(orgB, `/${id}`), headers: asB() });
    expect(deleted.statusCode).toBe(200);
    expect(json(deleted)).toEqual({ id, object: 'fiscal_portal_credential', deleted: true });
    expectError(await t.app.inject({ method: 'GET', url: url(orgB, `/${id}`), headers: asB() }), 404, 'not_found');
    expectError(await t.app.inject({ method: 'DELETE', url: url(orgB, `/${id}`), headers: asB() }), 404, 'not_found');
  });
});

describe('tenancy', () => {
  it("another organization's credential is 404 for every operation", async () => {
    const mine = json(await t.app.inject({ method: 'GET', url: url(orgA), headers: asA() })).data[0];
    for (const [method, suffix] of [['GET', ''], ['PATCH', ''], ['DELETE', ''], ['POST', '/validate']] as const) {
      const response = await t.app.inject({ method, url: url(orgB, `/${mine.id}${suffix}`), headers: asB(), ...(method === 'PATCH' ? { payload: { label: 'x' } } : {}) });
      expectError(response, 404, 'not_found');
    }
    expectError(await t.app.inject({ method: 'GET', url: url(orgA, `/${mine.id}`), headers: asB() }), 404, 'not_found');
    expectError(await t.app.inject({ method: 'GET', url: url(orgA), headers: orgAuth(stranger.platform, orgA) }), 404, 'not_found');
    const orgBKey = await organizationKey(t.database, tenantId, orgB);
    expectError(await t.app.inject({ method: 'GET', url: url(orgA, `/${mine.id}`), headers: orgAuth(orgBKey) }), 404, 'not_found');
    expect(json(await t.app.inject({ method: 'GET', url: url(orgA, `/${mine.id}`), headers: asA() })).label).not.toBe('x');
  });
});

describe('the ITA fiscal identity and its Fisconline credential: one record', () => {
  let itaKey: string;
  let merchantId: string;
  let credentialId: string;
  const asIta = () => orgAuth(platform, merchantId);

  beforeAll(async () => {
    const tenant = await createTenant(t.database.prisma, 'Italian tenant');
    itaKey = (await createApiKey(t.database.prisma, tenant.id, 'test', { kind: 'tenant', country_code: 'ITA' })).apiKey;
    platform = await platformKey(t.database, tenant.id);
    const created = await t.app.inject({ method: 'POST', url: '/v1/merchants', headers: auth(itaKey), payload: itaMerchantBody({ password: PASSWORD, pin: PIN }) });
    expect(created.statusCode).toBe(201);
    merchantId = json(created).id;
  });

  it('creating the merchant created its Fisconline credential; the identity stores no Fisconline field itself', async () => {
    const list = json(await t.app.inject({ method: 'GET', url: url(merchantId), headers: asIta() }));
    expect(list.data).toHaveLength(1);
    expect(list.data[0]).toMatchObject({
      portal_type: 'fisconline',
      jurisdiction: 'IT',
      state: 'unvalidated',
      masked_credentials: { user_id: '**************2S', pin: '********', password: '********', tax_id_number: null },
    });
    credentialId = list.data[0].id;
    const row = await t.database.prisma.merchant.findUniqueOrThrow({ where: { id: merchantId } });
    expect(JSON.stringify(row.fiscalIdentities)).not.toMatch(/fisconline/);
    expectError(await create(asIta(), merchantId, fisconline()), 409, 'fiscal_portal_credential_exists');
    expectError(await t.app.inject({ method: 'DELETE', url: url(merchantId, `/${credentialId}`), headers: asIta() }), 409, 'fiscal_portal_credential_in_use');
  });

  it('a credential update shows in the merchant (and moves its resource_version)', async () => {
    const before = json(await t.app.inject({ method: 'GET', url: `/v1/merchants/${merchantId}`, headers: auth(itaKey) }));
    expect(before.fiscal_identities[0]).toMatchObject({ fisconline_user: USER, fisconline_password: '********', fisconline_pin: '********' });
    const patched = await t.app.inject({
      method: 'PATCH',
      url: url(merchantId, `/${credentialId}`),
      headers: asIta(),
      payload: { credentials: { user_id: 'BNCLRA90A41H501Y', password: 'New-Portal-Pass-1' } },
    });
    expect(patched.statusCode).toBe(200);
    const after = json(await t.app.inject({ method: 'GET', url: `/v1/merchants/${merchantId}`, headers: auth(itaKey) }));
    expect(after.fiscal_identities[0].fisconline_user).toBe('BNCLRA90A41H501Y');
    expect(after.resource_version).toBe(before.resource_version + 1);
    const listed = json(await t.app.inject({ method: 'GET', url: '/v1/merchants', headers: auth(itaKey) }));
    expect(listed.data.find((merchant: { id: string }) => merchant.id === merchantId).fiscal_identities[0].fisconline_user).toBe('BNCLRA90A41H501Y');
    // A label is not part of the identity.
    await t.app.inject({ method: 'PATCH', url: url(merchantId, `/${credentialId}`), headers: asIta(), payload: { label: 'Portale' } });
    expect(json(await t.app.inject({ method: 'GET', url: `/v1/merchants/${merchantId}`, headers: auth(itaKey) })).resource_version).toBe(after.resource_version);
  });

  it("a merchant update of the ITA identity writes the credential: same secrets keep its state, new ones reset it", async () => {
    expect(json(await t.app.inject({ method: 'POST', url: url(merchantId, `/${credentialId}/validate`), headers: asIta() })).state).toBe('valid');
    const identity = { ...itaMerchantBody({ password: 'New-Portal-Pass-1', pin: PIN }).fiscal_identities[0], fisconline_user: 'BNCLRA90A41H501Y' };
    const unchanged = await t.app.inject({ method: 'PATCH', url: `/v1/merchants/${merchantId}`, headers: auth(itaKey), payload: { fiscal_identities: [identity] } });
    expect(unchanged.statusCode).toBe(200);
    expect(json(await t.app.inject({ method: 'GET', url: url(merchantId, `/${credentialId}`), headers: asIta() })).state).toBe('valid');

    now = new Date(now.getTime() + DAY_MS);
    const changed = await t.app.inject({
      method: 'PATCH',
      url: `/v1/merchants/${merchantId}`,
      headers: auth(itaKey),
      payload: { fiscal_identities: [{ ...identity, fisconline_password: 'Merchant-Side-Pass-2' }] },
    });
    expect(changed.statusCode).toBe(200);
    expect(changed.body).not.toContain('Merchant-Side-Pass-2');
    const credential = json(await t.app.inject({ method: 'GET', url: url(merchantId, `/${credentialId}`), headers: asIta() }));
    expect(credential).toMatchObject({ id: credentialId, state: 'unvalidated', expires_at: new Date(now.getTime() + 90 * DAY_MS).toISOString() });
    const row = await t.database.prisma.fiscalPortalCredential.findUniqueOrThrow({ where: { id: credentialId } });
    expect(t.app.ctx.secrets.open(row.passwordSealed!)).toBe('Merchant-Side-Pass-2');
    expect(await t.database.prisma.fiscalPortalCredential.count({ where: { merchantId, portalType: 'fisconline' } })).toBe(1);
  });
});

describe('production', () => {
  it('has no client of the live portals: validate answers 501, never a made-up valid', async () => {
    const live = await createTestApp({ SERVICE_ENV: 'production', SECRETS_KEY: '07'.repeat(32) });
    try {
      const tenant = await createTenantWithKey(live.database, 'DEU', 'live');
      const organization = (await createDeuSetup(live.app, tenant.apiKey)).merchantId;
      const key = (await createApiKey(live.database.prisma, tenant.tenantId, 'live', { kind: 'platform' })).apiKey;
      const created = json(await live.app.inject({ method: 'POST', url: url(organization), headers: orgAuth(key, organization), payload: fisconline() }));
      const response = await live.app.inject({ method: 'POST', url: url(organization, `/${created.id}/validate`), headers: orgAuth(key, organization) });
      const error = expectError(response, 501, 'not_implemented');
      expect(error.message).toMatch(/no client/);
      expect(json(await live.app.inject({ method: 'GET', url: url(organization, `/${created.id}`), headers: orgAuth(key, organization) })).state).toBe('unvalidated');
    } finally {
      await live.close();
    }
  });
});
