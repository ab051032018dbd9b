// Counters never lie with null receipts either (issue 15 points 7 and 9): completes and null
// receipts at once on one AUT register give one monthly receipt at a month change, unique
// receipt numbers, an unbroken chain and the right counter; after a closing receipt, also one
// that completes waited for on another instance, no complete is signed (409).
import { setTimeout } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPeerApp, createTenantWithKey, createTestApp, json, type TestApp } from '../support/testApp.js';
import { completeOp, expectApiError, simulate, type OperationsFixture } from '../support/operations.js';
import { autRegisterWithSession, depOf } from '../support/rksv.js';
import { autSale, journalTypes, openAutSale, postNullReceipt } from '../support/rksvJournal.js';
import { verifyDep } from '../fiscal/independentRksv.js';

// Long enough for the completes sent during a hanging signature to reach the database meanwhile,
// and for the last of 25 receipts queued on one register's chain lock (the bound covers the wait)
// on a CI host three times slower than usual.
const DEVICE_TIMEOUT_MS = '2000';

let t: TestApp;
let apiKey: string;
let now = new Date();

beforeAll(async () => {
  t = await createTestApp({ DEVICE_TIMEOUT_MS }, { clock: () => now });
  apiKey = (await createTenantWithKey(t.database, 'AUT')).apiKey;
});
afterAll(() => t.close());

async function verifiedReceipts(registerId: string) {
  const { dep, cryptoMaterial } = await depOf(t.database, registerId);
  const verified = verifyDep(dep, cryptoMaterial, { counterBytes: 8 });
  expect(verified.errors).toEqual([]);
  return verified.receipts;
}

async function openSales(fx: OperationsFixture, count: number) {
  const sales = [];
  for (let i = 0; i < count; i += 1) sales.push(await openAutSale(t.app, fx, `${i + 1}.00`));
  return sales;
}

/** 1 + 2 + ... + n euros, in cents. */
const firstEurosCents = (n: number) => BigInt(n * (n + 1) * 50);

describe('completes and null receipts at once', () => {
  it('at a month change: one monthly receipt first, unique numbers, an unbroken chain, the right counter', async () => {
    now = new Date('2026-01-31T22:00:00Z');
    const fx = await autRegisterWithSession(t.app, apiKey);
    await autSale(t.app, fx, '100.00');
    const sales = await openSales(fx, 20);
    now = new Date('2026-01-31T23:30:00Z'); // February in Vienna

    const answers = await Promise.all([
      ...sales.map((sale) => completeOp(t.app, fx.headers, sale)),
      ...Array.from({ length: 5 }, () => postNullReceipt(t.app, fx.headers, fx.registerId, 'null')),
    ]);
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([...Array(20).fill(200), ...Array(5).fill(201)]);

    const types = await journalTypes(t.database, fx.registerId);
    expect(types.slice(0, 3)).toEqual(['start', 'standard', 'monthly']);
    expect(types.filter((type) => type === 'monthly')).toHaveLength(1);
    expect(types.filter((type) => type === 'null')).toHaveLength(5);
    const receipts = await verifiedReceipts(fx.registerId);
    expect(receipts.map((receipt) => receipt.receiptNumber)).toEqual(receipts.map((_, i) => String(i + 1)));
    expect(receipts.at(-1)!.counterCents).toBe(10_000n + firstEurosCents(20));
  });
});

describe('a closing receipt amid completes', () => {
  let peer: { app: FastifyInstance; close(): Promise<void> } | undefined;
  afterAll(() => peer?.close());

  it('lets the completes before it sign, and refuses those that waited for it or came after (422: no active device), on one or two instances', async () => {
    now = new Date('2026-03-10T10:00:00Z');
    peer = t.databaseUrl ? await createPeerApp(t, { DEVICE_TIMEOUT_MS }, { clock: () => now }) : undefined;
    const apps = peer ? [t.app, peer.app] : [t.app];
    const fx = await autRegisterWithSession(t.app, apiKey);
    const sales = await openSales(fx, 15);
    const complete = (sale: any, i: number) => completeOp(apps[i % apps.length]!, fx.headers, sale);

    const before = await Promise.all(sales.slice(0, 5).map(complete));
    // A hanging signature device keeps the closing receipt's transaction open until the device timeout,
    // so the completes sent meanwhile wait for it, having read the register as it was.
    await simulate(t.app, fx.headers, fx.registerId, 'timeout');
    const closing = postNullReceipt(apps[1 % apps.length]!, fx.headers, fx.registerId, 'closing');
    await setTimeout(Number(DEVICE_TIMEOUT_MS) / 3);
    const amid = await Promise.all(sales.slice(5, 10).map(complete));
    expect(json(await closing)).toMatchObject({ type: 'closing', signature_device_failed: true });
    const after = await Promise.all(sales.slice(10).map(complete));

    expect(before.map((answer) => answer.statusCode)).toEqual(Array(5).fill(200));
    // Those sent during the closing receipt are refused; one that reached the register first (a slow machine) signs before it.
    const signedAmid = amid.filter((answer) => answer.statusCode === 200);
    for (const answer of [...amid.filter((answer) => answer.statusCode !== 200), ...after]) expectApiError(answer, 422, 'validation_error');
    expect(await journalTypes(t.database, fx.registerId)).toEqual(['start', ...Array(5 + signedAmid.length).fill('standard'), 'closing']);
    await verifiedReceipts(fx.registerId);
  });
});
