// Austria (issue 15 point 8): the rksv_dep7 export and GET /v1/registers/{id}/rksv/crypto-material.
// The ZIP's dep-export.json and cryptographicMaterialContainer.json are checked by the independent
// verifier (test/fiscal/independentRksv.ts), which shares no code with the signer or the exporter.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readZip } from '../exports/zipContents.js';
import { verifyDep } from '../fiscal/independentRksv.js';
import { completeOp, createOperation, expectApiError, fiscalizedRegisterWithSession, type OperationsFixture } from '../support/operations.js';
import { autLine, autRegisterWithSession, autSetup, depOf } from '../support/rksv.js';
import { createTenantWithKey, createTestApp, json, type TestApp } from '../support/testApp.js';

// Receipts are signed on the service clock, one minute apart, all within March 2026 (no monthly receipt falls due).
let now = new Date('2026-03-10T09:00:00Z');
const tick = () => {
  now = new Date(now.getTime() + 60_000);
};

let t: TestApp;
let apiKey: string;
let fx: OperationsFixture & { register: any };
/** The completed operations on fx's register, in signing order after the start receipt. */
let signed: { saleA: any; saleB: any; refund: any };

const FIVE_RATES = [
  autLine('Wein', '6.40', '0.20'),
  autLine('Melange', '4.90', '0.10'),
  autLine('Blumen', '11.30', '0.13'),
  autLine('Gutschein', '10.00', '0'),
  autLine('Zeitschrift', '3.57', '0.19'),
];
const total = (lines: { total_amount: string }[]) => lines.reduce((sum, line) => sum + Math.round(Number(line.total_amount) * 100), 0) / 100;

async function completed(fixture: OperationsFixture, body: Record<string, unknown> & { line_items: { total_amount: string }[] }) {
  tick();
  const created = await createOperation(t.app, fixture.headers, {
    source: 'POS',
    register_id: fixture.registerId,
    currency: 'EUR',
    total_amount: total(body.line_items).toFixed(2),
    ...body,
  });
  if (created.statusCode !== 201) throw new Error(`create failed: ${created.body}`);
  const done = await completeOp(t.app, fixture.headers, json(created));
  if (done.statusCode !== 200) throw new Error(`complete failed: ${done.body}`);
  return json(done);
}

async function waitForJob(headers: Record<string, string>, id: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = json(await t.app.inject({ method: 'GET', url: `/v1/exports/${id}`, headers }));
    if (job.status !== 'pending' || Date.now() > deadline) return job;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Requests an rksv_dep7 export, waits for it and returns the ZIP's files by name, as text. */
async function exportDep(headers: Record<string, string>, range: { from: string; to: string; register_id?: string }): Promise<Map<string, string>> {
  const created = await t.app.inject({ method: 'POST', url: '/v1/exports', headers, payload: { type: 'rksv_dep7', ...range } });
  expect(created.statusCode).toBe(202);
  expect(json(created)).toMatchObject({ type: 'rksv_dep7', status: 'pending' });
  const job = await waitForJob(headers, json(created).id);
  expect(job).toMatchObject({ status: 'completed', type: 'rksv_dep7' });
  const url = new URL(job.download_url);
  const download = await t.app.inject({ method: 'GET', url: url.pathname + url.search });
  expect(download.statusCode).toBe(200);
  expect(download.headers['content-type']).toBe('application/zip');
  const files = await readZip(download.rawPayload);
  return new Map([...files].map(([name, data]) => [name, data.toString('utf8')]));
}

const kassenIdOf = (fixture: { register: any }): string => fixture.register.fiscalization.client_id;
const belegeOf = (depText: string): string[] => JSON.parse(depText)['Belege-Gruppe'][0]['Belege-kompakt'];
const cryptoMaterial = (fixture: OperationsFixture) =>
  t.app.inject({ method: 'GET', url: `/v1/registers/${fixture.registerId}/rksv/crypto-material`, headers: fixture.headers });

async function fiscalizedSecondRegister(fixture: OperationsFixture, name: string) {
  const register = json(await t.app.inject({ method: 'POST', url: '/v1/registers', headers: fixture.headers, payload: { location_id: fixture.locationId, name } }));
  const fiscalized = await t.app.inject({ method: 'POST', url: `/v1/registers/${register.id}/fiscalize`, headers: fixture.headers });
  expect(fiscalized.statusCode).toBe(200);
  return { ...fixture, registerId: register.id as string, register: json(fiscalized) };
}

const WHOLE_2026 = { from: '2026-01-01T00:00:00Z', to: '2026-12-31T23:59:59Z' };

beforeAll(async () => {
  t = await createTestApp({ EXPORT_POLL_MS: '100' }, { clock: () => new Date(now) });
  apiKey = (await createTenantWithKey(t.database, 'AUT')).apiKey;
  fx = await autRegisterWithSession(t.app, apiKey);
  const saleA = await completed(fx, { type: 'sale', line_items: FIVE_RATES });
  const saleB = await completed(fx, { type: 'sale', line_items: [autLine('Kaffee', '3.20', '0.10'), autLine('Sekt', '7.50', '0.20')] });
  // A return: a Standardbeleg with negative amounts.
  const refund = await completed(fx, {
    type: 'return',
    related_operation_id: saleA.id,
    line_items: [autLine('Wein', '-6.40', '0.20'), autLine('Zeitschrift', '-3.57', '0.19')],
  });
  signed = { saleA, saleB, refund };
});
afterAll(() => t.close());

describe('the rksv_dep7 export', () => {
  it('holds <Kassen-ID>/dep-export.json and the crypto material, which the independent verifier accepts', async () => {
    const files = await exportDep(fx.headers, { ...WHOLE_2026, register_id: fx.registerId });
    const kassenId = kassenIdOf(fx);
    expect([...files.keys()].sort()).toEqual([`${kassenId}/cryptographicMaterialContainer.json`, `${kassenId}/dep-export.json`]);
    const depText = files.get(`${kassenId}/dep-export.json`)!;
    const container = files.get(`${kassenId}/cryptographicMaterialContainer.json`)!;
    expect(JSON.parse(depText)['Belege-Gruppe']).toEqual([{ Signaturzertifikat: '', Zertifizierungsstellen: [], 'Belege-kompakt': expect.any(Array) }]);

    const verified = verifyDep(depText, container, { counterBytes: 8 });
    expect(verified.errors).toEqual([]);
    expect(verified.receipts.map((receipt) => receipt.kind)).toEqual(['start', 'standard', 'standard', 'standard']);
    expect(verified.receipts.map((receipt) => receipt.receiptNumber)).toEqual(['1', '2', '3', '4']);
    // The return's amounts are negative, and the counter ends at the sum of all three operations.
    expect(verified.receipts[3]!.amountsCents.reduce((sum, cents) => sum + cents, 0n)).toBe(-997n);
    const sum = [signed.saleA, signed.saleB, signed.refund].reduce((cents, operation) => cents + BigInt(Math.round(Number(operation.total_amount) * 100)), 0n);
    expect(sum).toBe(3617n + 1070n - 997n);
    expect(verified.receipts.at(-1)!.counterCents).toBe(sum);

    // Exactly the journal, in signing order, and the JWS each operation published.
    const { dep } = await depOf(t.database, fx.registerId);
    expect(belegeOf(depText)).toEqual(dep['Belege-Gruppe'][0]!['Belege-kompakt']);
    expect(belegeOf(depText).slice(1)).toEqual([signed.saleA, signed.saleB, signed.refund].map((operation) => operation.fiscal_information.jws));

    // The endpoint serves the very container the ZIP holds.
    const endpoint = await cryptoMaterial(fx);
    expect(endpoint.statusCode).toBe(200);
    expect(endpoint.headers['cache-control']).toBe('private, no-store');
    expect(json(endpoint)).toEqual(JSON.parse(container));
    expect(json(endpoint)).toEqual((await depOf(t.database, fx.registerId)).cryptoMaterial);
  });

  it('exports a range that starts after the start receipt, which verifies as the continuation of the receipt before it', async () => {
    const files = await exportDep(fx.headers, {
      from: signed.saleB.fiscal_information.signed_at,
      to: signed.refund.fiscal_information.signed_at,
      register_id: fx.registerId,
    });
    const kassenId = kassenIdOf(fx);
    const depText = files.get(`${kassenId}/dep-export.json`)!;
    const container = files.get(`${kassenId}/cryptographicMaterialContainer.json`)!;
    expect(belegeOf(depText)).toEqual([signed.saleB.fiscal_information.jws, signed.refund.fiscal_information.jws]);
    // On its own such a DEP cannot verify: its first receipt is chained to the receipt before the
    // range (not to the Kassen-ID) and its counter starts from that receipt's. An auditor holds the
    // earlier DEP, so the verifier is given that receipt and the counter after it (continuesFrom).
    expect(verifyDep(depText, container, { counterBytes: 8 }).errors).not.toEqual([]);
    const verified = verifyDep(depText, container, {
      counterBytes: 8,
      continuesFrom: { jws: signed.saleA.fiscal_information.jws, counterCents: 3617n },
    });
    expect(verified.errors).toEqual([]);
    expect(verified.receipts.map((receipt) => receipt.receiptNumber)).toEqual(['3', '4']);
    expect(verified.receipts.at(-1)!.counterCents).toBe(3617n + 1070n - 997n);
  });

  it('holds an empty DEP for a range in which the register signed nothing', async () => {
    const files = await exportDep(fx.headers, { from: '2025-01-01T00:00:00Z', to: '2025-12-31T23:59:59Z', register_id: fx.registerId });
    const depText = files.get(`${kassenIdOf(fx)}/dep-export.json`)!;
    expect(JSON.parse(depText)).toEqual({ 'Belege-Gruppe': [{ Signaturzertifikat: '', Zertifizierungsstellen: [], 'Belege-kompakt': [] }] });
  });

  it('has one folder per RKSV register of the merchant without register_id, a register taken out of service included', async () => {
    const merchant = await autRegisterWithSession(t.app, apiKey);
    tick();
    const second = await fiscalizedSecondRegister(merchant, 'Kassa 2');
    expect((await createOperation(t.app, second.headers, { type: 'session_open', register_id: second.registerId, opening_amount: '50.00' })).statusCode).toBe(201);
    await completed(second, { type: 'sale', line_items: [autLine('Strudel', '4.50', '0.10')] });
    // The second register is taken out of service (what a closing receipt does): it keeps its crypto material and its DEP.
    await t.database.prisma.register.update({ where: { id: second.registerId }, data: { fiscalizationStatus: 'decommissioned', status: 'inactive' } });
    await t.database.sql.query("UPDATE rksv_cash_registers SET status = 'closed' WHERE register_id = $1", [second.registerId]);

    const files = await exportDep(merchant.headers, WHOLE_2026);
    const folders = [kassenIdOf(merchant), kassenIdOf(second)];
    expect(folders[0]).not.toBe(folders[1]);
    expect([...files.keys()].sort()).toEqual(folders.flatMap((id) => [`${id}/cryptographicMaterialContainer.json`, `${id}/dep-export.json`]).sort());
    for (const [index, id] of folders.entries()) {
      const verified = verifyDep(files.get(`${id}/dep-export.json`)!, files.get(`${id}/cryptographicMaterialContainer.json`)!, { counterBytes: 8 });
      expect(verified.errors).toEqual([]);
      expect(verified.receipts.map((receipt) => receipt.kind)).toEqual(index === 0 ? ['start'] : ['start', 'standard']);
    }
    const closed = await cryptoMaterial(second);
    expect(closed.statusCode).toBe(200);
    expect(json(closed)).toEqual(JSON.parse(files.get(`${folders[1]}/cryptographicMaterialContainer.json`)!));
  });

  it("never shows another merchant's registers, exports or crypto material", async () => {
    const other = await autRegisterWithSession(t.app, apiKey);
    const files = await exportDep(other.headers, WHOLE_2026);
    expect([...files.keys()].every((name) => name.startsWith(`${kassenIdOf(other)}/`))).toBe(true);
    expect(files.size).toBe(2);

    const foreignRegister = { ...other, registerId: fx.registerId };
    expectApiError(await cryptoMaterial(foreignRegister), 404, 'not_found');
    expectApiError(
      await t.app.inject({ method: 'POST', url: '/v1/exports', headers: other.headers, payload: { type: 'rksv_dep7', ...WHOLE_2026, register_id: fx.registerId } }),
      404,
      'not_found',
    );
    const mine = json(await t.app.inject({ method: 'POST', url: '/v1/exports', headers: fx.headers, payload: { type: 'rksv_dep7', ...WHOLE_2026 } }));
    expectApiError(await t.app.inject({ method: 'GET', url: `/v1/exports/${mine.id}`, headers: other.headers }), 404, 'not_found');
    await waitForJob(fx.headers, mine.id);
  });
});

describe('types and regimes that do not match', () => {
  let deu: OperationsFixture;
  beforeAll(async () => {
    deu = await fiscalizedRegisterWithSession(t.app, (await createTenantWithKey(t.database, 'DEU')).apiKey);
  });

  it('is 422 naming register_id for dsfinvk of an AUT register and rksv_dep7 of a DEU register', async () => {
    const dsfinvk = expectApiError(
      await t.app.inject({ method: 'POST', url: '/v1/exports', headers: fx.headers, payload: { type: 'dsfinvk', ...WHOLE_2026, register_id: fx.registerId } }),
      422,
      'validation_error',
    );
    expect(dsfinvk.details).toMatchObject({ field: 'register_id', register_id: fx.registerId });
    const dep = expectApiError(
      await t.app.inject({ method: 'POST', url: '/v1/exports', headers: deu.headers, payload: { type: 'rksv_dep7', ...WHOLE_2026, register_id: deu.registerId } }),
      422,
      'validation_error',
    );
    expect(dep.details).toMatchObject({ field: 'register_id', register_id: deu.registerId });
  });

  it('has crypto material only for fiscalized RKSV registers: 422 naming register_id otherwise, 404 for an unknown register', async () => {
    expect(expectApiError(await cryptoMaterial(deu), 422, 'validation_error').details.field).toBe('register_id');
    const notFiscalized = await autSetup(t.app, apiKey);
    expect(expectApiError(await cryptoMaterial(notFiscalized), 422, 'validation_error').details.field).toBe('register_id');
    expectApiError(await cryptoMaterial({ ...fx, registerId: 'reg_unknown' }), 404, 'not_found');
  });
});

describe('the OpenAPI document', () => {
  it('lists rksv_dep7 as an export type and describes the crypto-material route', async () => {
    const doc = json(await t.app.inject({ method: 'GET', url: '/openapi-json' }));
    const createExport = doc.paths['/v1/exports'].post;
    expect(createExport.operationId).toBe('createExport');
    expect(createExport.requestBody.content['application/json'].schema.properties.type.enum).toEqual(['dsfinvk', 'rksv_dep7', 'tse_tar', 'dep']);
    const crypto = doc.paths['/v1/registers/{id}/rksv/crypto-material'].get;
    expect(crypto.operationId).toBe('getRksvCryptoMaterial');
    expect(Object.keys(crypto.responses)).toEqual(expect.arrayContaining(['200', '404', '422']));
  });
});
