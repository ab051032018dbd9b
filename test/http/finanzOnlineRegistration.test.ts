// Austria to production (issue 43, FinanzOnline): fiscalizing an Austrian register queues its
// registration with FinanzOnline (the signature unit, the cash register, and the Belegprüfung
// of the start receipt) in the fiscalization's transaction; in the sandbox the simulated
// FinanzOnline answers, really checking the start receipt's signature, and fails on demand
// (PUT /simulation `authority`: reject, unreachable, timeout, credential_error). Outages of the
// signature unit past the threshold (48 h; here 1 s) are reported, their ends too, and the
// closing receipt reports the decommission. Nothing of it loses a receipt or leaks a credential.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyDep } from '../fiscal/independentRksv.js';
import { depOf, autSetup } from '../support/rksv.js';
import { autSale, postNullReceipt } from '../support/rksvJournal.js';
import type { OperationsFixture } from '../support/operations.js';
import { orgAuth, platformKey } from '../support/styleO.js';
import { createTenantWithKey, createTestApp, json, type TestApp } from '../support/testApp.js';

const PIN = 'Pin-Of-The-Web-Service-4711';

let t: TestApp;
let apiKey: string;
let platform: string;
const logLines: string[] = [];
const bodies: string[] = [];

beforeAll(async () => {
  t = await createTestApp(
    {
      EXPORT_POLL_MS: '50',
      FINANZONLINE_SIMULATOR_DELAY_MS: '400',
      FINANZONLINE_RETRY_MS: '50',
      FINANZONLINE_TIMEOUT_MS: '300',
      RKSV_OUTAGE_REPORT_AFTER_MS: '1000',
      LOG_LEVEL: 'debug',
    },
    { logStream: { write: (line: string) => void logLines.push(line) } },
  );
  const tenant = await createTenantWithKey(t.database, 'AUT');
  apiKey = tenant.apiKey;
  platform = await platformKey(t.database, tenant.tenantId);
});
afterAll(() => t.close());

async function getRegister(fx: OperationsFixture) {
  const response = await t.app.inject({ method: 'GET', url: `/v1/registers/${fx.registerId}`, headers: fx.headers });
  bodies.push(response.body);
  return json(response);
}

const registrationOf = async (fx: OperationsFixture) => (await getRegister(fx)).fiscalization.rksv.registration;

async function waitForRegistration(fx: OperationsFixture, done: (registration: any) => boolean, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const registration = await registrationOf(fx);
    if (done(registration)) return registration;
    if (Date.now() > deadline) throw new Error(`registration still ${JSON.stringify(registration)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function fiscalize(fx: OperationsFixture) {
  const response = await t.app.inject({ method: 'POST', url: `/v1/registers/${fx.registerId}/fiscalize`, headers: fx.headers });
  bodies.push(response.body);
  expect(response.statusCode).toBe(200);
  return json(response);
}

const simulate = (fx: OperationsFixture, payload: Record<string, string>) =>
  t.app.inject({ method: 'PUT', url: `/v1/registers/${fx.registerId}/simulation`, headers: fx.headers, payload: { fiscal_device: 'ok', ...payload } });

async function openSession(fx: OperationsFixture) {
  const opened = await t.app.inject({
    method: 'POST',
    url: '/v1/operations',
    headers: { ...fx.headers, 'idempotency-key': crypto.randomUUID() },
    payload: { type: 'session_open', register_id: fx.registerId, opening_amount: '0.00' },
  });
  expect(opened.statusCode).toBe(201);
}

async function expectDepVerifies(fx: OperationsFixture) {
  const { dep, cryptoMaterial } = await depOf(t.database, fx.registerId);
  expect(verifyDep(dep, cryptoMaterial, { counterBytes: 8 }).errors).toEqual([]);
}

describe('FinanzOnline registration at fiscalization (sandbox)', () => {
  it('registers the unit and the cash register and checks the start receipt, after answering fiscalize with it pending', async () => {
    const fx = await autSetup(t.app, apiKey);
    const fiscalized = await fiscalize(fx);
    expect(fiscalized.fiscalization.rksv.registration).toMatchObject({
      status: 'pending',
      transmission: 'test',
      reason: null,
      signature_unit: 'pending',
      cash_register: 'pending',
      start_receipt_check: { status: 'pending', checked_at: null },
      reports: [],
    });
    const registration = await waitForRegistration(fx, (value) => value.start_receipt_check.status !== 'pending');
    expect(registration).toMatchObject({
      status: 'registered',
      reason: null,
      signature_unit: 'registered',
      cash_register: 'registered',
      start_receipt_check: { status: 'passed', reason: null },
      attempts: 1,
    });
    expect(Date.parse(registration.registered_at)).toBeGreaterThanOrEqual(Date.parse(fiscalized.fiscalization.fiscalized_at));
    const submissions = await t.database.prisma.finanzOnlineSubmission.findMany({ where: { registerId: fx.registerId } });
    expect(submissions).toMatchObject([{ kind: 'registration', status: 'done', stepsDone: ['register_unit', 'register_cash_register', 'check_receipt'] }]);
  });

  it('shows a rejection with FinanzOnline\'s reason, not retried, and the register signs on: no receipt is lost', async () => {
    const fx = await autSetup(t.app, apiKey);
    await fiscalize(fx);
    expect((await simulate(fx, { authority: 'reject' })).statusCode).toBe(200);
    const registration = await waitForRegistration(fx, (value) => value.status !== 'pending');
    expect(registration).toMatchObject({
      status: 'rejected',
      reason: { code: '28', message: expect.stringContaining('Ordnungsbegriff') },
      signature_unit: 'rejected',
      cash_register: 'pending',
      start_receipt_check: { status: 'pending' },
    });
    await openSession(fx);
    const sale = await autSale(t.app, fx, '4.80');
    expect(sale.fiscal_information).toMatchObject({ document_number: '2', signature_device_failed: false });
    await expectDepVerifies(fx);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await t.database.prisma.finanzOnlineSubmission.findFirstOrThrow({ where: { registerId: fx.registerId } })).attempts).toBe(1);
  });

  it.each([
    ['unreachable', 'UNREACHABLE'],
    ['timeout', 'TIMEOUT'],
  ])('is failed while FinanzOnline is %s, retried with backoff, and registered once it answers', async (simulation, code) => {
    const fx = await autSetup(t.app, apiKey);
    await fiscalize(fx);
    await simulate(fx, { authority: simulation });
    const failed = await waitForRegistration(fx, (value) => value.status === 'failed' && value.attempts >= 2);
    expect(failed).toMatchObject({ status: 'failed', reason: { code }, signature_unit: 'pending' });
    await simulate(fx, { authority: 'ok' });
    const registered = await waitForRegistration(fx, (value) => value.status === 'registered' && value.start_receipt_check.status === 'passed');
    expect(registered.reason).toBeNull();
  });

  it('waits after a refused login (credential_error) instead of repeating it, and goes on when the simulation changes', async () => {
    const fx = await autSetup(t.app, apiKey);
    await fiscalize(fx);
    await simulate(fx, { authority: 'credential_error' });
    const failed = await waitForRegistration(fx, (value) => value.status === 'failed');
    expect(failed.reason).toMatchObject({ code: '-4' });
    await new Promise((resolve) => setTimeout(resolve, 400));
    const submission = await t.database.prisma.finanzOnlineSubmission.findFirstOrThrow({ where: { registerId: fx.registerId } });
    expect(submission).toMatchObject({ status: 'blocked', attempts: 1 });
    await simulate(fx, { authority: 'ok' });
    await waitForRegistration(fx, (value) => value.status === 'registered');
  });

  it('logs in with the merchant\'s finanz_online credential: a refused PIN marks it invalid, a new PIN registers the register and validates it', async () => {
    const fx = await autSetup(t.app, apiKey);
    const credentials = `/v1/organizations/${fx.merchantId}/fiscal-portal-credentials`;
    const created = await t.app.inject({
      method: 'POST',
      url: credentials,
      headers: orgAuth(platform, fx.merchantId),
      payload: { portal_type: 'finanz_online', jurisdiction: 'AT', credentials: { participant_id: 'T0000A1234', user_id: 'WSUSER01', pin: 'wrong-password' } },
    });
    expect(created.statusCode).toBe(201);
    const credentialId = json(created).id;
    await fiscalize(fx);
    const failed = await waitForRegistration(fx, (value) => value.status === 'failed');
    expect(failed.reason.code).toBe('-4');
    const refused = json(await t.app.inject({ method: 'GET', url: `${credentials}/${credentialId}`, headers: orgAuth(platform, fx.merchantId) }));
    expect(refused).toMatchObject({ state: 'invalid', validation_error: expect.stringContaining('FinanzOnline refused the login') });

    const patched = await t.app.inject({ method: 'PATCH', url: `${credentials}/${credentialId}`, headers: orgAuth(platform, fx.merchantId), payload: { credentials: { pin: PIN } } });
    expect(patched.statusCode).toBe(200);
    await waitForRegistration(fx, (value) => value.status === 'registered' && value.start_receipt_check.status === 'passed');
    const validated = json(await t.app.inject({ method: 'GET', url: `${credentials}/${credentialId}`, headers: orgAuth(platform, fx.merchantId) }));
    expect(validated).toMatchObject({ state: 'valid', validation_error: null });
  });
});

describe('FinanzOnline reports of the register\'s lifecycle', () => {
  it('reports an outage that lasted past the threshold and its end; the receipts of the outage stay in the chain', async () => {
    const fx = await autSetup(t.app, apiKey);
    await fiscalize(fx);
    await waitForRegistration(fx, (value) => value.status === 'registered' && value.start_receipt_check.status === 'passed');
    await openSession(fx);
    await simulate(fx, { fiscal_device: 'unreachable' });
    const failedSale = await autSale(t.app, fx, '3.00');
    expect(failedSale.fiscal_information.signature_device_failed).toBe(true);
    const outage = await waitForRegistration(fx, (value) => value.reports.length === 1 && value.reports[0].status === 'reported', 15_000);
    expect(outage.reports[0]).toMatchObject({ type: 'outage', status: 'reported', reason: null });
    expect(Date.parse(outage.reports[0].occurred_at)).toBe(Date.parse(failedSale.fiscal_information.signed_at));

    await simulate(fx, { fiscal_device: 'ok' });
    const recovered = await autSale(t.app, fx, '2.00');
    expect(recovered.fiscal_information.signature_device_failed).toBe(false);
    const ended = await waitForRegistration(fx, (value) => value.reports.length === 2 && value.reports[1].status === 'reported');
    expect(ended.reports.map((report: any) => report.type)).toEqual(['outage', 'recovery']);
    await expectDepVerifies(fx);
    // One outage, one report: the scan does not report it again.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await t.database.prisma.finanzOnlineSubmission.count({ where: { registerId: fx.registerId, kind: 'outage' } })).toBe(1);
  });

  it('does not report a short outage', async () => {
    const fx = await autSetup(t.app, apiKey);
    await fiscalize(fx);
    await openSession(fx);
    await simulate(fx, { fiscal_device: 'unreachable' });
    await autSale(t.app, fx, '3.00');
    await simulate(fx, { fiscal_device: 'ok' });
    await autSale(t.app, fx, '3.00');
    await new Promise((resolve) => setTimeout(resolve, 1300));
    expect((await t.database.prisma.finanzOnlineSubmission.findMany({ where: { registerId: fx.registerId } })).map((row) => row.kind)).toEqual(['registration']);
  });

  it('reports the decommission when the closing receipt takes the register out of service', async () => {
    const fx = await autSetup(t.app, apiKey);
    await fiscalize(fx);
    await waitForRegistration(fx, (value) => value.status === 'registered');
    const closing = await postNullReceipt(t.app, fx.headers, fx.registerId, 'closing');
    expect(closing.statusCode).toBe(201);
    const registration = await waitForRegistration(fx, (value) => value.reports.some((report: any) => report.type === 'decommission' && report.status === 'reported'));
    expect(registration.reports).toMatchObject([{ type: 'decommission', status: 'reported', occurred_at: json(closing).signed_at }]);
    const submission = await t.database.prisma.finanzOnlineSubmission.findFirstOrThrow({ where: { registerId: fx.registerId, kind: 'decommission' } });
    expect(submission.stepsDone).toEqual(['decommission_cash_register', 'decommission_unit']);
  });
});

describe('the order of a register\'s submissions', () => {
  it('sends a register\'s submissions in order: the decommission waits while its registration waits for a login', async () => {
    const fx = await autSetup(t.app, apiKey);
    await fiscalize(fx);
    await simulate(fx, { authority: 'credential_error' });
    await waitForRegistration(fx, (value) => value.status === 'failed');
    expect((await postNullReceipt(t.app, fx.headers, fx.registerId, 'closing')).statusCode).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, 400));
    const waiting = await t.database.prisma.finanzOnlineSubmission.findMany({ where: { registerId: fx.registerId }, orderBy: { seq: 'asc' } });
    expect(waiting.map((row) => [row.kind, row.status, row.attempts])).toEqual([
      ['registration', 'blocked', 1],
      ['decommission', 'pending', 0],
    ]);
    await simulate(fx, { authority: 'ok' });
    const done = await waitForRegistration(fx, (value) => value.reports.some((report: any) => report.status === 'reported'));
    expect(done).toMatchObject({ status: 'registered', reports: [{ type: 'decommission', status: 'reported' }] });
    expect(Date.parse(done.reports[0].reported_at)).toBeGreaterThanOrEqual(Date.parse(done.registered_at));
  });
});

describe('the authority simulation', () => {
  it('takes the RKSV modes on an Austrian register and refuses them where the regime has none (422 naming the field)', async () => {
    const fx = await autSetup(t.app, apiKey);
    expect((await simulate(fx, { authority: 'timeout' })).statusCode).toBe(422);
    await fiscalize(fx);
    expect(json(await simulate(fx, { authority: 'credential_error' }))).toMatchObject({ authority: 'credential_error' });
  });

  it('never shows or logs the PIN', () => {
    expect(bodies.join('\n')).not.toContain(PIN);
    expect(logLines.join('\n')).not.toContain(PIN);
    expect(logLines.join('\n')).not.toContain('wrong-password');
  });
});
