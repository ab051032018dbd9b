// Counters never lie in Austria either (issue 15 point 9): concurrent completes on one RKSV
// register take unique, consecutive receipt numbers; the chain over the journal is unbroken and
// the turnover counter equals the sum of every receipt's amounts, checked by the independent
// verifier; on PostgreSQL also with two service instances sharing one database.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPeerApp, createTenantWithKey, createTestApp, json, type TestApp } from '../support/testApp.js';
import { completeOp, createOperation, type OperationsFixture } from '../support/operations.js';
import { autLine, autRegisterWithSession, depOf } from '../support/rksv.js';
import { verifyDep } from '../fiscal/independentRksv.js';

const N = 50;

let t: TestApp;
let fx: OperationsFixture;

beforeAll(async () => {
  t = await createTestApp();
  fx = await autRegisterWithSession(t.app, (await createTenantWithKey(t.database, 'AUT')).apiKey);
});
afterAll(() => t.close());

/** N sales created at once, then completed at once, spread round-robin over `apps`. */
async function burst(apps: FastifyInstance[]): Promise<any[]> {
  const created = await Promise.all(
    Array.from({ length: N }, (_, i) =>
      createOperation(apps[i % apps.length]!, fx.headers, {
        type: 'sale',
        source: 'POS',
        register_id: fx.registerId,
        currency: 'EUR',
        total_amount: `${(i % 7) + 1}.35`,
        line_items: [autLine('Melange', `${(i % 7) + 1}.35`, i % 2 ? '0.10' : '0.20')],
      }),
    ),
  );
  expect(created.map((response) => response.statusCode)).toEqual(Array(N).fill(201));
  const completed = await Promise.all(created.map((response, i) => completeOp(apps[i % apps.length]!, fx.headers, json(response))));
  expect(completed.filter((response) => response.statusCode !== 200).map((response) => response.body)).toEqual([]);
  return completed.map((response) => json(response).fiscal_information);
}

/** The journal verifies whole, and the burst's receipt numbers are the N after `before`. */
async function expectHonestJournal(signed: any[], before: number): Promise<number> {
  const numbers = signed.map((fiscal) => Number(fiscal.document_number)).sort((a, b) => a - b);
  expect(numbers).toEqual(Array.from({ length: N }, (_, i) => before + i + 1));
  const { dep, cryptoMaterial } = await depOf(t.database, fx.registerId);
  const verified = verifyDep(dep, cryptoMaterial, { counterBytes: 8 });
  expect(verified.errors).toEqual([]);
  const receipts = verified.receipts;
  expect(receipts).toHaveLength(before + N);
  const sum = receipts.reduce((total, receipt) => total + receipt.amountsCents.reduce((a, b) => a + b, 0n), 0n);
  expect(receipts.at(-1)!.counterCents).toBe(sum);
  return before + N;
}

let afterFirst: number;

describe(`${N} concurrent completes on one RKSV register`, () => {
  it('take consecutive receipt numbers; the chain is unbroken and the counter is the sum', { timeout: 60_000 }, async () => {
    afterFirst = await expectHonestJournal(await burst([t.app]), 1);
  });
});

describe('two service instances sharing one PostgreSQL database', () => {
  it.skipIf(!process.env.DATABASE_URL)('keep the same journal honest', { timeout: 60_000 }, async () => {
    const peer = await createPeerApp(t, { EXPORT_WORKER: 'off' });
    try {
      await expectHonestJournal(await burst([t.app, peer.app]), afterFirst);
    } finally {
      await peer.close();
    }
  });
});
