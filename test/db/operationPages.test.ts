// An operation is written open and updated once at completion, which adds its payments and
// fiscal record. The table's pages are filled to 70 % (prisma/migrations/*_operations_fill_to_70),
// so a register's sales, each created and then completed, are completed in place: on the page of
// their open version (a HOT update, no new index entries).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fiscalizedRegisterWithSession, mustComplete, mustCreate, saleBody, type OperationsFixture } from '../support/operations.js';
import { createTenantWithKey, createTestApp, type TestApp } from '../support/testApp.js';

let t: TestApp;
let fixture: OperationsFixture;

beforeAll(async () => {
  t = await createTestApp();
  const { apiKey } = await createTenantWithKey(t.database);
  fixture = await fiscalizedRegisterWithSession(t.app, apiKey);
});

afterAll(() => t?.close());

/** A sale of `lines` lines of 11.90 at 19 %. */
function saleOf(lines: number) {
  const line = (index: number) => ({
    title: `Artikel ${index + 1}`,
    quantity: 1,
    unit_price: '11.90',
    total_amount: '11.90',
    sku_identifier: `SKU-${index + 1}`,
    taxes: [{ name: 'MwSt', rate: '0.19', tax_amount: '1.90' }],
  });
  return saleBody(fixture.registerId, {
    line_items: Array.from({ length: lines }, (_, index) => line(index)),
    pretax_amount: (10 * lines).toFixed(2),
    tax_amount: (1.9 * lines).toFixed(2),
    total_amount: (11.9 * lines).toFixed(2),
  });
}

const pageOf = async (id: string) =>
  (await t.database.sql.query<{ page: number }>('SELECT (ctid::text::point)[0]::int AS page FROM operations WHERE id = $1', [id]))[0].page;

describe('pages of the operations table', () => {
  it('are filled to 70 %', async () => {
    const [table] = await t.database.sql.query<{ reloptions: string[] }>("SELECT reloptions FROM pg_class WHERE relname = 'operations'");
    expect(table.reloptions).toContain('fillfactor=70');
  });

  it.each([1, 3])('hold a completed sale of %i lines where its open version was', async (lines) => {
    const moved = [];
    const pages = new Set<number>();
    for (let sale = 0; sale < 20; sale++) {
      const open = await mustCreate(t.app, fixture.headers, saleOf(lines));
      const page = await pageOf(open.id);
      await mustComplete(t.app, fixture.headers, open);
      if ((await pageOf(open.id)) !== page) moved.push(sale);
      pages.add(page);
    }
    expect(moved).toEqual([]);
    expect(pages.size, 'sales share pages').toBeLessThan(20);
  });
});
