// Payment methods are matched as people write them (src/domain/paymentMethods.ts):
// a sale paid with "Cash" is cash in the TSE's processData, in the session's
// expected cash and in the DSFinV-K export, while every response echoes the
// method exactly as it was sent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenantWithKey, createTestApp, json, type TestApp } from '../support/testApp.js';
import { fiscalizedRegisterWithSession, getOp, mustComplete, mustCreate, saleBody, type OperationsFixture } from '../support/operations.js';
import { getReceipt, mustCompleteRefund, mustRefund, orgAuth } from '../support/styleO.js';
import { readZip, records } from '../exports/zipContents.js';

let t: TestApp;
let fx: OperationsFixture;
let styleO: Record<string, string>;

beforeAll(async () => {
  t = await createTestApp({ EXPORT_POLL_MS: '100' });
  const { apiKey } = await createTenantWithKey(t.database, 'DEU');
  fx = await fiscalizedRegisterWithSession(t.app, apiKey); // opening amount 100.00
  styleO = orgAuth(apiKey, fx.merchantId);
});
afterAll(() => t.close());

const paidWith = async (method: string) =>
  mustComplete(t.app, fx.headers, await mustCreate(t.app, fx.headers, saleBody(fx.registerId)), [
    { payment_id: `pay-${method}`, method, amount: '11.90', currency: 'EUR', status: 'captured' },
  ]);

async function exportedCsv(): Promise<Map<string, Record<string, string>[]>> {
  const created = await t.app.inject({
    method: 'POST',
    url: '/v1/exports',
    headers: fx.headers,
    payload: { type: 'dsfinvk', from: '2020-01-01T00:00:00Z', to: new Date(Date.now() + 1000).toISOString(), register_id: fx.registerId },
  });
  expect(created.statusCode, created.body).toBe(202);
  const deadline = Date.now() + 20_000;
  let job = json(created);
  while (job.status === 'pending') {
    if (Date.now() > deadline) throw new Error(`export ${job.id} still pending`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    job = json(await t.app.inject({ method: 'GET', url: `/v1/exports/${job.id}`, headers: fx.headers }));
  }
  expect(job.status, JSON.stringify(job)).toBe('completed');
  const url = new URL(job.download_url);
  const entries = await readZip((await t.app.inject({ method: 'GET', url: url.pathname + url.search })).rawPayload);
  return new Map([...entries].filter(([name]) => name.endsWith('.csv')).map(([name, content]) => [name, records(content.toString('utf8'))]));
}

describe('a payment method as people write it', () => {
  it('"Cash" is cash in the TSE, the cash count and the export; the method is echoed as sent', async () => {
    const cashSale = await paidWith('Cash');
    expect(cashSale.payments[0].method).toBe('Cash');
    expect(json(await getOp(t.app, fx.headers, cashSale.id)).payments[0].method).toBe('Cash');
    expect(cashSale.fiscal_information.end_event.process_data).toBe('Beleg^11.90_0.00_0.00_0.00_0.00^11.90:Bar');

    const cardSale = await paidWith(' Debit Card');
    expect(cardSale.payments[0].method).toBe(' Debit Card');
    expect(cardSale.fiscal_information.end_event.process_data).toBe('Beleg^11.90_0.00_0.00_0.00_0.00^11.90:Unbar');

    // Style O shows a card method with its card block.
    expect(json(await getReceipt(t.app, styleO, cardSale.id)).payments[0]).toMatchObject({ method: ' Debit Card', card: { scheme: null } });

    const barSale = await paidWith('BAR');

    // The card sale goes back in cash through a Style O refund.
    const refund = await mustRefund(t.app, styleO, fx.registerId, { original_operation_id: cardSale.id, payments: [{ method: 'CASH', amount: 1190 }] });
    expect(refund.data.payments[0].method).toBe('CASH');
    await mustCompleteRefund(t.app, styleO, refund.id);

    // 100.00 + 11.90 (Cash) + 11.90 (BAR) − 11.90 (CASH refund); the debit card moves no cash.
    const counted = await mustCreate(t.app, fx.headers, { type: 'session_cash_count', register_id: fx.registerId, counted_closing_amount: '111.90' });
    expect(counted).toMatchObject({ expected_closing_amount: '111.90', closing_cashcount_diff: '0.00' });
    await mustCreate(t.app, fx.headers, { type: 'session_close', register_id: fx.registerId });

    const csv = await exportedCsv();
    const paymentsOf = (bonId: string) =>
      csv.get('datapayment.csv')!.filter((row) => row.BON_ID === bonId).map((row) => [row.ZAHLART_TYP, row.ZAHLART_NAME, row.BASISWAEH_BETRAG]);
    expect(paymentsOf(cashSale.id)).toEqual([['Bar', '', '11,90']]);
    expect(paymentsOf(barSale.id)).toEqual([['Bar', '', '11,90']]);
    expect(paymentsOf(cardSale.id)).toEqual([['ECKarte', 'debit_card', '11,90']]);
    expect(paymentsOf(refund.id)).toEqual([['Bar', '', '-11,90']]);
    expect(csv.get('payment.csv')!.map((row) => [row.ZAHLART_TYP, row.ZAHLART_NAME, row.Z_ZAHLART_BETRAG])).toEqual([
      ['Bar', '', '111,90'],
      ['ECKarte', 'debit_card', '11,90'],
    ]);
  });

  it('"Gift_Card" is a gift card: it needs its gift_card_id', async () => {
    const sale = await mustCreate(t.app, fx.headers, saleBody(null));
    const response = await t.app.inject({
      method: 'POST',
      url: `/v1/operations/${sale.id}/complete`,
      headers: { ...fx.headers, 'idempotency-key': `gift-${sale.id}`, 'if-match': `"${sale.resource_version}"` },
      payload: { payments: [{ payment_id: 'gc', method: 'Gift_Card', amount: '11.90', currency: 'EUR', status: 'captured' }] },
    });
    expect(response.statusCode).toBe(422);
    expect(json(response)).toMatchObject({ code: 'gift_card_id_required', details: { field: 'payments[0].gift_card_id' } });
  });
});
