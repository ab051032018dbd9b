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

/** Statements and round trips of one signed sale flow per regime (see the last describe). */
const BUDGET = {
  // Per request the auth query; create: sequence number and session (one turn), the operation and the stored response; complete: the operation with its TSE, the counters with the log row, receipt, event and response.
  germany: { statements: 16, roundTrips: 7 },
  austria: { statements: 17, roundTrips: 7 },
  italy: { statements: 18, roundTrips: 8 },
};

let t: TestApp;
let transactions: { reads: string[]; writes: number }[] = [];
/** Statements sent outside any transaction (the auth query of each request, ...). */
let standalone = 0;

beforeAll(async () => {
  t = await createTestApp();
  const sql = t.app.ctx.sql;
  const query = sql.query.bind(sql);
  const write = sql.write.bind(sql);
  sql.query = (text, params) => {
    standalone += 1;
    return query(text, params);
  };
  sql.write = (text, params) => {
    standalone += 1;
    return write(text, params);
  };
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

/**
 * What `call` costs the database: every statement (BEGIN and COMMIT counted), and the round
 * trips on PostgreSQL: one a standalone statement, one a read in a transaction (reads sent in
 * one turn share one, so this is the most), and one for COMMIT with the held writes.
 */
async function costOf(call: () => Promise<unknown>) {
  standalone = 0;
  const inTransactions = await transactionsOf(call);
  return {
    statements: standalone + inTransactions.reduce((sum, tx) => sum + 2 + tx.reads.length + tx.writes, 0),
    roundTrips: standalone + inTransactions.reduce((sum, tx) => sum + tx.reads.length + 1, 0),
  };
}

async function readsOfASignedSale(fx: OperationsFixture, body: object) {
  let created: any;
  const create = await transactionsOf(async () => (created = await mustCreate(t.app, fx.headers, body)));
  const complete = await transactionsOf(() => mustComplete(t.app, fx.headers, created));
  return { create, complete };
}

describe('the reads of a signed sale, a round trip each on PostgreSQL', () => {
  it('Germany (TSE): the create reads its sequence number and session together; the completion locks the operation and its TSE in one read', async () => {
    const fx = await fiscalizedRegisterWithSession(t.app, (await createTenantWithKey(t.database, 'DEU')).apiKey);
    const { create, complete } = await readsOfASignedSale(fx, saleBody(fx.registerId));
    expect(create).toEqual([{ reads: ['UPDATE registers SET', 'SELECT s.status FROM'], writes: 2 }]);
    expect(complete).toHaveLength(1);
    expect(complete[0].reads).toEqual(['WITH target AS']);
    expect(complete[0].writes).toBeGreaterThanOrEqual(5);
  });

  it('Austria (RKSV): the completion locks the operation and its receipt chain in one read; the chain and the receipt are written with the rest', async () => {
    const fx = await autRegisterWithSession(t.app, (await createTenantWithKey(t.database, 'AUT')).apiKey);
    const { complete } = await readsOfASignedSale(fx, { type: 'sale', source: 'POS', currency: 'EUR', register_id: fx.registerId, total_amount: '4.90', line_items: [autLine('Melange', '4.90', '0.10')] });
    expect(complete).toHaveLength(1);
    expect(complete[0].reads).toEqual(['WITH target AS']);
    expect(complete[0].writes).toBeGreaterThanOrEqual(6);
  });

  it('Italy (RT simulator): the completion locks the operation and its device in one read, then takes the document number from the device; the journal is written with the rest', async () => {
    const fx = await itaRegisterWithSession(t.app, (await createTenantWithKey(t.database, 'ITA')).apiKey);
    const { complete } = await readsOfASignedSale(fx, itaMovement(fx, 'sale', [itaLine('Caffè', '1.20', '0.10')]));
    expect(complete).toHaveLength(1);
    expect(complete[0].reads).toEqual(['WITH target AS', 'UPDATE rt_devices SET']);
    expect(complete[0].writes).toBeGreaterThanOrEqual(6);
  });
});

// The regression gate of issue 45: a signed sale flow (create + complete) costs exactly this many
// statements and round trips. Counts are the same on any host and either database; a change that
// adds one fails here (and says what it buys in docs/performance.md), one that removes one lowers them.
describe('the statement budget of a signed sale flow (create + complete)', () => {
  const flow = async (fx: OperationsFixture, body: object) => {
    let created: any;
    return costOf(async () => {
      created = await mustCreate(t.app, fx.headers, body);
      await mustComplete(t.app, fx.headers, created);
    });
  };

  it('Germany (software TSE)', async () => {
    const fx = await fiscalizedRegisterWithSession(t.app, (await createTenantWithKey(t.database, 'DEU')).apiKey);
    expect(await flow(fx, saleBody(fx.registerId))).toEqual(BUDGET.germany);
  });

  it('Austria (software RKSV unit)', async () => {
    const fx = await autRegisterWithSession(t.app, (await createTenantWithKey(t.database, 'AUT')).apiKey);
    expect(await flow(fx, { type: 'sale', source: 'POS', currency: 'EUR', register_id: fx.registerId, total_amount: '4.90', line_items: [autLine('Melange', '4.90', '0.10')] })).toEqual(BUDGET.austria);
  });

  it('Italy (RT simulator)', async () => {
    const fx = await itaRegisterWithSession(t.app, (await createTenantWithKey(t.database, 'ITA')).apiKey);
    expect(await flow(fx, itaMovement(fx, 'sale', [itaLine('Caffè', '1.20', '0.10')]))).toEqual(BUDGET.italy);
  });
});
