// Germany to production (issue 42): a register fiscalized with the fiskaly SIGN DE driver signs
// through a cloud TSS (here the local fake of its v2 API), whose signatures verify with the key
// the TSS reports; its faults leave the operation open with the documented reason and code, no
// transaction stays ACTIVE, a retry after a rolled-back completion does not sign twice, and the
// credentials appear nowhere.
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { completeOp, createOperation, expectApiError, getOp, idem, saleBody, type OperationsFixture } from '../support/operations.js';
import { auth, createDeuSetup, createTenantWithKey, createTestApp, json, type TestApp } from '../support/testApp.js';
import { API_KEY, API_SECRET, FakeFiskaly } from '../support/fakeFiskaly.js';
import { verifiesFiscalInformation, verifiesQrData } from '../fiscal/independentDtbs.js';
import { readZip } from '../exports/zipContents.js';
import { untar, verifyTseTar } from '../support/tseTar.js';

let t: TestApp;
let apiKey: string;
let fiskaly: FakeFiskaly;
const logLines: string[] = [];
const responses: string[] = [];

const TIMEOUT_MS = 1000;

beforeAll(async () => {
  t = await createTestApp({ DEVICE_TIMEOUT_MS: String(TIMEOUT_MS), LOG_LEVEL: 'debug', EXPORT_POLL_MS: '100' }, { logStream: { write: (line: string) => void logLines.push(line) } });
  apiKey = (await createTenantWithKey(t.database)).apiKey;
  fiskaly = await FakeFiskaly.start();
});
afterAll(async () => {
  await fiskaly.close();
  await t.close();
});
beforeEach(() => {
  fiskaly.clearFaults();
  fiskaly.tssState = 'INITIALIZED';
});

/** Every answer of the service is kept, to look for the credentials in them at the end. */
function kept(response: LightMyRequestResponse): LightMyRequestResponse {
  responses.push(response.body);
  return response;
}

const tseBlock = (overrides: Record<string, unknown> = {}) => ({
  driver: 'fiskaly_sign_de',
  api_key: API_KEY,
  api_secret: API_SECRET,
  tss_id: fiskaly.tssId,
  client_id: fiskaly.addClient(`Kasse ${fiskaly.clients.size + 1}`),
  base_url: fiskaly.baseUrl,
  ...overrides,
});

async function fiscalizeWith(fx: OperationsFixture, tse: unknown): Promise<LightMyRequestResponse> {
  return kept(await t.app.inject({ method: 'POST', url: `/v1/registers/${fx.registerId}/fiscalize`, headers: fx.headers, payload: { tse } }));
}

/** One merchant owns the fake's TSS; each test gets a register of its own at its location. */
let merchant: Omit<OperationsFixture, 'registerId'> | null = null;

async function plainDeuRegister(): Promise<OperationsFixture> {
  if (!merchant) {
    const setup = await createDeuSetup(t.app, apiKey);
    merchant = { merchantId: setup.merchantId, locationId: setup.locationId, headers: auth(apiKey, setup.merchantId) };
    return { ...merchant, registerId: setup.registerId };
  }
  const register = json(await t.app.inject({ method: 'POST', url: '/v1/registers', headers: merchant.headers, payload: { location_id: merchant.locationId, name: `Kasse ${idem()}` } }));
  return { ...merchant, registerId: register.id };
}

/** A register on the fake TSS with an open session. */
async function fiskalyRegister(): Promise<OperationsFixture & { register: any }> {
  const fx = await plainDeuRegister();
  const fiscalized = await fiscalizeWith(fx, tseBlock());
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

async function openSale(fx: OperationsFixture): Promise<any> {
  const created = kept(await createOperation(t.app, fx.headers, saleBody(fx.registerId)));
  expect(created.statusCode).toBe(201);
  return json(created);
}

async function complete(fx: OperationsFixture, sale: any): Promise<LightMyRequestResponse> {
  return kept(await completeOp(t.app, fx.headers, sale));
}

const isTxPut = (state: string) => (method: string, path: string, query: URLSearchParams) =>
  method === 'PUT' && path.includes('/tx/') && (state === 'ACTIVE' ? query.get('tx_revision') === '1' : query.get('tx_revision') !== '1');

describe('fiscalizing a German register with fiskaly SIGN DE', () => {
  it('reads the TSS and the client and shows them, but never the credentials', async () => {
    const fx = await plainDeuRegister();
    const block = tseBlock();
    const response = await fiscalizeWith(fx, block);
    expect(response.statusCode).toBe(200);
    const fiscalization = json(response).fiscalization;
    expect(fiscalization).toMatchObject({
      regime: 'KassenSichV',
      tse_serial: fiskaly.serialNumber,
      client_id: fiskaly.clients.get(block.client_id as string)!.serial,
      tse: {
        driver: 'fiskaly_sign_de',
        tss_id: fiskaly.tssId,
        client_id: block.client_id,
        serial: fiskaly.serialNumber,
        signature_algorithm: 'ecdsa-plain-SHA256',
        public_key: fiskaly.publicKey.toString('base64'),
        bsi_certification_id: 'BSI-K-TR-0000-0000',
      },
    });
    expect(response.body).not.toContain(API_KEY);
    expect(response.body).not.toContain(API_SECRET);
    const [device] = await t.database.sql.query<{ driver: string; connection_enc: string; private_key_enc: string | null }>(
      'SELECT driver, connection_enc, private_key_enc FROM tse_devices WHERE serial_number = $1',
      [fiskaly.serialNumber],
    );
    expect(device).toMatchObject({ driver: 'fiskaly_sign_de', private_key_enc: null });
    expect(device!.connection_enc).toMatch(/^v1:/);
    expect(device!.connection_enc).not.toContain(API_SECRET);
  });

  it('shows the software TSE as the default driver', async () => {
    const fx = await plainDeuRegister();
    const response = kept(await t.app.inject({ method: 'POST', url: `/v1/registers/${fx.registerId}/fiscalize`, headers: fx.headers }));
    expect(response.statusCode).toBe(200);
    const fiscalization = json(response).fiscalization;
    expect(fiscalization.tse).toEqual({ driver: 'software', serial: fiscalization.tse_serial, signature_algorithm: 'ecdsa-plain-SHA256' });
  });

  it('refuses a body that cannot work with 400 naming the field', async () => {
    const fx = await plainDeuRegister();
    for (const [tse, field] of [
      [{ driver: 'fiskaly_sign_de', api_key: API_KEY, tss_id: fiskaly.tssId, client_id: fiskaly.tssId }, 'api_secret'],
      [{ ...tseBlock(), tss_id: 'not-a-uuid' }, 'tss_id'],
      [{ ...tseBlock(), base_url: 'ftp://fiskaly' }, 'base_url'],
      [{ ...tseBlock(), admin_pin: '1234' }, 'admin_pin'],
      [{ driver: 'swissbit' }, 'driver'],
    ] as const) {
      const error = expectApiError(await fiscalizeWith(fx, tse), 400, 'invalid_request');
      expect(JSON.stringify(error)).toContain(field);
    }
    const foreign = expectApiError(kept(await t.app.inject({ method: 'POST', url: `/v1/registers/${fx.registerId}/fiscalize`, headers: fx.headers, payload: { rt: { driver: 'simulator' } } })), 422, 'validation_error');
    expect(foreign.details.field).toBe('rt');
  });

  it('refuses what fiskaly refuses with 422 naming the field and its code, and writes nothing', async () => {
    const fx = await plainDeuRegister();
    const cases: [Record<string, unknown>, string, Record<string, unknown>][] = [
      [{ api_secret: 'wrong-secret' }, 'tse.api_key', { vendor_code: 'E_UNAUTHORIZED', vendor_status: 401 }],
      [{ tss_id: '3f2b8c1e-0000-4000-8000-000000000000' }, 'tse.tss_id', { vendor_code: 'E_TSS_NOT_FOUND' }],
      [{ client_id: '3f2b8c1e-0000-4000-8000-000000000001' }, 'tse.client_id', { vendor_code: 'E_CLIENT_NOT_FOUND' }],
      [{ client_id: fiskaly.addClient('Kasse alt', 'DEREGISTERED') }, 'tse.client_id', { client_state: 'DEREGISTERED' }],
      [{ base_url: 'http://127.0.0.1:9' }, 'tse.base_url', { reason: 'unreachable' }],
    ];
    for (const [overrides, field, details] of cases) {
      const error = expectApiError(await fiscalizeWith(fx, tseBlock(overrides)), 422, 'validation_error');
      expect(error.details).toMatchObject({ field, ...details });
    }
    fiskaly.tssState = 'UNINITIALIZED';
    const uninitialized = expectApiError(await fiscalizeWith(fx, tseBlock()), 422, 'validation_error');
    expect(uninitialized.details).toMatchObject({ field: 'tse.tss_id', tss_state: 'UNINITIALIZED' });
    fiskaly.tssState = 'INITIALIZED';
    const register = json(await t.app.inject({ method: 'GET', url: `/v1/registers/${fx.registerId}`, headers: fx.headers }));
    expect(register.fiscalization_status).toBe('not_fiscalized');
    expect((await fiscalizeWith(fx, tseBlock())).statusCode).toBe(200);
  });
});

describe('a register on fiskaly SIGN DE', () => {
  it('signs a sale whose signature and QR code verify with the public key the TSS reports', async () => {
    const fx = await fiskalyRegister();
    const before = { transactions: fiskaly.transactionCounter, signatures: fiskaly.signatureCounter, calls: fiskaly.calls.length };
    const completed = await complete(fx, await openSale(fx));
    expect(completed.statusCode).toBe(200);
    const fiscal = json(completed).fiscal_information;
    expect(fiscal).toMatchObject({
      tss_serial_number: fiskaly.serialNumber,
      pos_client_serial_number: fx.register.fiscalization.client_id,
      signature_algorithm: 'ecdsa-plain-SHA256',
      time_format: 'unixTime',
      end_event: {
        transaction_counter: before.transactions + 1,
        signature_counter: before.signatures + 2,
        public_key: fiskaly.publicKey.toString('base64'),
        process_type: 'Kassenbeleg-V1',
        process_data: 'Beleg^11.90_0.00_0.00_0.00_0.00^11.90:Bar',
      },
    });
    expect(verifiesFiscalInformation(fiscal)).toBe(true);
    expect(verifiesQrData(fiscal.verification.qr_data)).toBe(true);
    const tx = [...fiskaly.transactions.values()].find((candidate) => candidate.number === fiscal.end_event.transaction_counter)!;
    expect(tx.logs.map((log) => [log.operation, log.signatureCounter])).toEqual([
      ['StartTransaction', before.signatures + 1],
      ['FinishTransaction', before.signatures + 2],
    ]);
    expect(tx.logs[1]!.signature).toBe(fiscal.end_event.signature);
    // One start and one finish, with the token of fiscalization: no new /auth.
    const calls = fiskaly.calls.slice(before.calls).map((call) => `${call.method} ${call.query.get('tx_revision') ?? call.path}`);
    expect(calls).toEqual(['PUT 1', 'PUT 2']);
    expect(fiskaly.activeTransactions()).toEqual([]);
    const [row] = await t.database.sql.query<{ transaction_number: string; finish_signature: string }>(
      'SELECT transaction_number::text, finish_signature FROM tse_transactions WHERE finish_signature = $1',
      [fiscal.end_event.signature],
    );
    expect(row!.transaction_number).toBe(String(fiscal.end_event.transaction_counter));
  });

  it('renews an expired token once, transparently', async () => {
    const fx = await fiskalyRegister();
    fiskaly.expireTokens();
    const before = fiskaly.calls.length;
    expect((await complete(fx, await openSale(fx))).statusCode).toBe(200);
    expect(fiskaly.calls.slice(before).map((call) => `${call.method} ${call.status}`)).toEqual(['PUT 401', 'POST 200', 'PUT 200', 'PUT 200']);
  });

  it('retries a 5xx and a 429 within the device timeout', async () => {
    const fx = await fiskalyRegister();
    fiskaly.failNext({ kind: 'status', status: 503, code: 'E_UNAVAILABLE' }, isTxPut('FINISHED'));
    fiskaly.failNext({ kind: 'status', status: 429, code: 'E_RATE_LIMIT', retryAfter: '0' }, isTxPut('ACTIVE'));
    expect((await complete(fx, await openSale(fx))).statusCode).toBe(200);
    expect(fiskaly.activeTransactions()).toEqual([]);
  });

  it('answers a lost finish by repeating it, which signs nothing twice', async () => {
    const fx = await fiskalyRegister();
    fiskaly.failNext({ kind: 'drop_answer' }, isTxPut('FINISHED'));
    const signaturesBefore = fiskaly.signatureCounter;
    const completed = await complete(fx, await openSale(fx));
    expect(completed.statusCode).toBe(200);
    expect(fiskaly.signatureCounter).toBe(signaturesBefore + 2);
    expect(verifiesFiscalInformation(json(completed).fiscal_information)).toBe(true);
  });

  const faults: { name: string; arrange: () => void; phase: 1 | 2; reason: string; details: Record<string, unknown> }[] = [
    {
      name: 'fiskaly failing with 5xx on every try',
      arrange: () => fiskaly.failNext({ kind: 'status', status: 502, code: 'E_BAD_GATEWAY' }, isTxPut('ACTIVE'), 50),
      phase: 1,
      reason: 'unreachable',
      details: { vendor_status: 502, vendor_code: 'E_BAD_GATEWAY' },
    },
    {
      name: 'a 429 asking to wait longer than the device timeout',
      arrange: () => fiskaly.failNext({ kind: 'status', status: 429, code: 'E_RATE_LIMIT', retryAfter: '30' }, isTxPut('ACTIVE')),
      phase: 1,
      reason: 'rate_limited',
      details: { vendor_status: 429, vendor_code: 'E_RATE_LIMIT' },
    },
    {
      name: 'a disabled TSS',
      arrange: () => (fiskaly.tssState = 'DISABLED'),
      phase: 1,
      reason: 'rejected',
      details: { vendor_code: 'E_TSS_DISABLED' },
    },
    {
      name: 'an uninitialised TSS',
      arrange: () => (fiskaly.tssState = 'UNINITIALIZED'),
      phase: 1,
      reason: 'rejected',
      details: { vendor_code: 'E_TSS_NOT_INITIALIZED' },
    },
    {
      name: 'credentials fiskaly stopped accepting',
      arrange: () => {
        fiskaly.expireTokens();
        // A vendor message that echoes the key must not carry it into the answer.
        fiskaly.failNext({ kind: 'status', status: 401, code: 'E_UNAUTHORIZED', message: `api_key ${API_KEY} is revoked` }, (method, path) => method === 'POST' && path.endsWith('/auth'));
      },
      phase: 1,
      reason: 'unauthorized',
      details: { vendor_status: 401, vendor_code: 'E_UNAUTHORIZED' },
    },
    {
      name: 'fiskaly hanging at the start',
      arrange: () => fiskaly.failNext({ kind: 'hang' }, isTxPut('ACTIVE')),
      phase: 1,
      reason: 'timeout',
      details: {},
    },
    {
      name: 'fiskaly hanging at the finish',
      arrange: () => fiskaly.failNext({ kind: 'hang' }, isTxPut('FINISHED')),
      phase: 2,
      reason: 'timeout',
      details: {},
    },
    {
      name: 'fiskaly refusing the finish',
      arrange: () => fiskaly.failNext({ kind: 'status', status: 400, code: 'E_SCHEMA_INVALID' }, isTxPut('FINISHED')),
      phase: 2,
      reason: 'rejected',
      details: { vendor_code: 'E_SCHEMA_INVALID', vendor_status: 400 },
    },
  ];

  for (const fault of faults) {
    it(`leaves the sale open on ${fault.name} (422, phase ${fault.phase}, ${fault.reason}) and signs it once the fault clears`, async () => {
      const fx = await fiskalyRegister();
      const sale = await openSale(fx);
      fault.arrange();
      const error = expectApiError(await complete(fx, sale), 422, 'validation_error');
      expect(error.details).toMatchObject({ phase: fault.phase, reason: fault.reason, ...fault.details });
      expect(json(await getOp(t.app, fx.headers, sale.id)).status).toBe('open');
      expect(fiskaly.activeTransactions()).toEqual([]);
      fiskaly.clearFaults();
      fiskaly.tssState = 'INITIALIZED';
      const retried = await complete(fx, json(await getOp(t.app, fx.headers, sale.id)));
      expect(retried.statusCode).toBe(200);
      expect(verifiesFiscalInformation(json(retried).fiscal_information)).toBe(true);
      expect(fiskaly.activeTransactions()).toEqual([]);
    });
  }

  it('leaves the sale open when the client was deregistered (phase 1, the vendor’s code)', async () => {
    const fx = await fiskalyRegister();
    const sale = await openSale(fx);
    const client = fiskaly.clients.get(fx.register.fiscalization.tse.client_id)!;
    client.state = 'DEREGISTERED';
    const error = expectApiError(await complete(fx, sale), 422, 'validation_error');
    expect(error.details).toMatchObject({ phase: 1, reason: 'rejected', vendor_code: 'E_CLIENT_NOT_REGISTERED' });
    client.state = 'REGISTERED';
    expect((await complete(fx, json(await getOp(t.app, fx.headers, sale.id)))).statusCode).toBe(200);
  });

  it('reuses the finished transaction when the completion rolled back after fiskaly signed', async () => {
    const fx = await fiskalyRegister();
    const sale = await openSale(fx);
    // The first write of a signed transaction fails (a sequence is not rolled back), so the completion rolls back after the finish.
    await t.database.sql.query('CREATE SEQUENCE fail_first_tse_write');
    await t.database.sql.query(`CREATE FUNCTION fail_first_tse_write() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF nextval('fail_first_tse_write') = 1 THEN RAISE EXCEPTION 'database failure after signing'; END IF; RETURN NEW; END $$`);
    await t.database.sql.query('CREATE TRIGGER fail_first_tse_write BEFORE INSERT ON tse_transactions FOR EACH ROW EXECUTE FUNCTION fail_first_tse_write()');
    try {
      const failed = await complete(fx, sale);
      expect(failed.statusCode).toBe(500);
      expect(json(await getOp(t.app, fx.headers, sale.id)).status).toBe('open');
      const finishesBefore = fiskaly.transactionPuts('FINISHED').length;
      const signaturesBefore = fiskaly.signatureCounter;
      const retried = await complete(fx, json(await getOp(t.app, fx.headers, sale.id)));
      expect(retried.statusCode).toBe(200);
      expect(fiskaly.signatureCounter).toBe(signaturesBefore);
      expect(fiskaly.transactionPuts('FINISHED').length).toBe(finishesBefore);
      const fiscal = json(retried).fiscal_information;
      expect(verifiesFiscalInformation(fiscal)).toBe(true);
      const tx = [...fiskaly.transactions.values()].find((candidate) => candidate.number === fiscal.end_event.transaction_counter)!;
      expect(tx.logs).toHaveLength(2);
      expect(tx.logs[1]!.signature).toBe(fiscal.end_event.signature);
    } finally {
      await t.database.sql.query('DROP TRIGGER fail_first_tse_write ON tse_transactions');
      await t.database.sql.query('DROP FUNCTION fail_first_tse_write()');
      await t.database.sql.query('DROP SEQUENCE fail_first_tse_write');
    }
  });

  it('finishes a transaction an earlier attempt left active', async () => {
    const fx = await fiskalyRegister();
    const sale = await openSale(fx);
    // The finish hangs and so does the cancellation after it: the transaction stays ACTIVE at fiskaly.
    fiskaly.failNext({ kind: 'hang' }, isTxPut('FINISHED'), 2);
    expectApiError(await complete(fx, sale), 422, 'validation_error');
    expect(fiskaly.activeTransactions()).toHaveLength(1);
    fiskaly.clearFaults();
    const signaturesBefore = fiskaly.signatureCounter;
    const retried = await complete(fx, json(await getOp(t.app, fx.headers, sale.id)));
    expect(retried.statusCode).toBe(200);
    expect(fiskaly.signatureCounter).toBe(signaturesBefore + 1);
    expect(fiskaly.activeTransactions()).toEqual([]);
  });
});

describe('the DSFinV-K export of a register on fiskaly SIGN DE', () => {
  it('names the TSS in tse.csv and its signatures in transactions_tse.csv, the cash count signed too', async () => {
    const fx = await fiskalyRegister();
    const sale = json(await complete(fx, await openSale(fx))).fiscal_information;
    for (const payload of [
      { type: 'session_cash_count', register_id: fx.registerId, counted_closing_amount: '111.90' },
      { type: 'session_close', register_id: fx.registerId },
    ]) {
      expect(kept(await createOperation(t.app, fx.headers, payload)).statusCode).toBe(201);
    }
    const created = kept(await t.app.inject({
      method: 'POST',
      url: '/v1/exports',
      headers: fx.headers,
      payload: { type: 'dsfinvk', from: '2020-01-01T00:00:00Z', to: '2099-01-01T00:00:00Z', register_id: fx.registerId },
    }));
    expect(created.statusCode).toBe(202);
    let job = json(created);
    for (const deadline = Date.now() + 20_000; job.status === 'pending' && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      job = json(await t.app.inject({ method: 'GET', url: `/v1/exports/${job.id}`, headers: fx.headers }));
    }
    expect(job.status).toBe('completed');
    const url = new URL(job.download_url);
    const files = await readZip((await t.app.inject({ method: 'GET', url: url.pathname + url.search })).rawPayload);
    const tseCsv = files.get('tse.csv')!.toString('utf8');
    expect(tseCsv).toContain(fiskaly.serialNumber);
    expect(tseCsv).toContain(fiskaly.publicKey.toString('base64'));
    const transactionsTse = files.get('transactions_tse.csv')!.toString('utf8');
    expect(transactionsTse).toContain(sale.end_event.signature);
    expect(transactionsTse).toContain('SonstigerVorgang');
    for (const content of files.values()) {
      expect(content.toString('latin1')).not.toContain(API_KEY);
      expect(content.toString('latin1')).not.toContain(API_SECRET);
    }
  });
});

/** Runs an export of the register's TSE to its end; the job as it ended. */
async function exportTseTar(fx: OperationsFixture, range: { from: string; to: string }): Promise<any> {
  const created = kept(await t.app.inject({ method: 'POST', url: '/v1/exports', headers: fx.headers, payload: { type: 'tse_tar', register_id: fx.registerId, ...range } }));
  expect(created.statusCode).toBe(202);
  let job = json(created);
  for (const deadline = Date.now() + 20_000; job.status === 'pending' && Date.now() < deadline; ) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    job = json(kept(await t.app.inject({ method: 'GET', url: `/v1/exports/${job.id}`, headers: fx.headers })));
  }
  return job;
}

describe('the TSE TAR export of a register on fiskaly SIGN DE', () => {
  it('is the TSS’s own export, fetched from fiskaly, whose every log verifies with the TSS’s certificate', async () => {
    const fx = await fiskalyRegister();
    const signed: any[] = [];
    for (let i = 0; i < 3; i += 1) signed.push(json(await complete(fx, await openSale(fx))).fiscal_information);
    const from = new Date(Date.now() - 3_600_000);
    const to = new Date(Date.now() + 3_600_000);
    const job = await exportTseTar(fx, { from: from.toISOString(), to: to.toISOString() });
    expect(job.status, JSON.stringify(job.error)).toBe('completed');

    const trigger = fiskaly.calls.find((call) => call.method === 'PUT' && call.path.includes('/export/'))!;
    expect(trigger.query.get('start_date')).toBe(String(Math.floor(from.getTime() / 1000)));
    expect(trigger.query.get('end_date')).toBe(String(Math.ceil(to.getTime() / 1000) - 1));
    expect(fiskaly.exports.get(trigger.path.split('/').pop()!)!.state).toBe('COMPLETED');

    const url = new URL(job.download_url);
    const download = await t.app.inject({ method: 'GET', url: url.pathname + url.search });
    expect(download.headers['content-type']).toBe('application/x-tar');
    const verdict = verifyTseTar(await untar(download.rawPayload));
    expect(verdict.problems).toEqual([]);
    expect(verdict.serialNumber).toBe(fiskaly.serialNumber.toUpperCase());
    const finishes = verdict.logs.filter((log) => log.operationType === 'FinishTransaction').map((log) => log.signature.toString('base64'));
    for (const fiscal of signed) expect(finishes).toContain(fiscal.end_event.signature);
    expect(download.rawPayload.toString('latin1')).not.toContain(API_SECRET);
  });

  it('fails the job with fiskaly’s state when fiskaly ends the export without a file', async () => {
    const fx = await fiskalyRegister();
    fiskaly.exportEndsIn = 'ERROR';
    try {
      const job = await exportTseTar(fx, { from: '2020-01-01T00:00:00Z', to: '2099-01-01T00:00:00Z' });
      expect(job.status).toBe('failed');
      expect(job.error.details).toMatchObject({ vendor_state: 'ERROR' });
    } finally {
      fiskaly.exportEndsIn = null;
    }
  });

  it('repeats a download fiskaly answered with a 5xx, in the job’s next attempt', async () => {
    const fx = await fiskalyRegister();
    const before = fiskaly.calls.length;
    fiskaly.failNext({ kind: 'status', status: 503, code: 'E_UNAVAILABLE' }, (method, path) => method === 'GET' && path.endsWith('/file'));
    const job = await exportTseTar(fx, { from: '2020-01-01T00:00:00Z', to: '2099-01-01T00:00:00Z' });
    expect(job.status, JSON.stringify(job.error)).toBe('completed');
    const downloads = fiskaly.calls.slice(before).filter((call) => call.method === 'GET' && call.path.endsWith('/file'));
    expect(downloads.map((call) => call.status)).toEqual([503, 200]);
  });
});

describe('the credentials', () => {
  it('appear in no response, log line or event', async () => {
    const fx = await fiskalyRegister();
    expect((await complete(fx, await openSale(fx))).statusCode).toBe(200);
    const events = kept(await t.app.inject({ method: 'GET', url: '/v1/events', headers: fx.headers }));
    expect(events.statusCode).toBe(200);
    const register = kept(await t.app.inject({ method: 'GET', url: `/v1/registers/${fx.registerId}`, headers: fx.headers }));
    expect(register.statusCode).toBe(200);
    expect(logLines.length).toBeGreaterThan(0);
    for (const text of [...responses, ...logLines]) {
      expect(text).not.toContain(API_KEY);
      expect(text).not.toContain(API_SECRET);
    }
  });
});
