// GET /v1/invoices (contract 4.3): the organization's invoices newest first, every filter,
// limit 1-200 (default 50) and a cursor that neither skips nor repeats while invoices are added.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, json, type TestApp } from '../support/testApp.js';
import { BUYER_PIVA, deInvoice, invoicingFixture, itBuyer, itInvoice, mustCreateInvoice, type InvoicingFixture } from '../support/invoices.js';

let t: TestApp;
let fx: InvoicingFixture;
const created: any[] = [];

beforeAll(async () => {
  t = await createTestApp({ EXPORT_WORKER: 'off' });
  fx = await invoicingFixture(t);
  created.push(await mustCreateInvoice(t.app, fx.it, itInvoice()));
  created.push(await mustCreateInvoice(t.app, fx.it, itInvoice({ submit: true })));
  created.push(await mustCreateInvoice(t.app, fx.it, itInvoice({ buyer: itBuyer({ legal_name: 'Mario Rossi', tax_id: 'RSSMRA85T10A562S' }) })));
  created.push(await mustCreateInvoice(t.app, fx.it, itInvoice({ document_type: 'credit_note', references: { original_invoice_id: created[1].id } })));
  created.push(
    await mustCreateInvoice(t.app, fx.it, deInvoice({ seller: { ...deInvoice().seller, tax_id: 'DE123456789' }, submit: true })),
  );
  await mustCreateInvoice(t.app, fx.de, deInvoice());
});
afterAll(() => t.close());

const list = (query: string, headers = fx.it) => t.app.inject({ method: 'GET', url: `/v1/invoices?${query}`, headers });
const ids = async (query: string) => {
  const response = await list(`organization_id=${fx.itOrganizationId}&${query}`);
  expect(response.statusCode, response.body).toBe(200);
  return json(response).data.map((invoice: any) => invoice.id);
};
const newestFirst = (invoices: any[]) => [...invoices].reverse().map((invoice) => invoice.id);

describe('the list', () => {
  it('holds the organization\'s invoices, newest first, as a list object', async () => {
    const response = await list(`organization_id=${fx.itOrganizationId}`);
    expect(json(response)).toMatchObject({ object: 'list', cursor: null });
    expect(json(response).data.map((invoice: any) => invoice.id)).toEqual(newestFirst(created));
    expect(json(response).data[0]).toMatchObject({ object: 'invoice', organization_id: fx.itOrganizationId });
  });

  it('filters by state, document type, jurisdiction and buyer tax id', async () => {
    expect(await ids('state=draft')).toEqual(newestFirst([created[0], created[2], created[3]]));
    expect(await ids('state=submitted')).toEqual([created[1].id]);
    expect(await ids('state=transmitted')).toEqual([created[4].id]);
    expect(await ids('document_type=credit_note')).toEqual([created[3].id]);
    expect(await ids('jurisdiction=DE')).toEqual([created[4].id]);
    expect(await ids('jurisdiction=IT&state=draft&document_type=invoice')).toEqual(newestFirst([created[0], created[2]]));
    expect(await ids(`buyer_tax_id=IT${BUYER_PIVA}`)).toEqual(newestFirst([created[0], created[1], created[3]]));
    expect(await ids('buyer_tax_id=rssmra85t10a562s')).toEqual([created[2].id]);
    expect(await ids('buyer_tax_id=DE%20987%20654%20321')).toEqual([created[4].id]);
    expect(await ids('buyer_tax_id=XX000')).toEqual([]);
  });

  it('bounds created_at by from and to, both inclusive', async () => {
    const at = (i: number) => new Date(Date.UTC(2026, 0, 10, 12, 0, i));
    for (const [i, invoice] of created.entries()) await t.database.prisma.invoice.update({ where: { id: invoice.id }, data: { createdAt: at(i) } });
    expect(await ids(`from=${at(1).toISOString()}&to=${at(3).toISOString()}`)).toEqual(newestFirst(created.slice(1, 4)));
    expect(await ids(`from=${encodeURIComponent('2026-01-10T13:00:02+01:00')}&to=${encodeURIComponent('2026-01-10T13:00:02+01:00')}`)).toEqual([created[2].id]);
    expect(await ids(`from=${at(5).toISOString()}`)).toEqual([]);
  });

  it('pages with limit and cursor, without gaps or repeats while invoices are added', async () => {
    const before = (await ids('limit=200')).length;
    const seen: string[] = [];
    let cursor: string | null = null;
    const added: string[] = [];
    do {
      const response = await list(`organization_id=${fx.itOrganizationId}&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      const page = json(response);
      expect(page.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.data.map((invoice: any) => invoice.id));
      cursor = page.cursor;
      added.push((await mustCreateInvoice(t.app, fx.it, itInvoice())).id);
    } while (cursor);
    expect(seen).toHaveLength(before);
    expect(new Set(seen).size).toBe(before);
    expect(seen.filter((id) => added.includes(id))).toEqual([]);
    expect((await ids('limit=200')).slice(0, added.length)).toEqual([...added].reverse());
  });

  it('pages 50 by default, and holds 1-200', async () => {
    while ((await ids('limit=200')).length < 52) await mustCreateInvoice(t.app, fx.it, itInvoice());
    const page = json(await list(`organization_id=${fx.itOrganizationId}`));
    expect(page.data).toHaveLength(50);
    expect(page.cursor).toEqual(expect.any(String));
    for (const limit of ['0', '201', 'x']) expect(expectError(await list(`organization_id=${fx.itOrganizationId}&limit=${limit}`), 400, 'invalid_request').details!.field).toBe('limit');
    expect(expectError(await list(`organization_id=${fx.itOrganizationId}&cursor=bogus`), 400, 'invalid_request').details!.field).toBe('cursor');
    expect(expectError(await list(`organization_id=${fx.itOrganizationId}&state=lost`), 400, 'invalid_request').details!.field).toBe('state');
  });

  it('needs organization_id, and only the organization the call acts for', async () => {
    expectError(await list(''), 400, 'invalid_request');
    expectError(await list(`organization_id=${fx.deOrganizationId}`), 404, 'not_found');
    const german = json(await list(`organization_id=${fx.deOrganizationId}`, fx.de));
    expect(german.data).toHaveLength(1);
    expect(german.data[0].organization_id).toBe(fx.deOrganizationId);
  });
});
