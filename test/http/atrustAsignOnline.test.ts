// Austria to production (issue 43, part 1): a register fiscalized with the A-Trust a.sign RK
// online driver signs through A-Trust's HSM (here the local fake of its RegistrierkasseMobile v2
// API) as an open system: suite R1-AT1, field 11 the certificate serial, receipts and the DEP7
// export verifying with the certificate's key in the independent verifier. When the unit is
// unreachable, hangs, answers 5xx or 401, receipts carry the failure marker and a signed
// collective receipt follows on recovery; the credentials appear nowhere.
import { mkdirSync, writeFileSync } from 'node:fs';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readZip } from '../exports/zipContents.js';
import { decodeCompactJws, verifyDep, verifyReceiptQr } from '../fiscal/independentRksv.js';
import { ATRUST_PASSWORD, ATRUST_USERNAME, FakeAtrust, type AtrustFault } from '../support/fakeAtrust.js';
import { expectApiError, idem, type OperationsFixture } from '../support/operations.js';
import { autSetup } from '../support/rksv.js';
import { mustCompleteRefund, mustRefund, organizationKey, orgAuth } from '../support/styleO.js';
import { autSale, journalTypes } from '../support/rksvJournal.js';
import { createTenantWithKey, createTestApp, json, type TestApp } from '../support/testApp.js';

const TIMEOUT_MS = 1000;

let t: TestApp;
let apiKey: string;
let tenantId: string;
let atrust: FakeAtrust;
const logLines: string[] = [];
const responses: string[] = [];

beforeAll(async () => {
  t = await createTestApp(
    { DEVICE_TIMEOUT_MS: String(TIMEOUT_MS), LOG_LEVEL: 'debug', EXPORT_POLL_MS: '100' },
    { logStream: { write: (line: string) => void logLines.push(line) } },
  );
  const tenant = await createTenantWithKey(t.database, 'AUT');
  apiKey = tenant.apiKey;
  tenantId = tenant.tenantId;
  atrust = await FakeAtrust.start();
});
afterAll(async () => {
  await atrust.close();
  await t.close();
});
beforeEach(() => atrust.clearFaults());

/** Every answer of the service is kept, to look for the credentials in them at the end. */
function kept(response: LightMyRequestResponse): LightMyRequestResponse {
  responses.push(response.body);
  return response;
}

const rksvBlock = (overrides: Record<string, unknown> = {}) => ({
  driver: 'atrust_asign_online',
  username: ATRUST_USERNAME,
  password: ATRUST_PASSWORD,
  base_url: atrust.baseUrl,
  ...overrides,
});

async function fiscalizeWith(fx: OperationsFixture, payload: unknown): Promise<LightMyRequestResponse> {
  return kept(await t.app.inject({ method: 'POST', url: `/v1/registers/${fx.registerId}/fiscalize`, headers: fx.headers, payload: payload as object }));
}

/** A register on the fake account with an open session. */
async function atrustRegister(): Promise<OperationsFixture & { register: any }> {
  const fx = await autSetup(t.app, apiKey);
  const fiscalized = await fiscalizeWith(fx, { rksv: rksvBlock() });
  if (fiscalized.statusCode !== 200) throw new Error(`fiscalize failed: ${fiscalized.body}`);
  const opened = await t.app.inject({
    method: 'POST',
    url: '/v1/operations',
    headers: { ...fx.headers, 'idempotency-key': idem() },
    payload: { type: 'session_open', register_id: fx.registerId, opening_amount: '100.00' },
  });
  if (opened.statusCode !== 201) throw new Error(`session_open failed: ${opened.body}`);
  return { ...fx, register: fiscalized.json() };
}

/** The register's DEP as an export holds it, with the crypto material the service serves for it. */
async function depOf(fx: OperationsFixture) {
  const material = kept(await t.app.inject({ method: 'GET', url: `/v1/registers/${fx.registerId}/rksv/crypto-material`, headers: fx.headers }));
  expect(material.statusCode).toBe(200);
  const receipts = await t.database.sql.query<{ jws: string }>('SELECT jws FROM rksv_receipts WHERE register_id = $1 ORDER BY receipt_number', [fx.registerId]);
  const dep = {
    'Belege-Gruppe': [{ Signaturzertifikat: atrust.certificateBase64, Zertifizierungsstellen: [atrust.rootBase64], 'Belege-kompakt': receipts.map((r) => r.jws) }],
  };
  return { dep, material: json(material) };
}

const isSign = (method: string, endpoint: string) => method === 'POST' && endpoint === 'Sign/JWS';

describe('fiscalizing an Austrian register with A-Trust a.sign RK online', () => {
  it('reads the certificate and the ZDA id, signs the start receipt with the unit and shows public identifiers only', async () => {
    const fx = await autSetup(t.app, apiKey);
    const before = atrust.calls.length;
    const response = await fiscalizeWith(fx, { rksv: rksvBlock() });
    expect(response.statusCode, response.body).toBe(200);
    const fiscalization = json(response).fiscalization;
    expect(fiscalization).toMatchObject({
      regime: 'RKSV',
      tse_serial: atrust.serialHex,
      rksv: {
        driver: 'atrust_asign_online',
        suite: 'R1-AT1',
        zda_id: 'AT1',
        signature_device_id: atrust.serialHex,
        certificate_serial: atrust.serialHex,
        certificate_serial_decimal: BigInt(`0x${atrust.serialHex}`).toString(),
        public_key: atrust.publicKeyBase64,
        turnover_counter_size: 8,
      },
    });
    const calls = atrust.calls.slice(before).map((call) => `${call.method} ${call.path}`);
    expect(calls).toEqual([
      `GET /RegistrierkasseMobile/v2/${ATRUST_USERNAME}/Certificate`,
      `GET /RegistrierkasseMobile/v2/${ATRUST_USERNAME}/ZDA`,
      `POST /RegistrierkasseMobile/v2/${ATRUST_USERNAME}/Sign/JWS`,
    ]);
    const start = decodeCompactJws(fiscalization.rksv.start_receipt.jws);
    expect(start.fields).toMatchObject({ suite: 'R1-AT1', keyId: atrust.serialHex, receiptNumber: '1' });
    expect(start.signatureFailed).toBe(false);
    expect(response.body).not.toContain(ATRUST_PASSWORD);
    expect(response.body).not.toContain(ATRUST_USERNAME);

    const [row] = await t.database.sql.query<{ driver: string; connection_enc: string; private_key_enc: string | null; certificate: string }>(
      'SELECT driver, connection_enc, private_key_enc, certificate FROM rksv_cash_registers WHERE register_id = $1',
      [fx.registerId],
    );
    expect(row).toMatchObject({ driver: 'atrust_asign_online', private_key_enc: null, certificate: atrust.certificateBase64 });
    expect(row!.connection_enc).toMatch(/^v1:/);
    expect(row!.connection_enc).not.toContain(ATRUST_PASSWORD);
  });

  it('keeps the software unit as the default, with or without a body', async () => {
    for (const payload of [undefined, { rksv: { driver: 'software' } }]) {
      const fx = await autSetup(t.app, apiKey);
      const response = await fiscalizeWith(fx, payload);
      expect(response.statusCode, response.body).toBe(200);
      expect(json(response).fiscalization.rksv).toMatchObject({ driver: 'software', suite: 'R1-AT0' });
    }
  });

  it('refuses a body that cannot work with 400 naming the field', async () => {
    const fx = await autSetup(t.app, apiKey);
    const { password: _password, ...withoutPassword } = rksvBlock();
    for (const [rksv, field] of [
      [withoutPassword, 'password'],
      [{ ...rksvBlock(), username: '' }, 'username'],
      [{ ...rksvBlock(), username: '../u1' }, 'username'],
      [{ ...rksvBlock(), base_url: 'ftp://a-trust' }, 'base_url'],
      [{ ...rksvBlock(), pin: '1234' }, 'pin'],
      [{ driver: 'primesign' }, 'driver'],
    ] as const) {
      const error = expectApiError(await fiscalizeWith(fx, { rksv }), 400, 'invalid_request');
      expect(JSON.stringify(error)).toContain(field);
    }
    const foreign = expectApiError(await fiscalizeWith(fx, { tse: { driver: 'software' } }), 422, 'validation_error');
    expect(foreign.details.field).toBe('tse');
  });

  it('refuses what A-Trust refuses or cannot answer with 422 naming the field, and writes nothing', async () => {
    const fx = await autSetup(t.app, apiKey);
    const cases: [Record<string, unknown>, (() => void) | null, string][] = [
      [{ username: 'u000000000' }, null, 'rksv.username'],
      [{ password: 'wrong-password' }, null, 'rksv.password'],
      [{ base_url: 'http://127.0.0.1:9' }, null, 'rksv.base_url'],
      [{}, () => atrust.failNext({ kind: 'status', status: 503 }, (method, endpoint) => endpoint === 'Certificate', 50), 'rksv.base_url'],
      [{}, () => atrust.failNext({ kind: 'hang' }, isSign), 'rksv.base_url'],
    ];
    for (const [overrides, arrange, field] of cases) {
      atrust.clearFaults();
      arrange?.();
      const error = expectApiError(await fiscalizeWith(fx, { rksv: rksvBlock(overrides) }), 422, 'validation_error');
      expect(error.details.field, JSON.stringify(error)).toBe(field);
      expect(JSON.stringify(error)).not.toContain(ATRUST_PASSWORD);
    }
    atrust.clearFaults();
    const register = json(await t.app.inject({ method: 'GET', url: `/v1/registers/${fx.registerId}`, headers: fx.headers }));
    expect(register.fiscalization_status).toBe('not_fiscalized');
    const rows = await t.database.sql.query('SELECT id FROM rksv_cash_registers WHERE register_id = $1', [fx.registerId]);
    expect(rows).toEqual([]);
    expect((await fiscalizeWith(fx, { rksv: rksvBlock() })).statusCode).toBe(200);
  });
});

describe('a register on A-Trust a.sign RK online', () => {
  it('signs sales whose receipts verify with the certificate’s key and carry its serial', async () => {
    const fx = await atrustRegister();
    const signaturesBefore = atrust.signatures;
    const sale = await autSale(t.app, fx, '12.40');
    const fiscal = sale.fiscal_information;
    expect(fiscal).toMatchObject({ suite: 'R1-AT1', signature_device_id: atrust.serialHex, signature_device_failed: false, public_key: atrust.publicKeyBase64 });
    expect(atrust.signatures).toBe(signaturesBefore + 1);
    const { material } = await depOf(fx);
    expect(verifyReceiptQr(fiscal.verification.qr_data, atrust.publicKeyBase64, material.base64AESKey, 1240n, 'open').errors).toEqual([]);
    expect(material.certificateOrPublicKeyMap[atrust.serialHex]).toEqual({
      id: atrust.serialHex,
      signatureDeviceType: 'CERTIFICATE',
      signatureCertificateOrPublicKey: atrust.certificateBase64,
    });
  });

  it('retries a 5xx and a dropped answer within the device timeout', async () => {
    const fx = await atrustRegister();
    atrust.failNext({ kind: 'status', status: 502 }, isSign);
    atrust.failNext({ kind: 'drop' }, isSign);
    const sale = await autSale(t.app, fx, '3.00');
    expect(sale.fiscal_information.signature_device_failed).toBe(false);
  });

  const faults: [string, AtrustFault, number][] = [
    ['unreachable (the connection is dropped on every try)', { kind: 'drop' }, 50],
    ['answering 5xx on every try', { kind: 'status', status: 503 }, 50],
    ['hanging past the device timeout', { kind: 'hang' }, 1],
    ['refusing the password (401)', { kind: 'status', status: 401, message: `password of ${ATRUST_USERNAME} wrong` }, 1],
  ];
  it.each(faults)('%s: the sale completes with the failure marker, and a signed collective receipt follows on recovery', async (_name, fault, times) => {
    const fx = await atrustRegister();
    await autSale(t.app, fx, '10.00');
    atrust.failNext(fault, isSign, times);
    const failed = await autSale(t.app, fx, '4.50');
    expect(failed.status).toBe('completed');
    expect(failed.fiscal_information).toMatchObject({ document_number: '3', signature_device_failed: true, suite: 'R1-AT1', signature_device_id: atrust.serialHex });
    expect(decodeCompactJws(failed.fiscal_information.jws).signatureFailed).toBe(true);

    atrust.clearFaults();
    const recovered = await autSale(t.app, fx, '2.00');
    expect(recovered.fiscal_information).toMatchObject({ document_number: '5', signature_device_failed: false });
    expect(await journalTypes(t.database, fx.registerId)).toEqual(['start', 'standard', 'standard', 'collective', 'standard']);

    const { dep, material } = await depOf(fx);
    const verified = verifyDep(dep, material, { counterBytes: 8 });
    expect(verified.errors).toEqual([]);
    expect(verified.receipts.map((receipt) => receipt.signatureFailed)).toEqual([false, false, true, false, false]);
    expect(verified.receipts.at(-1)!.counterCents).toBe(1650n);
  });

  it('exports a DEP7 whose receipts verify with the certificate it names', async () => {
    const fx = await atrustRegister();
    await autSale(t.app, fx, '7.20');
    atrust.failNext({ kind: 'status', status: 500 }, isSign, 50);
    await autSale(t.app, fx, '1.10');
    atrust.clearFaults();
    await autSale(t.app, fx, '5.00');
    const created = kept(
      await t.app.inject({
        method: 'POST',
        url: '/v1/exports',
        headers: fx.headers,
        payload: { type: 'rksv_dep7', register_id: fx.registerId, from: new Date(Date.now() - 3_600_000).toISOString(), to: new Date(Date.now() + 3_600_000).toISOString() },
      }),
    );
    expect(created.statusCode).toBe(202);
    let job = json(created);
    for (const deadline = Date.now() + 20_000; job.status === 'pending' && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      job = json(kept(await t.app.inject({ method: 'GET', url: `/v1/exports/${job.id}`, headers: fx.headers })));
    }
    expect(job.status, JSON.stringify(job.error)).toBe('completed');
    const url = new URL(job.download_url);
    const files = await readZip((await t.app.inject({ method: 'GET', url: url.pathname + url.search })).rawPayload);
    const kassenId = fx.register.fiscalization.client_id;
    const depText = files.get(`${kassenId}/dep-export.json`)!.toString('utf8');
    const materialText = files.get(`${kassenId}/cryptographicMaterialContainer.json`)!.toString('utf8');
    // RKSV_DEP_SAMPLE_DIR=<dir> keeps the export for an outside verifier (ztp-at/RKSV: verify.py <container> <dep>).
    if (process.env.RKSV_DEP_SAMPLE_DIR) {
      mkdirSync(process.env.RKSV_DEP_SAMPLE_DIR, { recursive: true });
      writeFileSync(`${process.env.RKSV_DEP_SAMPLE_DIR}/dep-export.json`, depText);
      writeFileSync(`${process.env.RKSV_DEP_SAMPLE_DIR}/cryptographicMaterialContainer.json`, materialText);
    }
    const group = JSON.parse(depText)['Belege-Gruppe'][0];
    expect(group.Signaturzertifikat).toBe(atrust.certificateBase64);
    expect(group.Zertifizierungsstellen).toEqual([atrust.rootBase64]);
    const verified = verifyDep(depText, materialText, { counterBytes: 8 });
    expect(verified.errors).toEqual([]);
    expect(verified.receipts.map((receipt) => receipt.kind)).toEqual(['start', 'standard', 'standard', 'null', 'standard']);
    for (const content of files.values()) {
      expect(content.toString('latin1')).not.toContain(ATRUST_PASSWORD);
      expect(content.toString('latin1')).not.toContain(ATRUST_USERNAME);
    }
  });
});

describe('a Style O refund that cannot be signed on an A-Trust register', () => {
  it('shows the RKSV failure variant with the register\'s suite R1-AT1 and the certificate serial', async () => {
    const fx = await atrustRegister();
    const sale = await autSale(t.app, fx, '3.60');
    const organization = orgAuth(await organizationKey(t.database, tenantId, fx.merchantId));
    const refund = await mustRefund(t.app, organization, fx.registerId, { original_operation_id: sale.id });
    await t.database.sql.query("UPDATE rksv_cash_registers SET status = 'closed' WHERE register_id = $1", [fx.registerId]);
    const failed = await mustCompleteRefund(t.app, organization, refund.id);
    await t.database.sql.query("UPDATE rksv_cash_registers SET status = 'active' WHERE register_id = $1", [fx.registerId]);
    expect(failed).toMatchObject({ fiscal_state: 'failed' });
    expect(failed.fiscal).toMatchObject({ regime: 'RKSV', suite: 'R1-AT1', signature_device_id: atrust.serialHex, transmission_status: 'failed', error: { reason: 'inactive' } });
  });
});

describe('the credentials', () => {
  it('appear in no response, log line or event', async () => {
    const fx = await atrustRegister();
    await autSale(t.app, fx, '2.50');
    kept(await t.app.inject({ method: 'GET', url: `/v1/registers/${fx.registerId}`, headers: fx.headers }));
    kept(await t.app.inject({ method: 'GET', url: '/v1/events', headers: fx.headers }));
    expect(logLines.length).toBeGreaterThan(0);
    for (const text of [...responses, ...logLines]) {
      expect(text).not.toContain(ATRUST_PASSWORD);
      expect(text).not.toContain(ATRUST_USERNAME);
    }
  });
});
