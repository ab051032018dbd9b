// Italy (issue 16, points 6-7): the daily closure of an RT register totals its fiscal day per rate
// and natura with returns, cash and electronic payments and the document count; numbering restarts
// at <day+1>-0001; the COR10 validates against the AdE schema (read from ../shared, never copied)
// and carries the device's enveloped XML-DSig signature; its transmission runs from the queue.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DOMParser } from '@xmldom/xmldom';
import { SignedXml } from 'xml-crypto';
import { validateXML } from 'xmllint-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createPeerApp, createTenantWithKey, createTestApp, json, type TestApp } from '../support/testApp.js';
import { AutomaticClosures } from '../../src/modules/dailyClosures/automaticClosures.js';
import { completeOp, createOperation, expectApiError, idem } from '../support/operations.js';
import { itaLine, itaMovement, itaRegisterWithSession } from '../support/rt.js';
import { requireTools } from '../support/tools.js';
import { JobQueue } from '../../src/db/jobQueue.js';
import { createTransmissionWorker } from '../../src/fiscal/rt/transmission/createTransmissionWorker.js';
import type { OperationsFixture } from '../support/operations.js';

const XSD_DIR = '../shared/reference/xsd/corrispettivi';

let t: TestApp;
let apiKey: string;

beforeAll(async () => {
  t = await createTestApp({ EXPORT_POLL_MS: '50', RT_TRANSMISSION_RETRY_MS: '50' });
  apiKey = (await createTenantWithKey(t.database, 'ITA')).apiKey;
});
afterAll(() => t.close());

const sell = async (fx: OperationsFixture, lines: ReturnType<typeof itaLine>[], payments: { method: string; amount: string }[]) => {
  const sale = json(await createOperation(t.app, fx.headers, itaMovement(fx, 'sale', lines)));
  const completed = await completeOp(t.app, fx.headers, sale, payments);
  expect(completed.statusCode).toBe(200);
  return json(completed);
};

const close = (fx: OperationsFixture) =>
  t.app.inject({ method: 'POST', url: `/v1/registers/${fx.registerId}/daily-closures`, headers: { ...fx.headers, 'idempotency-key': idem() } });

const cor10Of = async (fx: OperationsFixture, closure: { links: { cor10: string } }) => {
  const response = await t.app.inject({ method: 'GET', url: new URL(closure.links.cor10).pathname, headers: fx.headers });
  expect(response.statusCode).toBe(200);
  expect(response.headers['content-type']).toContain('application/xml');
  return response.body;
};

async function expectValidCor10(xml: string) {
  const result = await validateXML({
    xml: [{ fileName: 'cor10.xml', contents: xml }],
    schema: [{ fileName: 'CorrispettiviTypes_v1.0.xsd', contents: readFileSync(join(XSD_DIR, 'CorrispettiviTypes_v1.0.xsd'), 'utf8') }],
    preload: [{ fileName: 'xmldsig-core-schema.xsd', contents: readFileSync(join(XSD_DIR, 'xmldsig-core-schema.xsd'), 'utf8') }],
  });
  expect(result.errors).toEqual([]);
  expect(result.valid).toBe(true);
}

function expectSignedByItsCertificate(xml: string) {
  const document = new DOMParser().parseFromString(xml, 'text/xml');
  const signatureNode = document.getElementsByTagNameNS('http://www.w3.org/2000/09/xmldsig#', 'Signature')[0]!;
  const certificate = document.getElementsByTagNameNS('http://www.w3.org/2000/09/xmldsig#', 'X509Certificate')[0]!.textContent!;
  const verifier = new SignedXml({ publicCert: `-----BEGIN CERTIFICATE-----\n${certificate}\n-----END CERTIFICATE-----\n` });
  verifier.loadSignature(signatureNode);
  expect(verifier.checkSignature(xml)).toBe(true);
  expect(verifier.checkSignature(xml.replace('<Ammontare>', '<Ammontare>1'))).toBe(false);
}

const waitFor = async <T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 5000): Promise<T> => {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > until) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
};

/** One cash sale on `fx`'s register through `app`. */
async function sellCoffee(app: FastifyInstance, fx: OperationsFixture) {
  const sale = json(await createOperation(app, fx.headers, itaMovement(fx, 'sale', [itaLine('Caffè', '1.10', '0.10')])));
  expect((await completeOp(app, fx.headers, sale, [{ method: 'cash', amount: '1.10' }])).statusCode).toBe(200);
}

const getClosure = async (fx: OperationsFixture, id: string) => json(await t.app.inject({ method: 'GET', url: `/v1/daily-closures/${id}`, headers: fx.headers }));

describe('daily closure of an RT register', () => {
  it('totals the fiscal day per rate and natura with returns, payments and count, and restarts numbering at <day+1>-0001', async () => {
    const fx = await itaRegisterWithSession(t.app, apiKey);
    const first = await sell(fx, [itaLine('Caffè', '1.10', '0.10'), itaLine('Vino', '12.20', '0.22'), itaLine('Francobollo', '1.30', 'N1')], [{ method: 'cash', amount: '14.60' }]);
    await sell(fx, [itaLine('Vino', '24.40', '0.22')], [{ method: 'credit_card', amount: '24.40' }]);
    const returned = json(
      await createOperation(t.app, fx.headers, itaMovement(fx, 'return', [itaLine('Vino', '-12.20', '0.22')], { related_operation_id: first.id })),
    );
    expect((await completeOp(t.app, fx.headers, returned, [{ method: 'cash', amount: '-12.20' }])).statusCode).toBe(200);

    const response = await close(fx);
    expect(response.statusCode).toBe(201);
    const closure = json(response);
    expect(closure).toMatchObject({
      register_id: fx.registerId,
      fiscal_day: 1,
      document_count: 3,
      paid_cash: '2.40',
      paid_electronic: '24.40',
      totals: [
        { vat_rate: '0.22', amount: '30.00', tax: '4.40', returns: '10.00' },
        { vat_rate: '0.10', amount: '1.00', tax: '0.10', returns: '0.00' },
        { natura: 'N1', amount: '1.30', tax: '0.00', returns: '0.00' },
      ],
    });
    expect(closure.links.cor10).toMatch(new RegExp(`/v1/daily-closures/${closure.id}/cor10$`));

    const next = await sell(fx, [itaLine('Caffè', '1.10', '0.10')], [{ method: 'cash', amount: '1.10' }]);
    expect(next.fiscal_information.document_number).toBe('0002-0001');
    const register = json(await t.app.inject({ method: 'GET', url: `/v1/registers/${fx.registerId}`, headers: fx.headers }));
    expect(register.fiscalization.rt.fiscal_day).toBe(2);

    const second = json(await close(fx));
    expect(second).toMatchObject({ fiscal_day: 2, document_count: 1 });
    const list = json(await t.app.inject({ method: 'GET', url: `/v1/registers/${fx.registerId}/daily-closures`, headers: fx.headers }));
    expect(list.data.map((entry: { fiscal_day: number }) => entry.fiscal_day)).toEqual([2, 1]);
    expect(await getClosure(fx, closure.id)).toMatchObject({ id: closure.id, fiscal_day: 1 });
  });

  it('closes a day without documents too: the COR10 reports an inactive period with zero totals', async () => {
    const fx = await itaRegisterWithSession(t.app, apiKey);
    const closure = json(await close(fx));
    expect(closure).toMatchObject({ fiscal_day: 1, document_count: 0, totals: [], paid_cash: '0.00', paid_electronic: '0.00' });
    const xml = await cor10Of(fx, closure);
    expect(xml).toContain('<PeriodoInattivo>');
    await expectValidCor10(xml);
  });

  it('refuses a register that is not an RT register (422 naming register_id) and an unknown one (404)', async () => {
    const fx = await itaRegisterWithSession(t.app, apiKey);
    const unfiscalized = json(await t.app.inject({ method: 'POST', url: '/v1/registers', headers: fx.headers, payload: { location_id: fx.locationId, name: 'Cassa 2' } }));
    const refused = expectApiError(
      await t.app.inject({ method: 'POST', url: `/v1/registers/${unfiscalized.id}/daily-closures`, headers: { ...fx.headers, 'idempotency-key': idem() } }),
      422,
      'validation_error',
    );
    expect(refused.details.field).toBe('register_id');
    expect((await t.app.inject({ method: 'GET', url: '/v1/daily-closures/dcl_nothere', headers: fx.headers })).statusCode).toBe(404);
  });
});

describe('a failing RT device (sandbox simulation)', () => {
  const simulate = (fx: OperationsFixture, fiscalDevice: string) =>
    t.app.inject({ method: 'PUT', url: `/v1/registers/${fx.registerId}/simulation`, headers: fx.headers, payload: { fiscal_device: fiscalDevice } });

  it.each(['unreachable', 'timeout', 'reject_after_start'])('%s: the closure is 422 with the phase, nothing is closed, and it succeeds once the device is back', async (mode) => {
    const fx = await itaRegisterWithSession(t.app, apiKey);
    await sell(fx, [itaLine('Caffè', '1.10', '0.10')], [{ method: 'cash', amount: '1.10' }]);
    expect((await simulate(fx, mode)).statusCode).toBe(200);
    const refused = expectApiError(await close(fx), 422, 'validation_error');
    expect(refused.details).toMatchObject({ phase: mode === 'reject_after_start' ? 2 : 1, register_id: fx.registerId });
    const closures = async () => json(await t.app.inject({ method: 'GET', url: `/v1/registers/${fx.registerId}/daily-closures`, headers: fx.headers })).data;
    expect(await closures()).toEqual([]);
    const register = json(await t.app.inject({ method: 'GET', url: `/v1/registers/${fx.registerId}`, headers: fx.headers }));
    expect(register.fiscalization.rt.fiscal_day).toBe(1);

    await simulate(fx, 'ok');
    expect(json(await close(fx))).toMatchObject({ fiscal_day: 1, document_count: 1 });
  });
});

describe('the COR10 file', () => {
  it('validates against the AdE schema, carries no Dispositivo and is signed by the device certificate (xml-crypto and xmlsec1)', async (context) => {
    const fx = await itaRegisterWithSession(t.app, apiKey);
    await sell(fx, [itaLine('Caffè', '1.10', '0.10'), itaLine('Libro', '10.40', '0.04'), itaLine('Visita', '50.00', 'N4')], [{ method: 'cash', amount: '61.50' }]);
    const closure = json(await close(fx));
    const xml = await cor10Of(fx, closure);
    await expectValidCor10(xml);
    expect(xml).toContain('versione="COR10"');
    expect(xml).toContain('simulazione="true"');
    expect(xml).toContain('<Trasmissione><Progressivo>1</Progressivo><Formato>COR10</Formato></Trasmissione>');
    expect(xml).not.toContain('Dispositivo');
    expect(xml).toContain('<IVA><AliquotaIVA>10.00</AliquotaIVA><Imposta>0.10</Imposta></IVA><Ammontare>1.00</Ammontare>');
    expect(xml).toContain('<Natura>N4</Natura><Ammontare>50.00</Ammontare>');
    expect(xml).toContain('<Totali><NumeroDocCommerciali>1</NumeroDocCommerciali><PagatoContanti>61.50</PagatoContanti><PagatoElettronico>0.00</PagatoElettronico></Totali>');
    expectSignedByItsCertificate(xml);

    requireTools(context, 'xmlsec1');
    const dir = mkdtempSync(join(tmpdir(), 'cor10-'));
    writeFileSync(join(dir, 'cor10.xml'), xml);
    const verified = spawnSync('xmlsec1', ['--verify', '--enabled-key-data', 'x509', '--insecure', join(dir, 'cor10.xml')], { encoding: 'utf8' });
    expect(verified.stderr).toContain('OK');
    expect(verified.status).toBe(0);

    const second = json(await close(fx));
    expect(await cor10Of(fx, second)).toContain('<Progressivo>2</Progressivo>');
  });
});

describe('transmission to the authority', () => {
  const setAuthority = (fx: OperationsFixture, authority: string) =>
    t.app.inject({ method: 'PUT', url: `/v1/registers/${fx.registerId}/simulation`, headers: fx.headers, payload: { fiscal_device: 'ok', authority } });

  it('transmits a closure in the background (ok -> transmitted with transmitted_at)', async () => {
    const fx = await itaRegisterWithSession(t.app, apiKey);
    const closure = json(await close(fx));
    expect(closure.transmission).toEqual({ status: 'pending', transmitted_at: null, errors: [] });
    const done = await waitFor(() => getClosure(fx, closure.id), (value) => value.transmission.status === 'transmitted');
    expect(done.transmission.status).toBe('transmitted');
    expect(Date.parse(done.transmission.transmitted_at)).not.toBeNaN();
  });

  it('a rejected file is rejected with the errors and not retried', async () => {
    const fx = await itaRegisterWithSession(t.app, apiKey);
    expect(json(await setAuthority(fx, 'reject'))).toMatchObject({ authority: 'reject' });
    const closure = json(await close(fx));
    const done = await waitFor(() => getClosure(fx, closure.id), (value) => value.transmission.status === 'rejected');
    expect(done.transmission).toMatchObject({ status: 'rejected', transmitted_at: null, errors: [{ code: 'COR10_REJECTED' }] });
    const job = await t.database.prisma.rtTransmissionJob.findUniqueOrThrow({ where: { closureId: closure.id } });
    expect(job).toMatchObject({ status: 'done', attempts: 1 });
  });

  it('an unreachable authority fails the transmission, which is retried with backoff until transmitted', async () => {
    const fx = await itaRegisterWithSession(t.app, apiKey);
    await setAuthority(fx, 'unreachable');
    const closure = json(await close(fx));
    const failed = await waitFor(() => getClosure(fx, closure.id), (value) => value.transmission.status === 'failed');
    expect(failed.transmission).toMatchObject({ status: 'failed', errors: [{ code: 'AUTHORITY_UNREACHABLE' }] });
    await waitFor(() => t.database.prisma.rtTransmissionJob.findUniqueOrThrow({ where: { closureId: closure.id } }), (job) => job.attempts >= 3);
    await setAuthority(fx, 'ok');
    const done = await waitFor(() => getClosure(fx, closure.id), (value) => value.transmission.status === 'transmitted');
    expect(done.transmission).toMatchObject({ status: 'transmitted', errors: [] });
  });

  it('authority is for RT registers only (422 naming the field)', async () => {
    const fx = await itaRegisterWithSession(t.app, apiKey);
    const unfiscalized = json(await t.app.inject({ method: 'POST', url: '/v1/registers', headers: fx.headers, payload: { location_id: fx.locationId, name: 'Cassa 3' } }));
    const response = await t.app.inject({ method: 'PUT', url: `/v1/registers/${unfiscalized.id}/simulation`, headers: fx.headers, payload: { fiscal_device: 'ok', authority: 'reject' } });
    expect(expectApiError(response, 422, 'validation_error').details.field).toBe('authority');
  });
});

describe('a crash between closure and transmission', () => {
  it('loses nothing: the job written with the closure is transmitted by a fresh worker, also after a worker died holding it', async () => {
    const offline = await createTestApp({ EXPORT_WORKER: 'off' });
    try {
      const key = (await createTenantWithKey(offline.database, 'ITA')).apiKey;
      const fx = await itaRegisterWithSession(offline.app, key);
      const first = json(await offline.app.inject({ method: 'POST', url: `/v1/registers/${fx.registerId}/daily-closures`, headers: { ...fx.headers, 'idempotency-key': idem() } }));
      const second = json(await offline.app.inject({ method: 'POST', url: `/v1/registers/${fx.registerId}/daily-closures`, headers: { ...fx.headers, 'idempotency-key': idem() } }));
      expect(first.transmission.status).toBe('pending');
      // A worker claims one job and dies with it: its lease runs out.
      const dead = new JobQueue(offline.database.prisma, 'rt_transmission_jobs', 200);
      expect(await dead.claim('dead-worker')).not.toBeNull();

      const fresh = createTransmissionWorker(offline.database.prisma, { ...offline.config, exportPollMs: 50 }, offline.app.log);
      fresh.start();
      try {
        const status = async (id: string) => (await offline.database.prisma.rtDailyClosure.findUniqueOrThrow({ where: { id } })).transmissionStatus;
        expect(await waitFor(() => status(first.id), (value) => value === 'transmitted')).toBe('transmitted');
        expect(await waitFor(() => status(second.id), (value) => value === 'transmitted')).toBe('transmitted');
      } finally {
        await fresh.stop();
      }
    } finally {
      await offline.close();
    }
  });
});

describe('the automatic closure at RT_CLOSURE_TIME', () => {
  it('closes every RT register that issued documents that day, once, by the service clock (Europe/Rome)', async () => {
    let now = new Date('2026-01-15T21:00:00Z'); // 22:00 in Rome
    const timed = await createTestApp({ RT_CLOSURE_CHECK_MS: '50', EXPORT_POLL_MS: '50' }, { clock: () => now });
    try {
      const key = (await createTenantWithKey(timed.database, 'ITA')).apiKey;
      const busy = await itaRegisterWithSession(timed.app, key);
      const idle = await itaRegisterWithSession(timed.app, key);
      const sale = json(await createOperation(timed.app, busy.headers, itaMovement(busy, 'sale', [itaLine('Caffè', '1.10', '0.10')])));
      expect((await completeOp(timed.app, busy.headers, sale, [{ method: 'cash', amount: '1.10' }])).statusCode).toBe(200);
      const closures = async (fx: OperationsFixture) =>
        json(await timed.app.inject({ method: 'GET', url: `/v1/registers/${fx.registerId}/daily-closures`, headers: fx.headers })).data;

      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await closures(busy)).toEqual([]);

      now = new Date('2026-01-15T22:50:00Z'); // 23:50 in Rome
      const closed = await waitFor(() => closures(busy), (data) => data.length > 0);
      expect(closed).toMatchObject([{ fiscal_day: 1, document_count: 1, closed_at: now.toISOString() }]);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await closures(busy)).toHaveLength(1);
      expect(await closures(idle)).toEqual([]);
    } finally {
      await timed.close();
    }
  });

  it.skipIf(!process.env.DATABASE_URL)('two instances closing at the same moment make one closure per register (PostgreSQL)', { timeout: 60_000 }, async () => {
    let now = new Date('2026-01-16T21:00:00Z');
    const clock = () => now;
    // The instances' own timers stay out of the way: the test runs both checks at once, repeatedly.
    const timed = await createTestApp({ RT_CLOSURE_CHECK_MS: '3600000', EXPORT_WORKER: 'off' }, { clock });
    const peer = await createPeerApp(timed, { RT_CLOSURE_CHECK_MS: '3600000', EXPORT_WORKER: 'off' }, { clock });
    try {
      const key = (await createTenantWithKey(timed.database, 'ITA')).apiKey;
      const registers = await Promise.all(Array.from({ length: 6 }, () => itaRegisterWithSession(timed.app, key)));
      for (const fx of registers) await sellCoffee(timed.app, fx);
      now = new Date('2026-01-16T22:55:00Z');
      const checks = [timed.app, peer.app].map((app) => new AutomaticClosures(app.ctx, app.log));
      for (let round = 0; round < 3; round += 1) await Promise.all(checks.flatMap((check) => [check.closeDue(), check.closeDue()]));
      const rows = await timed.database.sql.query<{ register_id: string; fiscal_day: number }>(
        'SELECT register_id, fiscal_day FROM rt_daily_closures ORDER BY register_id',
      );
      expect(rows).toHaveLength(registers.length);
      expect(new Set(rows.map((row) => row.register_id)).size).toBe(registers.length);
      expect(rows.every((row) => row.fiscal_day === 1)).toBe(true);
    } finally {
      await peer.close();
      await timed.close();
    }
  });
});
