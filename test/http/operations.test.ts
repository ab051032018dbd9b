import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseReceiptQrData } from '../../src/fiscal/kassensichv/receiptQr.js';
import { createTenantWithKey, createTestApp, json, type TestApp } from '../support/testApp.js';
import { completeOp, createOperation, fiscalizedRegisterWithSession, saleBody, type OperationsFixture } from '../support/operations.js';
import { verifiesFiscalInformation } from '../fiscal/independentDtbs.js';

let t: TestApp;
let fx: OperationsFixture;

beforeAll(async () => {
  t = await createTestApp();
  const tenant = await createTenantWithKey(t.database, 'DEU');
  fx = await fiscalizedRegisterWithSession(t.app, tenant.apiKey);
});
afterAll(() => t.close());

describe('sale lifecycle', () => {
  it('creates an open sale, completes it with a verifiable TSE signature and a receipt', async () => {
    const created = await createOperation(t.app, fx.headers, saleBody(fx.registerId));
    expect(created.statusCode).toBe(201);
    const sale = json(created);
    expect(sale).toMatchObject({ type: 'sale', status: 'open', resource_version: 1, cart_level_discounts: [], fiscal_information: null });
    expect(sale.session_id).toBeTruthy();
    expect(sale).not.toHaveProperty('related_operation_id');

    const completed = await completeOp(t.app, fx.headers, sale);
    expect(completed.statusCode).toBe(200);
    const done = json(completed);
    expect(done.status).toBe('completed');
    expect(done.resource_version).toBe(2);
    expect(completed.headers.etag).toBe('"2"');
    const fiscal = done.fiscal_information;
    expect(fiscal.end_event.process_type).toBe('Kassenbeleg-V1');
    expect(fiscal.end_event.process_data).toBe('Beleg^11.90_0.00_0.00_0.00_0.00^11.90:Bar');

    const qr = parseReceiptQrData(fiscal.verification.qr_data);
    expect(qr.signatureCounter).toBe(fiscal.end_event.signature_counter);
    expect(verifiesFiscalInformation(fiscal)).toBe(true);

    const receipt = await t.app.inject({ method: 'GET', url: `/v1/receipts/${done.receipt_id}`, headers: fx.headers });
    expect(receipt.statusCode).toBe(200);
    const body = json(receipt);
    expect(body.totals.total_gross).toBe(11.9);
    const hosted = await t.app.inject({ method: 'GET', url: new URL(body.links.hosted).pathname });
    expect(hosted.statusCode).toBe(200);
    expect(hosted.headers['content-type']).toContain('text/html');
    const pdf = await t.app.inject({ method: 'GET', url: new URL(body.links.pdf).pathname });
    expect(pdf.statusCode).toBe(200);
    expect(pdf.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
  });

  it('also completes with PATCH, as one listing of the contract names the call', async () => {
    const sale = json(await createOperation(t.app, fx.headers, saleBody(fx.registerId)));
    const completed = await t.app.inject({
      method: 'PATCH',
      url: `/v1/operations/${sale.id}/complete`,
      headers: { ...fx.headers, 'idempotency-key': `patch-${sale.id}`, 'if-match': '"1"' },
      payload: { payments: [{ method: 'card', amount: '11.90' }] },
    });
    expect(completed.statusCode).toBe(200);
    expect(json(completed)).toMatchObject({ status: 'completed', resource_version: 2 });
  });
});
