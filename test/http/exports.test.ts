import yauzl from 'yauzl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExportQueue } from '../../src/exports/exportQueue.js';
import { ExportWorker } from '../../src/exports/exportWorker.js';
import { createDsfinvkBuilder } from '../../src/exports/dsfinvkJob.js';
import { createTenantWithKey, createTestApp, json, type TestApp } from '../support/testApp.js';
import { createAndCompleteSale, createOperation, fiscalizedRegisterWithSession, type OperationsFixture } from '../support/operations.js';
import { mustCompleteRefund, mustRefund, orgAuth } from '../support/styleO.js';

let t: TestApp;
let fx: OperationsFixture;
let refundId: string;

async function unzipNames(buffer: Buffer): Promise<Map<string, string>> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.fromBuffer(buffer, { lazyEntries: true }, (error, file) => (error ? reject(error) : resolve(file!))),
  );
  const files = new Map<string, string>();
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      zip.openReadStream(entry, (error, stream) => {
        if (error) return reject(error);
        const parts: Buffer[] = [];
        stream!.on('data', (part: Buffer) => parts.push(part));
        stream!.on('end', () => {
          files.set(entry.fileName, Buffer.concat(parts).toString('utf8'));
          zip.readEntry();
        });
      });
    });
    zip.on('end', resolve);
    zip.on('error', reject);
    zip.readEntry();
  });
  return files;
}

async function waitForJob(id: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = json(await t.app.inject({ method: 'GET', url: `/v1/exports/${id}`, headers: fx.headers }));
    if (job.status !== 'pending' || Date.now() > deadline) return job;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const closeSession = async () => {
  const counted = await createOperation(t.app, fx.headers, { type: 'session_cash_count', register_id: fx.registerId, counted_closing_amount: '123.80' });
  expect(counted.statusCode).toBe(201);
  const closed = await createOperation(t.app, fx.headers, { type: 'session_close', register_id: fx.registerId });
  expect(closed.statusCode).toBe(201);
};

beforeAll(async () => {
  t = await createTestApp({ EXPORT_POLL_MS: '100' });
  const tenant = await createTenantWithKey(t.database, 'DEU');
  fx = await fiscalizedRegisterWithSession(t.app, tenant.apiKey);
  const sale = await createAndCompleteSale(t.app, fx);
  await createAndCompleteSale(t.app, fx);
  // A Style O refund of the first sale belongs to the same closing.
  const styleO = orgAuth(tenant.apiKey, fx.merchantId);
  const refund = await mustRefund(t.app, styleO, fx.registerId, { original_operation_id: sale.id, reason: 'damaged' });
  await mustCompleteRefund(t.app, styleO, refund.id);
  refundId = refund.id;
});
afterAll(() => t.close());

describe('export jobs', () => {
  it('rejects unknown types with 400 naming the field, and a known type without an exporter (dep) with 501', async () => {
    const unknown = await t.app.inject({ method: 'POST', url: '/v1/exports', headers: fx.headers, payload: { type: 'csv', from: '2026-01-01T00:00:00Z', to: '2026-12-31T00:00:00Z' } });
    expect(unknown.statusCode).toBe(400);
    expect(JSON.stringify(json(unknown).details)).toContain('type');
    const dep = await t.app.inject({ method: 'POST', url: '/v1/exports', headers: fx.headers, payload: { type: 'dep', from: '2026-01-01T00:00:00Z', to: '2026-12-31T00:00:00Z' } });
    expect(dep.statusCode).toBe(501);
    expect(json(dep)).toMatchObject({ code: 'not_implemented', retryable: true });
  });

  it('fails a job whose range holds a session that is not closed, naming it', async () => {
    const created = await t.app.inject({ method: 'POST', url: '/v1/exports', headers: fx.headers, payload: { type: 'dsfinvk', from: '2020-01-01T00:00:00Z', to: '2099-01-01T00:00:00Z' } });
    expect(created.statusCode).toBe(202);
    expect(json(created)).toMatchObject({ type: 'dsfinvk', status: 'pending' });
    expect(created.headers.location).toBe(`${t.app.ctx.publicBaseUrl}/v1/exports/${json(created).id}`);
    const job = await waitForJob(json(created).id);
    expect(job.status).toBe('failed');
    expect(job.error.details.unbuilt_session_ids).toHaveLength(1);
    // The failure says how to close a session.
    expect(job.error.message).toContain('session_cash_count');
    expect(job.error.message).toContain('session_close');
  });

  it('builds a ZIP behind a signed, expiring link once the session is closed', async () => {
    await closeSession();
    const created = await t.app.inject({
      method: 'POST',
      url: '/v1/exports',
      headers: fx.headers,
      payload: { type: 'dsfinvk', from: '2020-01-01T00:00:00Z', to: '2099-01-01T00:00:00Z', register_id: fx.registerId },
    });
    const job = await waitForJob(json(created).id);
    expect(job.status).toBe('completed');
    expect(job.register_id).toBe(fx.registerId);
    const url = new URL(job.download_url);
    const download = await t.app.inject({ method: 'GET', url: url.pathname + url.search });
    expect(download.statusCode).toBe(200);
    expect(download.headers['content-type']).toBe('application/zip');
    const files = await unzipNames(download.rawPayload);
    expect(files.has('index.xml')).toBe(true);
    expect(files.has('gdpdu-01-09-2004.dtd')).toBe(true);
    expect([...files.keys()].filter((name) => name.endsWith('.csv'))).toHaveLength(20);
    // Two sales, the refund, and the session's open, count and close: one Vorgang each.
    const transactions = files.get('transactions.csv')!.trim().split('\r\n');
    expect(transactions).toHaveLength(1 + 6);
    const refund = await t.database.prisma.operation.findUniqueOrThrow({ where: { id: refundId } });
    const rowsOf = (file: string) =>
      files
        .get(file)!
        .split('\r\n')
        .filter((line) => line.split(';')[3] === refund.id);
    expect(rowsOf('lines.csv').join('\n')).toContain(';Umsatz;');
    expect(rowsOf('lines_vat.csv').join('\n')).toContain('-11,90');
    expect(rowsOf('transactions_tse.csv')).toHaveLength(1);

    const tampered = new URL(url);
    tampered.searchParams.set('signature', `${url.searchParams.get('signature')!.slice(0, -2)}xx`);
    expect((await t.app.inject({ method: 'GET', url: tampered.pathname + tampered.search })).statusCode).toBe(403);
    const extended = new URL(url);
    extended.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
    expect((await t.app.inject({ method: 'GET', url: extended.pathname + extended.search })).statusCode).toBe(403);
    const expired = t.app.ctx.urlSigner.sign(`export:${job.id}`, -10);
    const old = await t.app.inject({ method: 'GET', url: `/v1/exports/${job.id}/download?expires=${expired.expires}&signature=${expired.signature}` });
    expect(old.statusCode).toBe(403);
    expect(json(old).details.reason).toBe('expired');
  });

  it('finishes a job whose worker died, and never lets two workers build one job', async () => {
    // A worker claimed the job and crashed: running, lease already expired. Written directly, so the
    // server's own worker cannot have claimed and finished it before the crash is staged.
    const id = 'exp_dead_worker';
    await t.database.prisma.exportJob.create({
      data: {
        id,
        merchantId: fx.merchantId,
        type: 'dsfinvk',
        status: 'running',
        workerId: 'dead-worker',
        attempts: 1,
        lockedUntil: new Date(Date.now() - 1000),
        fromTime: new Date('2020-01-01T00:00:00Z'),
        toTime: new Date('2099-01-01T00:00:00Z'),
      },
    });
    t.app.ctx.exportWorker?.wake();
    const job = await waitForJob(id);
    expect(job.status).toBe('completed');
    const row = await t.database.prisma.exportJob.findUniqueOrThrow({ where: { id } });
    expect(row.attempts).toBe(2);

    // The server's own worker polls the same queue and could claim the job first: stopped, only
    // the three claims below compete for it.
    await t.app.ctx.exportWorker?.stop();
    const queue = new ExportQueue(t.database.prisma, 30_000);
    await t.database.prisma.exportJob.create({
      data: { id: 'exp_concurrency', merchantId: fx.merchantId, type: 'dsfinvk', status: 'pending', fromTime: new Date(0), toTime: new Date() },
    });
    const claims = await Promise.all([queue.claim('a'), queue.claim('b'), queue.claim('c')]);
    expect(claims.filter((claim) => claim?.id === 'exp_concurrency')).toHaveLength(1);
    const worker = new ExportWorker({ queue, build: createDsfinvkBuilder(t.database.prisma), log: t.app.log, pollMs: 50, leaseMs: 30_000 });
    await worker.run(claims.find((claim) => claim?.id === 'exp_concurrency')!);
    expect((await t.database.prisma.exportJob.findUniqueOrThrow({ where: { id: 'exp_concurrency' } })).status).toBe('completed');
  });
});
