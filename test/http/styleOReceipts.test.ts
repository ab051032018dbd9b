// GET /v1/operations/{operationId}/receipt: the canonical receipt of contract 2.9 for sales, returns and refunds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifiesFiscalEvent } from '../fiscal/independentDtbs.js';
import {
  createAndCompleteSale,
  exchangeBody,
  fiscalizedRegisterWithSession,
  mustComplete,
  mustCreate,
  returnBody,
  saleBody,
  voidOp,
  type OperationsFixture,
} from '../support/operations.js';
import { createTenantWithKey, createTestApp, expectError, json, type TestApp } from '../support/testApp.js';
import { expectDerivedTotals, getReceipt, mustCompleteRefund, mustRefund, organizationKey, orgAuth, platformKey, styleOAction } from '../support/styleO.js';

let t: TestApp;
let fx: OperationsFixture;
let headers: Record<string, string>;
let tenantId: string;

beforeAll(async () => {
  t = await createTestApp();
  const tenant = await createTenantWithKey(t.database, 'DEU');
  tenantId = tenant.tenantId;
  fx = await fiscalizedRegisterWithSession(t.app, tenant.apiKey);
  headers = orgAuth(await organizationKey(t.database, tenant.tenantId, fx.merchantId));
});
afterAll(() => t.close());

async function receiptOf(id: string) {
  const response = await getReceipt(t.app, headers, id);
  if (response.statusCode !== 200) throw new Error(`receipt failed (${response.statusCode}): ${response.body}`);
  return json(response);
}

describe('canonical receipt of a sale (recorded in Style M)', () => {
  it('has the fields of 2.9, amounts in minor units, both fiscal events and the QR string', async () => {
    const sale = await createAndCompleteSale(t.app, fx);
    const receipt = await receiptOf(sale.id);
    expect(receipt).toMatchObject({
      object: 'receipt',
      id: sale.receipt_id,
      version: 1,
      created_at: expect.any(String),
      issuer: {
        organization_id: fx.merchantId,
        legal_name: 'Bäckerei Müller GmbH',
        trade_name: null,
        tax_id: 'DE123456789',
        address: { line1: 'Friedrichstraße 1', line2: null, city: 'Berlin', state: null, postal_code: '10117', country: 'DE' },
        location_id: fx.locationId,
        location_name: 'Filiale Mitte',
        register_id: fx.registerId,
        register_label: 'Kasse 1',
      },
      operation: {
        id: sale.id,
        external_id: null,
        type: 'sale',
        sequence_number: sale.sequence_number,
        started_at: sale.fiscal_information.start_event.signed_at,
        completed_at: sale.completed_at,
        currency: 'EUR',
        cashier: null,
      },
      customer: null,
      notes: [],
      references: { original_operation_id: null, reason: null },
      metadata: {},
    });
    expect(receipt.line_items).toEqual([
      {
        id: sale.line_items[0].id,
        position: 1,
        description: 'Brot',
        quantity: 1,
        unit: null,
        unit_price_gross: 1190,
        product_ref: 'SKU-BROT',
        flags: [],
        subtotal_gross: 1190,
        line_discounts: [],
        line_discount_amount: 0,
        subtotal_after_line_discounts: 1190,
        cart_discount_allocations: [],
        cart_discount_amount: 0,
        total_gross: 1190,
        tax: { rate: '0.19', category: 'standard', included_in_price: true, taxable_amount: 1000, tax_amount: 190 },
        total_net: 1000,
        original_line_item_id: null,
      },
    ]);
    expect(receipt.totals).toMatchObject({ total_gross: 1190, total_net: 1000, total_tax: 190, net_payable: 1190 });
    expectDerivedTotals(receipt.totals);
    expect(receipt.payments).toEqual([
      { id: sale.payments[0].id, method: 'cash', direction: 'charge', amount: 1190, currency: 'EUR', reference: 'p1', status: 'captured' },
    ]);

    const fiscal = receipt.fiscal;
    expect(fiscal).toMatchObject({
      regime: 'KassenSichV',
      transmission_status: 'succeeded',
      tse_serial: sale.fiscal_information.tss_serial_number,
      client_id: sale.fiscal_information.pos_client_serial_number,
      document_number: String(sale.sequence_number),
      verification: { url: null, qr_data: sale.fiscal_information.verification.qr_data },
      error: null,
    });
    expect(fiscal.end_event).toMatchObject({
      signed_at: sale.fiscal_information.end_event.signed_at,
      signature: sale.fiscal_information.end_event.signature,
      process_type: 'Kassenbeleg-V1',
      process_data: 'Beleg^11.90_0.00_0.00_0.00_0.00^11.90:Bar',
    });
    expect(fiscal.start_event.signed_at).toBe(sale.fiscal_information.start_event.signed_at);
    expect(verifiesFiscalEvent(fiscal, 'start_event')).toBe(true);
    expect(verifiesFiscalEvent(fiscal, 'end_event')).toBe(true);

    expect(new URL(receipt.links.self).pathname).toBe(`/v1/operations/${sale.id}/receipt`);
    expect(new URL(receipt.links.operation).pathname).toBe(`/v1/operations/${sale.id}`);
    const styleM = json(await t.app.inject({ method: 'GET', url: `/v1/receipts/${sale.receipt_id}`, headers: fx.headers }));
    expect(receipt.links.pdf).toBe(styleM.links.pdf);
    const pdf = await t.app.inject({ method: 'GET', url: new URL(receipt.links.pdf).pathname });
    expect(pdf.statusCode).toBe(200);
    expect(pdf.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
  });

  it('allocates cart discounts over the lines, adds the tip to net_payable, shows card details', async () => {
    const created = await mustCreate(
      t.app,
      fx.headers,
      saleBody(fx.registerId, {
        pretax_amount: '13.05896067',
        tax_amount: '1.28103933',
        tip_amount: '1.00',
        total_amount: '15.34',
        line_items: [
          { title: 'Brötchen', quantity: 3, unit_price: '3.33', total_amount: '9.99', sku_identifier: 'SKU-BR', taxes: [{ name: 'MwSt', rate: '0.19', tax_amount: '1.59504202' }] },
          { title: 'Milch', quantity: 1, unit_price: '5.35', total_amount: '5.35', sku_identifier: 'SKU-MI', taxes: [{ name: 'MwSt', rate: '0.07', tax_amount: '0.35' }] },
        ],
        cart_level_discounts: [{ amount: '1.00', description: 'Stammkunde' }],
        external_id: 'order-77',
        note: 'Danke!',
      }),
    );
    const sale = await mustComplete(t.app, fx.headers, created, [
      { payment_id: 'c1', method: 'card', amount: '15.34', currency: 'EUR', card_brand: 'mastercard', processor_reference: 'auth-9' },
    ]);
    const receipt = await receiptOf(sale.id);
    expectDerivedTotals(receipt.totals);
    expect(receipt.totals).toMatchObject({
      subtotal_gross: 1534,
      total_cart_discounts: 100,
      subtotal_after_all_discounts: 1434,
      total_gross: 1434,
      rounding_adjustment: 0,
      net_payable: 1534,
    });
    expect(receipt.line_items.map((line: any) => line.cart_discount_amount)).toEqual([65, 35]);
    expect(receipt.line_items[0].cart_discount_allocations).toEqual([{ discount_id: sale.cart_level_discounts[0].id, amount: 65, label: 'Stammkunde' }]);
    expect(receipt.totals.tax_breakdown.map((entry: any) => [entry.rate, entry.category, entry.total_gross])).toEqual([
      ['0.19', 'standard', 934],
      ['0.07', 'reduced', 500],
    ]);
    expect(receipt.payments[0]).toMatchObject({ method: 'card', amount: 1534, reference: 'auth-9', card: { scheme: 'mastercard' } });
    expect(receipt.operation.external_id).toBe('order-77');
    expect(receipt.notes).toEqual([{ type: 'note', text: 'Danke!' }]);
  });

  it('carries sub-cent Style M amounts to the minor unit through rounding_adjustment', async () => {
    const line = { title: 'Schraube', quantity: 1, unit_price: '0.005', total_amount: '0.005', sku_identifier: 'SKU-S', taxes: [{ name: 'MwSt', rate: '0', tax_amount: '0' }] };
    const created = await mustCreate(
      t.app,
      fx.headers,
      saleBody(null, { pretax_amount: '0.01', tax_amount: '0', total_amount: '0.01', line_items: [line, line] }),
    );
    const sale = await mustComplete(t.app, fx.headers, created, [{ payment_id: 'x', method: 'card', amount: '0.01', currency: 'EUR' }]);
    const receipt = await receiptOf(sale.id);
    expectDerivedTotals(receipt.totals);
    expect(receipt.totals).toMatchObject({ subtotal_after_all_discounts: 2, rounding_adjustment: -1, total_gross: 1, net_payable: 1 });
    expect(receipt.fiscal).toBeNull(); // ONLINE: not signed
    expect(receipt.operation.started_at).toBeNull();
  });
});

describe('canonical receipt of a return and of a refund', () => {
  it('shows a return with positive amounts and a negative net_payable', async () => {
    const sale = await createAndCompleteSale(t.app, fx);
    const created = await mustCreate(t.app, fx.headers, returnBody(fx.registerId, sale.id));
    const ret = await mustComplete(t.app, fx.headers, created, [{ payment_id: 'r', method: 'cash', amount: '-11.90', currency: 'EUR' }]);
    const receipt = await receiptOf(ret.id);
    expect(receipt.operation.type).toBe('return');
    expect(receipt.references).toEqual({ original_operation_id: sale.id, reason: null });
    expect(receipt.line_items[0]).toMatchObject({ total_gross: 1190, tax: { tax_amount: 190 } });
    expect(receipt.totals).toMatchObject({ total_gross: 1190, net_payable: -1190 });
    expectDerivedTotals(receipt.totals);
    expect(receipt.payments[0]).toMatchObject({ method: 'cash', direction: 'refund', amount: 1190 });
    expect(receipt.fiscal.end_event.process_data).toBe('Beleg^-11.90_0.00_0.00_0.00_0.00^-11.90:Bar');
  });

  it('shows a completed refund with its cashier, reason and signature, and a working PDF link', async () => {
    const sale = await createAndCompleteSale(t.app, fx);
    const refund = await mustRefund(t.app, headers, fx.registerId, {
      original_operation_id: sale.id,
      reason: 'defekt',
      cashier: { id: 'emp-1' },
      metadata: { case: 12 },
    });
    expectError(await getReceipt(t.app, headers, refund.id), 409, 'operation_invalid_state');
    const done = await mustCompleteRefund(t.app, headers, refund.id);
    const receipt = await receiptOf(refund.id);
    expect(receipt).toMatchObject({
      object: 'receipt',
      version: 1,
      operation: { id: refund.id, type: 'refund', sequence_number: refund.sequence_number, cashier: { id: 'emp-1', display_name: null }, started_at: done.started_at },
      references: { original_operation_id: sale.id, reason: 'defekt' },
      metadata: { case: 12 },
      notes: [],
    });
    expect(receipt.line_items).toEqual(done.data.line_items);
    expect(receipt.totals).toEqual(done.data.totals);
    expect(receipt.payments).toEqual(done.data.payments);
    expect(receipt.fiscal).toEqual(done.fiscal);
    const pdf = await t.app.inject({ method: 'GET', url: new URL(receipt.links.pdf).pathname });
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
  });
});

describe('what has no canonical receipt', () => {
  it('is 409 operation_invalid_state until the operation is completed', async () => {
    const open = await mustCreate(t.app, fx.headers, saleBody(fx.registerId));
    expect(expectError(await getReceipt(t.app, headers, open.id), 409, 'operation_invalid_state').details).toMatchObject({ state: 'open' });
    const toVoid = await mustCreate(t.app, fx.headers, saleBody(fx.registerId));
    expect((await voidOp(t.app, fx.headers, toVoid)).statusCode).toBe(200);
    expectError(await getReceipt(t.app, headers, toVoid.id), 409, 'operation_invalid_state');
    const sale = await createAndCompleteSale(t.app, fx);
    const cancelled = await mustRefund(t.app, headers, fx.registerId, { original_operation_id: sale.id });
    await styleOAction(t.app, headers, cancelled.id, 'cancel');
    expectError(await getReceipt(t.app, headers, cancelled.id), 409, 'operation_invalid_state');
  });

  it('is 404 for exchanges and session events, for other organizations and for unknown ids', async () => {
    const sale = await createAndCompleteSale(t.app, fx);
    const exchange = await mustComplete(t.app, fx.headers, await mustCreate(t.app, fx.headers, exchangeBody(fx.registerId, sale.id)), [
      { payment_id: 'e', method: 'cash', amount: '-6.55', currency: 'EUR' },
    ]);
    expectError(await getReceipt(t.app, headers, exchange.id), 404, 'not_found');
    const sessions = json(await t.app.inject({ method: 'GET', url: '/v1/operations?type=session_open', headers: fx.headers }));
    expectError(await getReceipt(t.app, headers, sessions.data[0].id), 404, 'not_found');
    expectError(await getReceipt(t.app, headers, 'op_missing'), 404, 'not_found');
    const other = await createTenantWithKey(t.database, 'DEU');
    const otherFx = await fiscalizedRegisterWithSession(t.app, other.apiKey);
    expectError(await getReceipt(t.app, orgAuth(other.apiKey, otherFx.merchantId), sale.id), 404, 'not_found');
  });

  it('needs the organization (platform key: 400 without the header) and is Style O only (404 with X-Service-Merchant)', async () => {
    const sale = await createAndCompleteSale(t.app, fx);
    const platform = await platformKey(t.database, tenantId);
    expectError(await getReceipt(t.app, orgAuth(platform), sale.id), 400, 'invalid_request');
    expect((await getReceipt(t.app, orgAuth(platform, fx.merchantId), sale.id)).statusCode).toBe(200);
    expectError(await getReceipt(t.app, fx.headers, sale.id), 404, 'not_found');
  });
});
