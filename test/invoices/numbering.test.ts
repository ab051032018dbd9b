// Invoice numbers are gapless per organization, series and year, also under concurrent
// submissions and across two service instances on one PostgreSQL database; the chain hash of
// every submitted invoice can be recomputed by anyone holding the documents in order.
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPeerApp, createTestApp, json, type TestApp } from '../support/testApp.js';
import { deInvoice, invoiceAction, invoicingFixture, itInvoice, mustCreateInvoice, postInvoice, type InvoicingFixture } from '../support/invoices.js';

const N = 30;

let t: TestApp;
let fx: InvoicingFixture;

beforeAll(async () => {
  t = await createTestApp({ EXPORT_WORKER: 'off' });
  fx = await invoicingFixture(t);
});
afterAll(() => t.close());

/** N drafts of one series, submitted all at once (round robin over `apps`); their numbers' n. */
async function submitConcurrently(apps: FastifyInstance[], series: string): Promise<number[]> {
  const drafts = await Promise.all(Array.from({ length: N }, () => mustCreateInvoice(t.app, fx.it, itInvoice({ series, issue_date: '2026-02-01' }))));
  const responses = await Promise.all(drafts.map((draft, i) => invoiceAction(apps[i % apps.length]!, fx.it, draft.id, 'submit')));
  expect(responses.filter((response) => response.statusCode !== 200).map((response) => response.body)).toEqual([]);
  return responses.map((response) => {
    const number: string = json(response).invoice_number;
    expect(number).toMatch(new RegExp(`^${series}/2026/\\d+$`));
    return Number(number.split('/')[2]);
  });
}

const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);

describe(`${N} concurrent submissions`, () => {
  it('take the numbers 1..N of their series and year, without gap or repeat', { timeout: 120_000 }, async () => {
    expect(sorted(await submitConcurrently([t.app], 'CONC'))).toEqual(range(1, N));
  });

  it('number each series and year on its own', async () => {
    const a = await mustCreateInvoice(t.app, fx.it, itInvoice({ series: 'A', issue_date: '2025-12-31', submit: true }));
    const b = await mustCreateInvoice(t.app, fx.it, itInvoice({ series: 'A', issue_date: '2026-01-01', submit: true }));
    const c = await mustCreateInvoice(t.app, fx.it, itInvoice({ series: 'B', issue_date: '2026-01-01', submit: true }));
    const d = await mustCreateInvoice(t.app, fx.it, itInvoice({ series: 'A', issue_date: '2026-01-02', submit: true }));
    expect([a, b, c, d].map((invoice) => invoice.invoice_number)).toEqual(['A/2025/1', 'A/2026/1', 'B/2026/1', 'A/2026/2']);
    // Another organization starts its own count.
    expect((await mustCreateInvoice(t.app, fx.de, deInvoice({ series: 'A', issue_date: '2026-01-01', submit: true }))).invoice_number).toBe('A/2026/1');
  });

  it('leave no gap when a submission fails', async () => {
    const good = await mustCreateInvoice(t.app, fx.it, itInvoice({ series: 'GAP', issue_date: '2026-02-01', submit: true }));
    const refused = await postInvoice(t.app, fx.it, itInvoice({ series: 'GAP', issue_date: '2999-02-01', payment_terms: undefined, submit: true }));
    expect(refused.statusCode).toBe(422);
    const next = await mustCreateInvoice(t.app, fx.it, itInvoice({ series: 'GAP', issue_date: '2026-02-01', submit: true }));
    expect([good.invoice_number, next.invoice_number]).toEqual(['GAP/2026/1', 'GAP/2026/2']);
  });
});

describe('two service instances sharing one PostgreSQL database', () => {
  it.skipIf(!process.env.DATABASE_URL)('keep the numbering gapless', { timeout: 120_000 }, async () => {
    const peer = await createPeerApp(t, { EXPORT_WORKER: 'off' });
    try {
      expect(sorted(await submitConcurrently([t.app, peer.app], 'PEER'))).toEqual(range(1, N));
    } finally {
      await peer.close();
    }
  });
});

describe('the chain hash', () => {
  it('is SHA-256(previous chain hash + SHA-256(document)), over every submitted invoice of the organization and jurisdiction', async () => {
    const invoices = await t.database.prisma.invoice.findMany({
      where: { merchantId: fx.itOrganizationId, jurisdiction: 'IT', transmissionSequence: { not: null } },
      orderBy: { transmissionSequence: 'asc' },
    });
    expect(invoices.length).toBeGreaterThan(N);
    expect(invoices.map((invoice) => invoice.transmissionSequence)).toEqual(range(1, invoices.length));
    let previous = '0'.repeat(64);
    for (const invoice of invoices) {
      const served = await t.app.inject({ method: 'GET', url: `/v1/invoices/${invoice.id}/document`, headers: fx.it });
      const documentHash = createHash('sha256').update(served.rawPayload).digest('hex');
      const expected = createHash('sha256').update(`${previous}${documentHash}`).digest('hex');
      const presented = json(await t.app.inject({ method: 'GET', url: `/v1/invoices/${invoice.id}`, headers: fx.it })).fiscal.chain_hash;
      expect(presented).toBe(expected);
      previous = expected;
    }
    const head = await t.database.prisma.invoiceChain.findUniqueOrThrow({ where: { merchantId_jurisdiction: { merchantId: fx.itOrganizationId, jurisdiction: 'IT' } } });
    expect(head).toMatchObject({ lastSequence: invoices.length, lastChainHash: previous });
  });
});
