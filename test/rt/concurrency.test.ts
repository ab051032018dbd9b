// Counters never lie in Italy either (issue 16 point 8): concurrent completes on one RT register
// take the progressives 1..N of the fiscal day without gap or repeat, each journaled once; on
// PostgreSQL also with two service instances sharing one database.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPeerApp, createTenantWithKey, createTestApp, json, type TestApp } from '../support/testApp.js';
import { completeOp, createOperation, type OperationsFixture } from '../support/operations.js';
import { itaLine, itaMovement, itaRegisterWithSession } from '../support/rt.js';

const N = 50;

let t: TestApp;
let fx: OperationsFixture;

beforeAll(async () => {
  t = await createTestApp();
  fx = await itaRegisterWithSession(t.app, (await createTenantWithKey(t.database, 'ITA')).apiKey);
});
afterAll(() => t.close());

async function burst(apps: FastifyInstance[]): Promise<any[]> {
  const created = await Promise.all(
    Array.from({ length: N }, (_, i) => createOperation(apps[i % apps.length]!, fx.headers, itaMovement(fx, 'sale', [itaLine('Caffè', `${(i % 5) + 1}.10`, '0.10')]))),
  );
  expect(created.map((response) => response.statusCode)).toEqual(Array(N).fill(201));
  const completed = await Promise.all(
    created.map((response, i) => {
      const sale = json(response);
      return completeOp(apps[i % apps.length]!, fx.headers, sale, [{ method: 'credit_card', amount: sale.total_amount }]);
    }),
  );
  expect(completed.filter((response) => response.statusCode !== 200).map((response) => response.body)).toEqual([]);
  return completed.map((response) => json(response).fiscal_information);
}

/** The burst's progressives are the N after `before`, and the journal holds each document once. */
async function expectGaplessNumbering(signed: any[], before: number): Promise<number> {
  const progressives = signed.map((fiscal) => fiscal.document_progressive as number).sort((a, b) => a - b);
  expect(progressives).toEqual(Array.from({ length: N }, (_, i) => before + i + 1));
  expect(new Set(signed.map((fiscal) => fiscal.document_number)).size).toBe(N);
  const journal = await t.database.sql.query<{ progressive: number }>('SELECT progressive FROM rt_documents WHERE register_id = $1 ORDER BY progressive', [fx.registerId]);
  expect(journal.map((row) => row.progressive)).toEqual(Array.from({ length: before + N }, (_, i) => i + 1));
  return before + N;
}

let afterFirst: number;

describe(`${N} concurrent completes on one RT register`, () => {
  it('number the documents of the fiscal day without gap or repeat', { timeout: 60_000 }, async () => {
    afterFirst = await expectGaplessNumbering(await burst([t.app]), 0);
  });
});

describe('two service instances sharing one PostgreSQL database', () => {
  it.skipIf(!process.env.DATABASE_URL)('keep the numbering gapless', { timeout: 60_000 }, async () => {
    const peer = await createPeerApp(t, { EXPORT_WORKER: 'off' });
    try {
      await expectGaplessNumbering(await burst([t.app, peer.app]), afterFirst);
    } finally {
      await peer.close();
    }
  });
});
