import { mkdirSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { autSetup } from '../support/rksv.js';
import { createTenantWithKey, createTestApp, json, type TestApp } from '../support/testApp.js';
import { createAndCompleteSale, fiscalize, mustCreate, saleBody, sessionEvent, voidOp, type OperationsFixture, fiscalizedRegisterWithSession } from '../support/operations.js';
import { untar, verifyTseTar, type TarFile } from '../support/tseTar.js';

let t: TestApp;
let fx: OperationsFixture;
let serial: string;
const sales: { fiscal_information: { end_event: { signature_counter: number; signature: string; transaction_counter: number } } }[] = [];
const day = () => {
  const start = new Date();
  start.setUTCHours(0, 0, 0, 0);
  return { from: start.toISOString(), to: new Date(start.getTime() + 24 * 3600 * 1000).toISOString() };
};

async function waitForJob(id: string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = json(await t.app.inject({ method: 'GET', url: `/v1/exports/${id}`, headers: fx.headers }));
    if (job.status !== 'pending' || Date.now() > deadline) return job;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const requestExport = (payload: Record<string, unknown>) => t.app.inject({ method: 'POST', url: '/v1/exports', headers: fx.headers, payload: { type: 'tse_tar', ...payload } });

/** Runs an export to completion and downloads it through its signed link. */
async function exportTar(payload: Record<string, unknown>) {
  const created = await requestExport(payload);
  expect(created.statusCode).toBe(202);
  const job = await waitForJob(json(created).id);
  expect(job.status, JSON.stringify(job.error)).toBe('completed');
  const url = new URL(job.download_url);
  const download = await t.app.inject({ method: 'GET', url: url.pathname + url.search });
  expect(download.statusCode).toBe(200);
  return { job, download, files: await untar(download.rawPayload) };
}

beforeAll(async () => {
  t = await createTestApp({ EXPORT_POLL_MS: '100' });
  const tenant = await createTenantWithKey(t.database, 'DEU');
  fx = await fiscalizedRegisterWithSession(t.app, tenant.apiKey);
  serial = json(await t.app.inject({ method: 'GET', url: `/v1/registers/${fx.registerId}`, headers: fx.headers })).fiscalization.tse_serial;
  for (let i = 0; i < 50; i += 1) sales.push(await createAndCompleteSale(t.app, fx));
  // A fast machine signs all fifty within one second; the partial-range case needs a later second.
  await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 5));
  for (let i = 0; i < 3; i += 1) sales.push(await createAndCompleteSale(t.app, fx));
  const voided = await mustCreate(t.app, fx.headers, saleBody(fx.registerId));
  expect((await voidOp(t.app, fx.headers, voided)).statusCode).toBe(200);
  expect((await sessionEvent(t.app, fx.headers, fx.registerId, 'session_cash_count', { counted_closing_amount: '695.00' })).statusCode).toBe(201);
  expect((await sessionEvent(t.app, fx.headers, fx.registerId, 'session_close')).statusCode).toBe(201);
}, 120_000);
afterAll(() => t.close());

describe('TSE TAR export', () => {
  let files: TarFile[];

  it('exports the day as a TAR whose every log verifies with the certificate it carries', async () => {
    const { job, download, files: members } = await exportTar({ register_id: fx.registerId, ...day() });
    files = members;
    expect(job).toMatchObject({ type: 'tse_tar', register_id: fx.registerId });
    expect(download.headers['content-type']).toBe('application/x-tar');
    expect(download.headers['content-disposition']).toBe(`attachment; filename="tse_tar-${job.id}.tar"`);
    // POSIX ustar: "ustar\0" then version "00" in the first header block.
    expect(download.rawPayload.subarray(257, 265).toString('latin1')).toBe('ustar\u000000');

    const verdict = verifyTseTar(files, { expectFirstCounter: 1 });
    // TSE_TAR_SAMPLE_DIR=<dir> keeps the archive and its root certificate for an outside checker (TTC).
    if (process.env.TSE_TAR_SAMPLE_DIR) {
      mkdirSync(process.env.TSE_TAR_SAMPLE_DIR, { recursive: true });
      writeFileSync(`${process.env.TSE_TAR_SAMPLE_DIR}/tse-export.tar`, download.rawPayload);
      writeFileSync(`${process.env.TSE_TAR_SAMPLE_DIR}/root.pem`, verdict.rootPem!);
    }
    expect(verdict.problems).toEqual([]);
    expect(verdict.serialNumber).toBe(serial.toUpperCase());
    const rows = await t.database.prisma.tseTransaction.count({ where: { tse: { serialNumber: serial } } });
    // 50 sales and the cash count at least (the session's own events may sign too): a Start and a Finish each.
    expect(rows).toBeGreaterThanOrEqual(51);
    expect(verdict.logs).toHaveLength(2 * rows);
    expect(Math.max(...verdict.logs.map((log) => log.signatureCounter))).toBe(2 * rows);
    // Each sale's published Finish is in the archive, with the signature its receipt shows.
    for (const sale of sales) {
      const end = sale.fiscal_information.end_event;
      const log = verdict.logs.find((entry) => entry.signatureCounter === end.signature_counter);
      expect(log).toMatchObject({ operationType: 'FinishTransaction', transactionNumber: end.transaction_counter, processType: 'Kassenbeleg-V1' });
      expect(log!.signature.toString('base64')).toBe(end.signature);
    }
    // Certificates and info.csv first, then the logs by signature counter, as fiskaly's exports are laid out.
    expect(files.slice(0, 3).map((file) => file.name)).toEqual([`${serial.toUpperCase()}_X509.crt`, expect.stringMatching(/^[0-9A-F]{64}_X509\.crt$/), 'info.csv']);
    const counters = files.slice(3).map((file) => Number(/_Sig-(\d+)_/.exec(file.name)![1]));
    expect(counters).toEqual(counters.map((_, index) => index + 1));

  });

  it('fails the same verification when one byte of a signature or of processData changed', () => {
    const finishIndex = files.findIndex((file) => file.name.includes('_Finish_'));
    const flipped = (content: Buffer, at: number) => {
      const copy = Buffer.from(content);
      copy[at] ^= 0x01;
      return copy;
    };
    const withSignatureChanged = files.map((file, index) => (index === finishIndex ? { ...file, content: flipped(file.content, file.content.length - 1) } : file));
    expect(verifyTseTar(withSignatureChanged).problems).toEqual([`${files[finishIndex].name}: signature does not verify`, `${files[finishIndex].name}: signature does not verify with the certificate's key`]);

    const content = files[finishIndex].content;
    const processData = content.indexOf(Buffer.from('Beleg^'));
    expect(processData).toBeGreaterThan(0);
    const withDataChanged = files.map((file, index) => (index === finishIndex ? { ...file, content: flipped(content, processData + 7) } : file));
    expect(verifyTseTar(withDataChanged).problems).toEqual([`${files[finishIndex].name}: signature does not verify`, `${files[finishIndex].name}: signature does not verify with the certificate's key`]);
  });

  it('takes the TSE serial instead of register_id, in either case, and builds the same archive again', async () => {
    const first = await exportTar({ tss_serial_number: serial.toUpperCase(), ...day() });
    expect(first.job.register_id).toBe(fx.registerId);
    const again = await exportTar({ register_id: fx.registerId, ...day() });
    expect(again.download.rawPayload.equals(first.download.rawPayload)).toBe(true);
  });

  it('exports a partial range as a gapless run of counters that does not start at 1', async () => {
    const rows = await t.database.prisma.tseTransaction.findMany({ where: { tse: { serialNumber: serial } }, orderBy: { transactionNumber: 'asc' } });
    // Two transactions signed in the same second cannot be told apart by a range: start after the first second that has any.
    const later = rows.find((row) => row.startLogTime > rows[0].startLogTime)!;
    const { files: partial } = await exportTar({ register_id: fx.registerId, from: later.startLogTime.toISOString(), to: day().to });
    const verdict = verifyTseTar(partial, { expectFirstCounter: Number(later.startSignatureCounter) });
    expect(verdict.problems).toEqual([]);
    expect(verdict.logs.length).toBe(2 * rows.filter((row) => row.startLogTime >= later.startLogTime).length);
  });

  it('gives a TSE provisioned before certificates existed its chain once, at its first export', async () => {
    const tse = await t.database.prisma.tseDevice.findUniqueOrThrow({ where: { serialNumber: serial } });
    await t.database.prisma.tseDevice.update({ where: { id: tse.id }, data: { certificate: null, rootCertificate: null } });
    const { files: members } = await exportTar({ register_id: fx.registerId, ...day() });
    expect(verifyTseTar(members, { expectFirstCounter: 1 }).problems).toEqual([]);
    const issued = await t.database.prisma.tseDevice.findUniqueOrThrow({ where: { id: tse.id } });
    expect(issued.certificate).not.toBe(tse.certificate);
    expect(members[0].content.toString('ascii')).toBe(issued.certificate);
    const { files: next } = await exportTar({ register_id: fx.registerId, ...day() });
    expect(next[0].content.equals(members[0].content)).toBe(true);
  });

  describe('requests that name no German TSE', () => {
    const expectRefused = async (payload: Record<string, unknown>, status: number, field: string) => {
      const before = await t.database.prisma.exportJob.count();
      const response = await requestExport({ ...day(), ...payload });
      expect(response.statusCode, response.body).toBe(status);
      expect(json(response).details.field).toBe(field);
      expect(await t.database.prisma.exportJob.count()).toBe(before);
    };

    it('needs register_id or tss_serial_number, one of them', async () => {
      await expectRefused({}, 422, 'register_id');
      await expectRefused({ register_id: fx.registerId, tss_serial_number: serial }, 422, 'tss_serial_number');
    });

    it('refuses an unknown serial, a malformed one, and a serial for another type', async () => {
      await expectRefused({ tss_serial_number: 'ab'.repeat(32) }, 422, 'tss_serial_number');
      const malformed = await requestExport({ ...day(), tss_serial_number: 'not-a-serial' });
      expect(malformed.statusCode).toBe(400);
      expect(JSON.stringify(json(malformed).details)).toContain('tss_serial_number');
      await expectRefused({ type: 'dsfinvk', tss_serial_number: serial }, 422, 'tss_serial_number');
    });

    it('refuses a register that is not a KassenSichV one', async () => {
      const tenant = await createTenantWithKey(t.database, 'AUT');
      const aut = await autSetup(t.app, tenant.apiKey);
      expect((await fiscalize(t.app, aut.headers, aut.registerId)).statusCode).toBe(200);
      const before = await t.database.prisma.exportJob.count();
      const response = await t.app.inject({ method: 'POST', url: '/v1/exports', headers: aut.headers, payload: { type: 'tse_tar', register_id: aut.registerId, ...day() } });
      expect(response.statusCode).toBe(422);
      expect(json(response).details).toMatchObject({ field: 'register_id', register_id: aut.registerId });
      expect(await t.database.prisma.exportJob.count()).toBe(before);
    });
  });
});
