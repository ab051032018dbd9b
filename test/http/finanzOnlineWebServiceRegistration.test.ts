// The FinanzOnline registration through the BMF web service client (FINANZONLINE_URL set; here the
// local fake of the session and rkdb services): the merchant's finanz_online credential logs in,
// the unit is registered as the closed system it is (registrierung_ggs: Ordnungsbegriff, key id,
// public key) or by its trust service certificate (A-Trust: registrierung_se, AT1, the serial its
// receipts carry), the cash register with its AES key, and the start receipt is checked; a 503,
// an expired session and a lost answer are carried through; the PIN appears nowhere.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ATRUST_PASSWORD, ATRUST_USERNAME, FakeAtrust } from '../support/fakeAtrust.js';
import { FAKE_FINANZONLINE_ACCOUNT, startFakeFinanzOnline, textAt, type FakeFinanzOnline } from '../support/fakeFinanzOnline.js';
import type { OperationsFixture } from '../support/operations.js';
import { AUT_UID, autSetup } from '../support/rksv.js';
import { orgAuth, platformKey } from '../support/styleO.js';
import { createTenantWithKey, createTestApp, json, type TestApp } from '../support/testApp.js';

let t: TestApp;
let fon: FakeFinanzOnline;
let atrust: FakeAtrust;
let apiKey: string;
let platform: string;
const logLines: string[] = [];
const bodies: string[] = [];

beforeAll(async () => {
  fon = await startFakeFinanzOnline();
  atrust = await FakeAtrust.start();
  t = await createTestApp(
    {
      EXPORT_POLL_MS: '50',
      FINANZONLINE_URL: fon.url,
      FINANZONLINE_VENDOR_UID: 'ATU98765432',
      FINANZONLINE_RETRY_MS: '50',
      FINANZONLINE_TIMEOUT_MS: '1000',
      LOG_LEVEL: 'debug',
    },
    { logStream: { write: (line: string) => void logLines.push(line) } },
  );
  const tenant = await createTenantWithKey(t.database, 'AUT');
  apiKey = tenant.apiKey;
  platform = await platformKey(t.database, tenant.tenantId);
});
afterAll(async () => {
  await t.close();
  await atrust.close();
  await fon.close();
});

/** An AUT register whose merchant stored the fake's web service user. */
async function withCredential(): Promise<OperationsFixture> {
  const fx = await autSetup(t.app, apiKey);
  const created = await t.app.inject({
    method: 'POST',
    url: `/v1/organizations/${fx.merchantId}/fiscal-portal-credentials`,
    headers: orgAuth(platform, fx.merchantId),
    payload: {
      portal_type: 'finanz_online',
      jurisdiction: 'AT',
      credentials: { participant_id: FAKE_FINANZONLINE_ACCOUNT.participantId, user_id: FAKE_FINANZONLINE_ACCOUNT.userId, pin: FAKE_FINANZONLINE_ACCOUNT.pin },
    },
  });
  bodies.push(created.body);
  expect(created.statusCode).toBe(201);
  return fx;
}

async function fiscalize(fx: OperationsFixture, payload?: object) {
  const response = await t.app.inject({ method: 'POST', url: `/v1/registers/${fx.registerId}/fiscalize`, headers: fx.headers, ...(payload ? { payload } : {}) });
  bodies.push(response.body);
  expect(response.statusCode, response.body).toBe(200);
  return json(response).fiscalization.rksv;
}

async function registered(fx: OperationsFixture) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const response = await t.app.inject({ method: 'GET', url: `/v1/registers/${fx.registerId}`, headers: fx.headers });
    bodies.push(response.body);
    const registration = json(response).fiscalization.rksv.registration;
    if (registration.start_receipt_check.status !== 'pending' || registration.status === 'rejected') return registration;
    if (Date.now() > deadline) throw new Error(`registration still ${JSON.stringify(registration)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The rkdb requests of the fake for one element (registrierung_ggs, registrierung_kasse, ...). */
const rkdbRequestsWith = (element: string) =>
  fon.requests.filter((request) => request.endpoint === 'rkdb' && request.parsed?.children.some((child) => child.name === 'rkdb' && child.children.some((entry) => entry.name === element)));

describe('FinanzOnline registration through the web service', () => {
  it('registers the closed system, the cash register and checks the start receipt, in test transmission', async () => {
    const fx = await withCredential();
    const rksv = await fiscalize(fx);
    const registration = await registered(fx);
    expect(registration).toMatchObject({ status: 'registered', transmission: 'test', signature_unit: 'registered', cash_register: 'registered', start_receipt_check: { status: 'passed' } });

    const [unit] = rkdbRequestsWith('registrierung_ggs');
    expect(textAt(unit.parsed!, 'art_uebermittlung')).toBe('T');
    expect(textAt(unit.parsed!, 'rkdb', 'registrierung_ggs', 'art_ob')).toBe('UID');
    expect(textAt(unit.parsed!, 'rkdb', 'registrierung_ggs', 'ob')).toBe(AUT_UID);
    expect(`U:${AUT_UID}-${textAt(unit.parsed!, 'rkdb', 'registrierung_ggs', 'zusatz_ob')}`).toBe(rksv.signature_device_id);
    expect(textAt(unit.parsed!, 'rkdb', 'registrierung_ggs', 'public_key')).toBe(rksv.public_key);
    const [cashRegister] = rkdbRequestsWith('registrierung_kasse');
    expect(textAt(cashRegister.parsed!, 'rkdb', 'registrierung_kasse', 'kassenidentifikationsnummer')).toBe(rksv.cash_register_id);
    expect(fon.registered.cashRegisters.get(rksv.cash_register_id)).toMatchObject({ state: 'in_operation' });
    const [check] = rkdbRequestsWith('belegpruefung');
    expect(textAt(check.parsed!, 'rkdb', 'belegpruefung', 'beleg')).toBe(rksv.start_receipt.qr_data);
  });

  it('registers an A-Trust unit by its certificate: registrierung_se with AT1 and the serial of field 11', async () => {
    const fx = await withCredential();
    const rksv = await fiscalize(fx, { rksv: { driver: 'atrust_asign_online', username: ATRUST_USERNAME, password: ATRUST_PASSWORD, base_url: atrust.baseUrl } });
    expect((await registered(fx)).status).toBe('registered');
    const unit = rkdbRequestsWith('registrierung_se').at(-1)!;
    expect(textAt(unit.parsed!, 'rkdb', 'registrierung_se', 'art_se')).toBe('HSM_DIENSTLEISTER');
    expect(textAt(unit.parsed!, 'rkdb', 'registrierung_se', 'vda_id')).toBe('AT1');
    expect(textAt(unit.parsed!, 'rkdb', 'registrierung_se', 'zertifikatsseriennummer').toUpperCase()).toBe(rksv.signature_device_id.toUpperCase());
    expect(rksv.signature_device_id).toBe(rksv.certificate_serial);
  });

  it('carries a 503, an expired session and a repeat after a lost answer through to registered', async () => {
    const fx = await withCredential();
    fon.expireSessions();
    fon.setFault({ kind: 'http', status: 503 }, { times: 2 });
    await fiscalize(fx);
    expect(await registered(fx)).toMatchObject({ status: 'registered', start_receipt_check: { status: 'passed' } });
  });

  it('shows FinanzOnline\'s business code when it refuses, and a refused login as failed', async () => {
    const fx = await withCredential();
    fon.setFault({ kind: 'business', rc: '28', message: 'Ordnungsbegriff nicht zugeordnet' });
    await fiscalize(fx);
    expect(await registered(fx)).toMatchObject({ status: 'rejected', reason: { code: '28', message: 'Ordnungsbegriff nicht zugeordnet' }, signature_unit: 'rejected' });

    const locked = await withCredential();
    // The cached session expires, and the login after it is refused: the user is locked.
    fon.expireSessions();
    fon.setFault({ kind: 'login_refused', rc: -5 }, { times: Infinity });
    await fiscalize(locked);
    const deadline = Date.now() + 5000;
    let registration;
    do {
      registration = json(await t.app.inject({ method: 'GET', url: `/v1/registers/${locked.registerId}`, headers: locked.headers })).fiscalization.rksv.registration;
    } while (registration.status !== 'failed' && Date.now() < deadline && (await new Promise((resolve) => setTimeout(resolve, 50))) === undefined);
    expect(registration).toMatchObject({ status: 'failed', reason: { code: '-5' } });
    const logins = fon.requests.filter((request) => request.action === 'login').length;
    await new Promise((resolve) => setTimeout(resolve, 300));
    // A refused login is not repeated: that would lock the user for good.
    expect(fon.requests.filter((request) => request.action === 'login').length).toBe(logins);
    fon.clearFaults();
  });

  it('never shows or logs the PIN', () => {
    expect(bodies.join('\n')).not.toContain(FAKE_FINANZONLINE_ACCOUNT.pin);
    expect(logLines.join('\n')).not.toContain(FAKE_FINANZONLINE_ACCOUNT.pin);
  });
});
