// Receipts (contract 2.4, DESIGN): every completed goods movement has one; the
// Style M view has JSON-number amounts; the PDF and hosted page are public
// behind an unguessable token.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenantWithKey, createTestApp, DEU_ADDRESS, json, type TestApp } from '../support/testApp.js';
import {
  expectApiError,
  fiscalizedRegisterWithSession,
  getOp,
  mustComplete,
  mustCreate,
  plainRegister,
  returnBody,
  saleBody,
  voidOp,
  type OperationsFixture,
} from '../support/operations.js';
import { requireTools } from '../support/tools.js';

let t: TestApp;
let apiKey: string;
let fx: OperationsFixture;
let sale: any;
let receipt: any;

const getReceipt = (id: string, headers = fx.headers) => t.app.inject({ method: 'GET', url: `/v1/receipts/${id}`, headers });
const pathOf = (url: string) => new URL(url).pathname;

beforeAll(async () => {
  t = await createTestApp();
  apiKey = (await createTenantWithKey(t.database, 'DEU')).apiKey;
  fx = await fiscalizedRegisterWithSession(t.app, apiKey);
  const created = await mustCreate(
    t.app,
    fx.headers,
    saleBody(fx.registerId, {
      external_id: 'order-42',
      pretax_amount: '15.00',
      tax_amount: '2.25',
      total_amount: '17.25',
      line_items: [
        saleBody(fx.registerId).line_items[0],
        { title: 'Milch', quantity: 1, unit_price: '5.35', total_amount: '5.35', sku_identifier: 'SKU-MILCH', taxes: [{ name: 'MwSt', rate: '0.07', tax_amount: '0.35' }] },
      ],
    }),
  );
  sale = await mustComplete(t.app, fx.headers, created, [
    { payment_id: 'p1', method: 'cash', amount: '10.00', currency: 'EUR', status: 'captured' },
    { payment_id: 'p2', method: 'card', amount: '7.25', currency: 'EUR', status: 'captured', card_brand: 'visa', processor: 'adyen' },
  ]);
  const response = await getReceipt(sale.receipt_id);
  expect(response.statusCode).toBe(200);
  receipt = json(response);
});
afterAll(() => t.close());

describe('receipt_id', () => {
  it('every completed goods movement has one; open and voided ones have none', async () => {
    expect(sale.receipt_id).toMatch(/\S/);
    const open = await mustCreate(t.app, fx.headers, saleBody(fx.registerId));
    expect(open.receipt_id).toBeNull();
    const voided = json(await voidOp(t.app, fx.headers, open));
    expect(voided.receipt_id).toBeNull();

    const ret = await mustComplete(t.app, fx.headers, await mustCreate(t.app, fx.headers, returnBody(fx.registerId, sale.id)), [
      { payment_id: 'r1', method: 'cash', amount: '-11.90', currency: 'EUR', status: 'refunded' },
    ]);
    const online = await mustComplete(t.app, fx.headers, await mustCreate(t.app, fx.headers, saleBody(null)));
    for (const op of [ret, online]) {
      expect(op.receipt_id).toMatch(/\S/);
      expect(json(await getOp(t.app, fx.headers, op.id)).receipt_id).toBe(op.receipt_id);
      expect(json(await getReceipt(op.receipt_id)).operation_id).toBe(op.id);
    }
    expect(new Set([sale.receipt_id, ret.receipt_id, online.receipt_id]).size).toBe(3);
  });
});

describe('GET /v1/receipts/{id}', () => {
  it('returns the 2.4 shape', () => {
    expect(Object.keys(receipt).sort()).toEqual(
      ['currency', 'external_reference', 'fiscal', 'id', 'issued_at', 'issuer', 'line_items', 'links', 'location_id', 'merchant_id', 'metadata', 'operation_id', 'payments', 'register_id', 'status', 'totals'].sort(),
    );
    expect(receipt).toMatchObject({
      id: sale.receipt_id,
      operation_id: sale.id,
      merchant_id: fx.merchantId,
      location_id: fx.locationId,
      register_id: fx.registerId,
      currency: 'EUR',
      status: 'available',
      external_reference: 'order-42',
      issuer: {
        legal_name: 'Bäckerei Müller GmbH',
        location_name: 'Filiale Mitte',
        register_name: 'Kasse 1',
        address: { line1: DEU_ADDRESS.line1, city: DEU_ADDRESS.city, postal_code: DEU_ADDRESS.postal_code, country_code: 'DEU' },
        tax_id: 'DE123456789',
      },
    });
    expect(Date.parse(receipt.issued_at)).not.toBeNaN();
    expect(typeof receipt.metadata).toBe('object');
  });

  it('has its amounts as JSON numbers', () => {
    expect(receipt.line_items).toEqual([
      { id: expect.any(String), description: 'Brot', quantity: 1, unit_price: 11.9, total_amount: 11.9, tax_rate: 0.19, tax_amount: 1.9 },
      { id: expect.any(String), description: 'Milch', quantity: 1, unit_price: 5.35, total_amount: 5.35, tax_rate: 0.07, tax_amount: 0.35 },
    ]);
    expect(receipt.totals).toEqual({ total_gross: 17.25, total_net: 15, total_tax: 2.25 });
    expect(receipt.payments).toEqual([
      { method: 'cash', amount: 10, details: expect.objectContaining({ payment_id: 'p1' }) },
      { method: 'card', amount: 7.25, details: expect.objectContaining({ payment_id: 'p2', card_brand: 'visa', processor: 'adyen' }) },
    ]);
  });

  it('carries the operation’s fiscal data', () => {
    expect(receipt.fiscal).toEqual(sale.fiscal_information);
  });

  it('links to itself, a PDF and a hosted page under /receipts/{token}', () => {
    expect(pathOf(receipt.links.self)).toBe(`/v1/receipts/${receipt.id}`);
    const token = pathOf(receipt.links.hosted).split('/')[2];
    expect(pathOf(receipt.links.hosted)).toBe(`/receipts/${token}`);
    expect(pathOf(receipt.links.pdf)).toBe(`/receipts/${token}/pdf`);
    expect(token).toMatch(/^[0-9A-Za-z]{32}$/);
  });

  it('shows an ONLINE sale without register, location or fiscal data, and a return with negative numbers', async () => {
    const online = await mustComplete(t.app, fx.headers, await mustCreate(t.app, fx.headers, saleBody(null)));
    const onlineReceipt = json(await getReceipt(online.receipt_id));
    expect(onlineReceipt).toMatchObject({ location_id: null, register_id: null, fiscal: {}, totals: { total_gross: 11.9, total_net: 10, total_tax: 1.9 } });

    const ret = await mustComplete(t.app, fx.headers, await mustCreate(t.app, fx.headers, returnBody(fx.registerId, sale.id)));
    const returnReceipt = json(await getReceipt(ret.receipt_id));
    expect(returnReceipt.totals).toEqual({ total_gross: -11.9, total_net: -10, total_tax: -1.9 });
    expect(returnReceipt.line_items[0]).toMatchObject({ total_amount: -11.9, tax_amount: -1.9 });
    expect(returnReceipt.fiscal.end_event.process_data).toMatch(/^Beleg\^-11\.90_/);
  });

  it('is 404 for an unknown id and for another merchant or tenant', async () => {
    expectApiError(await getReceipt('rcp_unknown'), 404, 'not_found');
    const sibling = await plainRegister(t.app, apiKey);
    expectApiError(await getReceipt(receipt.id, sibling.headers), 404, 'not_found');
    const otherTenant = await createTenantWithKey(t.database, 'DEU');
    const foreign = await plainRegister(t.app, otherTenant.apiKey);
    expectApiError(await getReceipt(receipt.id, foreign.headers), 404, 'not_found');
    const pdf = await t.app.inject({ method: 'GET', url: `/v1/receipts/${receipt.id}/pdf`, headers: sibling.headers });
    expectApiError(pdf, 404, 'not_found');
  });
});

describe('public documents', () => {
  it('links.pdf is a real PDF, served without an API key', async () => {
    const response = await t.app.inject({ method: 'GET', url: pathOf(receipt.links.pdf) });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/pdf/);
    expect(response.rawPayload.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(response.rawPayload.subarray(-8).toString('latin1')).toContain('%%EOF');
  });

  it('links.pdf shows the TSE serial and the issuer', async (context) => {
    requireTools(context, 'pdftotext');
    const response = await t.app.inject({ method: 'GET', url: pathOf(receipt.links.pdf) });
    expect(response.statusCode).toBe(200);
    const dir = mkdtempSync(join(tmpdir(), 'receipt-pdf-'));
    try {
      writeFileSync(join(dir, 'r.pdf'), response.rawPayload);
      const text = execFileSync('pdftotext', ['-layout', join(dir, 'r.pdf'), '-'], { encoding: 'utf8' });
      // A long serial may wrap; compare without whitespace.
      expect(text.replace(/\s+/g, '')).toContain(receipt.fiscal.tss_serial_number);
      expect(text).toContain('Bäckerei Müller GmbH');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the merchant-scoped PDF is the same document', async () => {
    const response = await t.app.inject({ method: 'GET', url: `/v1/receipts/${receipt.id}/pdf`, headers: fx.headers });
    expect(response.statusCode).toBe(200);
    expect(response.rawPayload.subarray(0, 5).toString('latin1')).toBe('%PDF-');
  });

  it('links.hosted is an HTML page reachable without an API key', async () => {
    const response = await t.app.inject({ method: 'GET', url: pathOf(receipt.links.hosted) });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.body).toMatch(/<html/i);
    expect(response.body).toContain('Bäckerei Müller GmbH');
    expect(response.body).toContain(receipt.fiscal.tss_serial_number);
  });

  it('an unknown token is a 404 error envelope', async () => {
    for (const url of ['/receipts/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', '/receipts/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/pdf', '/receipts/short', '/receipts/short/pdf']) {
      expectApiError(await t.app.inject({ method: 'GET', url }), 404, 'not_found');
    }
    // The receipt id is not the token.
    expectApiError(await t.app.inject({ method: 'GET', url: `/receipts/${receipt.id}` }), 404, 'not_found');
  });
});
