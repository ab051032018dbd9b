// A closed session's day cannot be rewritten: an operation created while its
// session was open is refused at complete once the session is counted (409
// session_already_counted) or closed (409 session_invalid_state), and nothing
// is signed; voiding (cancelling a refund) stays possible, and the cash count
// and the DSFinV-K export of the closing stay as they were. Completes racing a
// cash count (concurrent on PostgreSQL) are each counted or refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenantWithKey, createTestApp, json, type TestApp } from '../support/testApp.js';
import {
  completeOp,
  createAndCompleteSale,
  expectApiError,
  fiscalizedRegisterWithSession,
  getOp,
  mustCreate,
  saleBody,
  sessionEvent,
  voidOp,
  type OperationsFixture,
} from '../support/operations.js';
import { mustRefund, orgAuth, styleOAction } from '../support/styleO.js';
import { readZip } from '../exports/zipContents.js';

let t: TestApp;
let apiKey: string;

beforeAll(async () => {
  t = await createTestApp({ EXPORT_POLL_MS: '100' });
  apiKey = (await createTenantWithKey(t.database, 'DEU')).apiKey;
});
afterAll(() => t.close());

async function tseCounters(registerId: string) {
  const register = await t.database.prisma.register.findUniqueOrThrow({ where: { id: registerId } });
  const tse = await t.database.prisma.tseDevice.findUniqueOrThrow({ where: { id: register.deviceId! } });
  return { transactions: Number(tse.transactionCounter), signatures: Number(tse.signatureCounter) };
}

async function sessionFigures(sessionId: string) {
  const session = await t.database.prisma.registerSession.findUniqueOrThrow({ where: { id: sessionId } });
  return {
    status: session.status,
    expected: session.expectedClosingAmount?.toFixed(2),
    counted: session.countedClosingAmount?.toFixed(2),
    difference: session.closingCashcountDiff?.toFixed(2),
  };
}

/** The CSV files of a DSFinV-K export of every closing of the register. */
async function exportedCsv(fx: OperationsFixture): Promise<Map<string, string>> {
  const created = await t.app.inject({
    method: 'POST',
    url: '/v1/exports',
    headers: fx.headers,
    payload: { type: 'dsfinvk', from: '2020-01-01T00:00:00Z', to: new Date(Date.now() + 1000).toISOString(), register_id: fx.registerId },
  });
  expect(created.statusCode, created.body).toBe(202);
  const deadline = Date.now() + 20_000;
  let job = json(created);
  while (job.status === 'pending' || job.status === 'running') {
    if (Date.now() > deadline) throw new Error(`export ${job.id} still ${job.status}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    job = json(await t.app.inject({ method: 'GET', url: `/v1/exports/${job.id}`, headers: fx.headers }));
  }
  expect(job.status, JSON.stringify(job)).toBe('completed');
  const url = new URL(job.download_url);
  const download = await t.app.inject({ method: 'GET', url: url.pathname + url.search });
  expect(download.statusCode).toBe(200);
  const entries = await readZip(download.rawPayload);
  return new Map([...entries].filter(([name]) => name.endsWith('.csv')).map(([name, content]) => [name, content.toString('utf8')]));
}

describe('an operation of a counted or closed session', () => {
  let fx: OperationsFixture;
  let styleO: Record<string, string>;
  let late: any;
  let lateRefund: any;
  let countedFigures: Awaited<ReturnType<typeof sessionFigures>>;
  let countersAfterCount: Awaited<ReturnType<typeof tseCounters>>;
  let exportAfterClose: Map<string, string>;

  /** Completes the late sale and the late refund; both must be refused with `code` and leave everything as it was. */
  async function expectRefusedCompletes(code: string, sessionStatus: string) {
    const refused = expectApiError(await completeOp(t.app, fx.headers, late), 409, code);
    expect(refused.details).toMatchObject({ session_id: late.session_id, session_status: sessionStatus });
    const refusedRefund = expectApiError(await styleOAction(t.app, styleO, lateRefund.id, 'complete'), 409, code);
    expect(refusedRefund.details).toMatchObject({ session_id: late.session_id, session_status: sessionStatus });

    const sale = json(await getOp(t.app, fx.headers, late.id));
    expect(sale).toMatchObject({ status: 'open', resource_version: late.resource_version, fiscal_information: null });
    expect(sale.receipt_id ?? null).toBeNull();
    const refund = await t.database.prisma.operation.findUniqueOrThrow({ where: { id: lateRefund.id } });
    expect(refund).toMatchObject({ status: 'open', fiscalState: 'pending', fiscalInformation: null, receiptId: null });
    expect(await tseCounters(fx.registerId)).toEqual(countersAfterCount);
    expect(await sessionFigures(late.session_id)).toEqual({ ...countedFigures, status: sessionStatus });
  }

  beforeAll(async () => {
    fx = await fiscalizedRegisterWithSession(t.app, apiKey);
    styleO = orgAuth(apiKey, fx.merchantId);
    const sold = await createAndCompleteSale(t.app, fx);
    late = await mustCreate(t.app, fx.headers, saleBody(fx.registerId, { external_id: 'late-sale' }));
    lateRefund = await mustRefund(t.app, styleO, fx.registerId, { original_operation_id: sold.id });
    const count = await sessionEvent(t.app, fx.headers, fx.registerId, 'session_cash_count', { counted_closing_amount: '111.90' });
    expect(count.statusCode, count.body).toBe(201);
    countedFigures = await sessionFigures(late.session_id);
    expect(countedFigures).toEqual({ status: 'counted', expected: '111.90', counted: '111.90', difference: '0.00' });
    countersAfterCount = await tseCounters(fx.registerId);
  });

  it('once counted, complete is 409 session_already_counted and signs nothing', async () => {
    await expectRefusedCompletes('session_already_counted', 'counted');
  });

  it('once closed, complete is 409 session_invalid_state and the closing exports as before', async () => {
    const close = await sessionEvent(t.app, fx.headers, fx.registerId, 'session_close');
    expect(close.statusCode, close.body).toBe(201);
    countersAfterCount = await tseCounters(fx.registerId);
    exportAfterClose = await exportedCsv(fx);
    await expectRefusedCompletes('session_invalid_state', 'closed');
    expect(await exportedCsv(fx)).toEqual(exportAfterClose);
  });

  it('voiding the sale and cancelling the refund stay possible', async () => {
    const voided = await voidOp(t.app, fx.headers, late);
    expect(voided.statusCode, voided.body).toBe(200);
    expect(json(voided)).toMatchObject({ status: 'voided', fiscal_information: null });
    const cancelled = await styleOAction(t.app, styleO, lateRefund.id, 'cancel');
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    expect(json(cancelled).state).toBe('cancelled');
    expect(await tseCounters(fx.registerId)).toEqual(countersAfterCount);
    expect(await sessionFigures(late.session_id)).toEqual({ ...countedFigures, status: 'closed' });
  });
});

describe('completes racing a cash count on one register', () => {
  const N = 30;

  // Completes are sent `spacing` ms apart with the count in their middle: close together they are
  // all in flight when the count comes, spaced out some arrive while it runs and after it.
  it.each([2, 40])('each sale is completed before the count and counted in it, or refused with 409 (%i ms apart)', async (spacing) => {
    const fx = await fiscalizedRegisterWithSession(t.app, apiKey);
    const sales = [];
    for (let i = 0; i < N; i++) sales.push(await mustCreate(t.app, fx.headers, saleBody(fx.registerId, { external_id: `race-${i}` })));
    const after = <T>(ms: number, send: () => Promise<T>) => new Promise<T>((resolve) => setTimeout(() => resolve(send()), ms));
    const completes = sales.map((sale, i) => after(i * spacing, () => completeOp(t.app, fx.headers, sale)));
    const count = after((N / 2) * spacing, () =>
      sessionEvent(t.app, fx.headers, fx.registerId, 'session_cash_count', { counted_closing_amount: '0.00' }),
    );
    const [countResponse, ...completeResponses] = await Promise.all([count, ...completes]);
    expect(countResponse.statusCode, countResponse.body).toBe(201);

    for (const response of completeResponses) {
      if (response.statusCode !== 200) expectApiError(response, 409, 'session_already_counted');
    }
    const rows = await t.database.prisma.operation.findMany({ where: { id: { in: sales.map((sale) => sale.id) } } });
    const completed = rows.filter((row) => row.status === 'completed');
    expect(completed.length).toBe(completeResponses.filter((response) => response.statusCode === 200).length);
    expect(rows.filter((row) => row.status !== 'completed').every((row) => row.status === 'open' && row.fiscalInformation === null)).toBe(true);
    // The opening 100.00 and one cash payment of 11.90 per completed sale.
    const expected = (100 + 11.9 * completed.length).toFixed(2);
    expect(json(countResponse).expected_closing_amount).toBe(expected);
    expect((await sessionFigures(json(countResponse).session_id)).expected).toBe(expected);
  });
});
