// GET /v1/exports: a merchant's export jobs, newest first, filtered by type,
// status and register_id, in cursor pages like GET /v1/operations.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenantWithKey, createTestApp, expectError, json, type TestApp } from '../support/testApp.js';
import { fiscalize, plainRegister, type OperationsFixture } from '../support/operations.js';

let t: TestApp;
let a: OperationsFixture;
let b: OperationsFixture;
let all: any[];

const list = (query = '', headers = a.headers) => t.app.inject({ method: 'GET', url: `/v1/exports${query ? `?${query}` : ''}`, headers });
const ids = (jobs: any[]) => jobs.map((job) => job.id);

async function startExport(fx: OperationsFixture, registerId?: string) {
  const response = await t.app.inject({
    method: 'POST',
    url: '/v1/exports',
    headers: fx.headers,
    payload: { type: 'dsfinvk', from: '2026-01-01T00:00:00Z', to: '2026-01-31T23:59:59Z', ...(registerId ? { register_id: registerId } : {}) },
  });
  expect(response.statusCode, response.body).toBe(202);
  return json(response).id as string;
}

/** Stages what a worker would have done to a job. */
const stage = (id: string, data: { status: string; completedAt?: Date; byteSize?: bigint; error?: object }) =>
  t.database.prisma.exportJob.update({ where: { id }, data });

beforeAll(async () => {
  // No worker: the jobs keep the statuses staged here.
  t = await createTestApp({ EXPORT_WORKER: 'off' });
  const apiKey = (await createTenantWithKey(t.database, 'DEU')).apiKey;
  a = await plainRegister(t.app, apiKey);
  b = await plainRegister(t.app, apiKey);
  expect((await fiscalize(t.app, a.headers, a.registerId)).statusCode).toBe(200);

  const created: string[] = [];
  for (let i = 0; i < 7; i++) created.push(await startExport(a, i % 3 === 0 ? a.registerId : undefined));
  await stage(created[1], { status: 'completed', completedAt: new Date(), byteSize: 22n });
  await stage(created[2], { status: 'failed', completedAt: new Date(), error: { message: 'A session in the range is not closed' } });
  await stage(created[3], { status: 'running' });
  // Another merchant's jobs never show.
  await startExport(b);
  await startExport(b);

  const response = await list('limit=200');
  expect(response.statusCode).toBe(200);
  const body = json(response);
  expect(body.cursor).toBeNull();
  all = body.data;
  expect(new Set(ids(all))).toEqual(new Set(created));
});
afterAll(() => t.close());

describe('listing', () => {
  it('lists every job of the merchant, newest first, each as GET /v1/exports/{id} shows it', async () => {
    expect(all).toHaveLength(7);
    for (let i = 1; i < all.length; i++) {
      const [newer, older] = [all[i - 1], all[i]];
      const order = Date.parse(newer.created_at) - Date.parse(older.created_at);
      expect(order > 0 || (order === 0 && newer.id > older.id)).toBe(true);
    }
    for (const job of all) {
      const one = json(await t.app.inject({ method: 'GET', url: `/v1/exports/${job.id}`, headers: a.headers }));
      const { download_url: listedUrl, download_url_expires_at: listedExpiry, ...listed } = job;
      const { download_url: url, download_url_expires_at: expiry, ...read } = one;
      expect(listed).toEqual(read);
      expect(typeof listedUrl).toBe(typeof url);
      expect(typeof listedExpiry).toBe(typeof expiry);
    }
    const completed = all.find((job) => job.status === 'completed');
    expect(completed.download_url).toMatch(new RegExp(`/v1/exports/${completed.id}/download\\?expires=\\d+&signature=`));
  });

  it('never shows another merchant\'s jobs', async () => {
    const other = json(await list('limit=200', b.headers));
    expect(other.data).toHaveLength(2);
    expect(ids(other.data).some((id: string) => ids(all).includes(id))).toBe(false);
    // Its cursor only positions within this merchant's own jobs.
    const firstOfOther = json(await list('limit=1', b.headers));
    const next = json(await list(`limit=200&cursor=${encodeURIComponent(firstOfOther.cursor)}`));
    expect(ids(next.data).every((id: string) => ids(all).includes(id))).toBe(true);
  });

  it('defaults to a page of 50', async () => {
    const body = json(await list());
    expect(ids(body.data)).toEqual(ids(all));
    expect(body.cursor).toBeNull();
  });
});

describe('filters', () => {
  const expectFiltered = async (query: string, predicate: (job: any) => boolean) => {
    const response = await list(`${query}&limit=200`);
    expect(response.statusCode).toBe(200);
    const expected = all.filter(predicate);
    expect(expected.length).toBeGreaterThan(0);
    expect(ids(json(response).data)).toEqual(ids(expected));
  };

  it('status, a running job counting as pending', async () => {
    await expectFiltered('status=completed', (job) => job.status === 'completed');
    await expectFiltered('status=failed', (job) => job.status === 'failed');
    await expectFiltered('status=pending', (job) => job.status === 'pending');
    expect(all.filter((job) => job.status === 'pending')).toHaveLength(5);
  });

  it('register_id and type', async () => {
    await expectFiltered(`register_id=${a.registerId}`, (job) => job.register_id === a.registerId);
    await expectFiltered('type=dsfinvk', () => true);
    expect(json(await list('type=rksv_dep7'))).toEqual({ data: [], cursor: null });
  });

  it('rejects unknown values and parameters (400)', async () => {
    expect(expectError(await list('status=running'), 400, 'invalid_request').details?.field).toBe('status');
    expect(expectError(await list('type=csv'), 400, 'invalid_request').details?.field).toBe('type');
    expectError(await list('colour=blue'), 400, 'invalid_request');
  });
});

describe('cursor pagination', () => {
  it.each([1, 2, 3])('pages of %i neither overlap nor skip, newest first', async (limit) => {
    const pages: any[][] = [];
    let cursor: string | null = null;
    do {
      const response = await list(`limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(response.statusCode).toBe(200);
      const body = json(response);
      expect(body.data.length).toBeLessThanOrEqual(limit);
      pages.push(body.data);
      cursor = body.cursor;
    } while (cursor);
    expect(pages.slice(0, -1).every((page) => page.length === limit)).toBe(true);
    expect(ids(pages.flat())).toEqual(ids(all));
  });

  it('paginates within a filter', async () => {
    const pending = all.filter((job) => job.status === 'pending');
    const first = json(await list('status=pending&limit=2'));
    const second = json(await list(`status=pending&limit=2&cursor=${encodeURIComponent(first.cursor)}`));
    expect([...ids(first.data), ...ids(second.data)]).toEqual(ids(pending).slice(0, 4));
  });

  it('limit is 1-200', async () => {
    for (const limit of ['0', '201', '-1', '2.5', 'ten']) {
      expect(expectError(await list(`limit=${limit}`), 400, 'invalid_request').details?.field).toBe('limit');
    }
    expect((await list('limit=1')).statusCode).toBe(200);
    expect((await list('limit=200')).statusCode).toBe(200);
  });

  it('a cursor the service did not issue is 400', async () => {
    const issued = json(await list('limit=1')).cursor as string;
    const forged = [
      'not-a-cursor',
      Buffer.from('2026-13-45T00:00:00.000Z|exp_x').toString('base64url'),
      Buffer.from(`${new Date().toISOString()}|exp'; drop`).toString('base64url'),
      `${issued}=`,
    ];
    for (const cursor of forged) {
      expect(expectError(await list(`cursor=${encodeURIComponent(cursor)}`), 400, 'invalid_request').details?.field).toBe('cursor');
    }
  });
});
