// On PostgreSQL a transaction costs a round trip for each statement whose rows it reads (in one
// turn of the event loop, reads share one); every other statement is held and leaves with the
// next read or the COMMIT (src/db/sql.ts). So the reads of a signed sale are its round trips: this
// holds each regime's to what its device must answer (the RKSV and RT journals once were reads).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlClient } from '../../src/db/sql.js';
import { fiscalizedRegisterWithSession, mustComplete, mustCreate, saleBody, type OperationsFixture } from '../support/operations.js';
import { autLine, autRegisterWithSession } from '../support/rksv.js';
import { itaLine, itaMovement, itaRegisterWithSession } from '../support/rt.js';
import { createTenantWithKey, createTestApp, type TestApp } from '../support/testApp.js';

let t: TestApp;
let transactions: { reads: string[]; writes: number }[] = [];

beforeAll(async () => {
  t = await createTestApp();
  const sql = t.app.ctx.sql;
  const transaction = sql.transaction.bind(sql);
  sql.transaction = (work) =>
    transaction((tx) => {
      const seen = { reads: [] as string[], writes: 0 };
      transactions.push(seen);
      const recording: SqlClient = {
        ...tx,
        query: (text, params) => {
          seen.reads.push(text.trim().split(/\s+/).slice(0, 3).join(' '));
          return tx.query(text, params);
        },
        write: (text, params) => {
          seen.writes += 1;
          return tx.write(text, params);
        },
      };
      return work(recording);
    });
});
afterAll(() => t.close());

/** The transactions of `call`, each as the statements it read (their first words) and the number it held. */
async function transactionsOf(call: () => Promise<unknown>) {
  transactions = [];
  await call();
  return transactions;
}

async function readsOfASignedSale(fx: OperationsFixture, body: object) {
  let created: any;
  const create = await transactionsOf(async () => (created = await mustCreate(t.app, fx.headers, body)));
  const complete = await transactionsOf(() => mustComplete(t.app, fx.headers, created));
  return { create, complete };
}

describe('the reads of a signed sale, a round trip each on PostgreSQL', () => {
  it('Germany (TSE): the create reads its sequence number and session together; the completion locks the operation, then takes the TSE counters', async () => {
    const fx = await fiscalizedRegisterWithSession(t.app, (await createTenantWithKey(t.database, 'DEU')).apiKey);
    const { create, complete } = await readsOfASignedSale(fx, saleBody(fx.registerId));
    expect(create).toEqual([{ reads: ['UPDATE registers SET', 'SELECT s.status FROM'], writes: 2 }]);
    expect(complete).toHaveLength(1);
    expect(complete[0].reads).toEqual(['WITH target AS', 'UPDATE tse_devices SET']);
    expect(complete[0].writes).toBeGreaterThanOrEqual(5);
  });

  it('Austria (RKSV): the completion locks the operation, then the receipt chain; the chain and the receipt are written with the rest', async () => {
    const fx = await autRegisterWithSession(t.app, (await createTenantWithKey(t.database, 'AUT')).apiKey);
    const { complete } = await readsOfASignedSale(fx, { type: 'sale', source: 'POS', currency: 'EUR', register_id: fx.registerId, total_amount: '4.90', line_items: [autLine('Melange', '4.90', '0.10')] });
    expect(complete).toHaveLength(1);
    expect(complete[0].reads).toEqual(['WITH target AS', 'SELECT cash_register_id, signature_device_id,']);
    expect(complete[0].writes).toBeGreaterThanOrEqual(6);
  });

  it('Italy (RT simulator): the completion locks the operation, then the device, then takes the document number; the journal is written with the rest', async () => {
    const fx = await itaRegisterWithSession(t.app, (await createTenantWithKey(t.database, 'ITA')).apiKey);
    const { complete } = await readsOfASignedSale(fx, itaMovement(fx, 'sale', [itaLine('Caffè', '1.20', '0.10')]));
    expect(complete).toHaveLength(1);
    expect(complete[0].reads).toEqual(['WITH target AS', 'SELECT id, driver,', 'UPDATE rt_devices SET']);
    expect(complete[0].writes).toBeGreaterThanOrEqual(6);
  });
});
