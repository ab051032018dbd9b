// Concurrent Style O refunds (meaningful on PostgreSQL; PGlite runs one transaction at a time):
// refunds of one sale never exceed it, sequence numbers stay unique, a refund is signed once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAndCompleteSale, createOperation, fiscalizedRegisterWithSession, mustComplete, mustCreate, saleBody, type OperationsFixture } from '../support/operations.js';
import { createPeerApp, createTenantWithKey, createTestApp, json, type TestApp } from '../support/testApp.js';
import { mustRefund, organizationKey, orgAuth, postRefund, styleOAction } from '../support/styleO.js';

let t: TestApp;
let peer: Awaited<ReturnType<typeof createPeerApp>>;
let fx: OperationsFixture;
let headers: Record<string, string>;

beforeAll(async () => {
  t = await createTestApp();
  peer = await createPeerApp(t);
  const tenant = await createTenantWithKey(t.database, 'DEU');
  fx = await fiscalizedRegisterWithSession(t.app, tenant.apiKey);
  headers = orgAuth(await organizationKey(t.database, tenant.tenantId, fx.merchantId));
});
afterAll(async () => {
  await peer.close();
  await t.close();
});

const appFor = (i: number) => (i % 2 === 0 ? t.app : peer.app);

describe('concurrent refunds', () => {
  it('of one sale line: exactly as many succeed as the quantity allows', async () => {
    const created = await mustCreate(
      t.app,
      fx.headers,
      saleBody(fx.registerId, {
        pretax_amount: '25.00',
        tax_amount: '4.75',
        total_amount: '29.75',
        line_items: [
          { title: 'Kuchen', quantity: 5, unit_price: '5.95', total_amount: '29.75', sku_identifier: 'SKU-K', taxes: [{ name: 'MwSt', rate: '0.19', tax_amount: '4.75' }] },
        ],
      }),
    );
    const sale = await mustComplete(t.app, fx.headers, created);
    const body = { original_operation_id: sale.id, refund_type: 'partial', line_items: [{ line_item_id: sale.line_items[0].id, quantity: 1 }] };
    const responses = await Promise.all(Array.from({ length: 8 }, (_, i) => postRefund(appFor(i), headers, fx.registerId, body)));
    const statuses = responses.map((response) => response.statusCode).sort();
    expect(statuses).toEqual([201, 201, 201, 201, 201, 422, 422, 422]);
    const refunds = responses.filter((response) => response.statusCode === 201).map(json);
    expect(refunds.reduce((sum, refund) => sum + refund.data.totals.total_gross, 0)).toBe(2975);
    expect(refunds.reduce((sum, refund) => sum + refund.data.totals.total_tax, 0)).toBe(475);
    for (const response of responses.filter((r) => r.statusCode === 422)) expect(json(response).details.field).toBe('line_items[0].quantity');
  });

  it('and sales on one register take unique, gap-free sequence numbers', async () => {
    const sales = await Promise.all(Array.from({ length: 4 }, () => createAndCompleteSale(t.app, fx)));
    const before = Math.max(...sales.map((sale) => sale.sequence_number));
    const results = await Promise.all([
      ...sales.map((sale, i) => postRefund(appFor(i), headers, fx.registerId, { original_operation_id: sale.id })),
      ...Array.from({ length: 4 }, (_, i) => createOperation(appFor(i + 1), fx.headers, saleBody(fx.registerId))),
    ]);
    for (const result of results) expect(result.statusCode).toBe(201);
    const numbers = results.map((result) => json(result).sequence_number).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 8 }, (_, i) => before + 1 + i));
  });

  it('completing one refund from many requests signs it once', async () => {
    const sale = await createAndCompleteSale(t.app, fx);
    const refund = await mustRefund(t.app, headers, fx.registerId, { original_operation_id: sale.id });
    const responses = await Promise.all(Array.from({ length: 4 }, (_, i) => styleOAction(appFor(i), headers, refund.id, 'complete')));
    const statuses = responses.map((response) => response.statusCode).sort();
    expect(statuses).toEqual([200, 409, 409, 409]);
    const done = json(responses.find((response) => response.statusCode === 200)!);
    expect(done.fiscal_state).toBe('succeeded');
    const signed = await t.database.prisma.tseTransaction.count({
      where: { processData: done.fiscal.end_event.process_data, transactionNumber: done.fiscal.end_event.transaction_counter },
    });
    expect(signed).toBe(1);
  });
});
