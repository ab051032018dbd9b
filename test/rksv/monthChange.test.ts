// Austria (issue 15 point 7): before the first receipt of a new calendar month in Vienna the
// service signs the monthly receipt of the month before (the annual receipt after December),
// unless one closed that month already. The service's clock is injected and moved.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenantWithKey, createTestApp, json, type TestApp } from '../support/testApp.js';
import { autRegisterWithSession, depOf } from '../support/rksv.js';
import { autSale, journalTypes, listNullReceipts, postNullReceipt } from '../support/rksvJournal.js';
import { decodeCompactJws, verifyDep } from '../fiscal/independentRksv.js';

let t: TestApp;
let apiKey: string;
let now = new Date();

beforeAll(async () => {
  t = await createTestApp({}, { clock: () => now });
  apiKey = (await createTenantWithKey(t.database, 'AUT')).apiKey;
});
afterAll(() => t.close());

async function verifiedDep(registerId: string) {
  const { dep, cryptoMaterial } = await depOf(t.database, registerId);
  const verified = verifyDep(dep, cryptoMaterial, { counterBytes: 8 });
  expect(verified.errors).toEqual([]);
  return verified.receipts;
}

describe('the automatic monthly receipt', () => {
  it("precedes the first sale of February in Vienna, though it is still January in UTC, and carries January's counter", async () => {
    now = new Date('2026-01-31T22:00:00Z'); // 23:00 on 31 January in Vienna
    const fx = await autRegisterWithSession(t.app, apiKey);
    await autSale(t.app, fx, '12.00');
    now = new Date('2026-01-31T23:30:00Z'); // 00:30 on 1 February in Vienna
    const february = await autSale(t.app, fx, '5.00');
    expect(february.fiscal_information).toMatchObject({ document_type: 'standard', document_number: '4' });
    await autSale(t.app, fx, '1.00');

    expect(await journalTypes(t.database, fx.registerId)).toEqual(['start', 'standard', 'monthly', 'standard', 'standard']);
    const nullReceipts = await listNullReceipts(t.app, fx.headers, fx.registerId);
    expect(nullReceipts.map((receipt) => receipt.type)).toEqual(['start', 'monthly']);
    const monthly = nullReceipts[1];
    expect(monthly).toMatchObject({ document_number: '3', signed_at: now.toISOString(), signature_device_failed: false });
    expect(decodeCompactJws(monthly.jws).fields.date).toBe('2026-02-01T00:30:00');
    const receipts = await verifiedDep(fx.registerId);
    expect(receipts.map((receipt) => receipt.counterCents)).toEqual([0n, 1200n, 1200n, 1700n, 1800n]);
  });

  it('is the annual receipt from December to January', async () => {
    now = new Date('2026-12-15T09:00:00Z');
    const fx = await autRegisterWithSession(t.app, apiKey);
    await autSale(t.app, fx);
    now = new Date('2027-01-02T08:00:00Z');
    expect((await autSale(t.app, fx)).fiscal_information.document_number).toBe('4');
    expect(await journalTypes(t.database, fx.registerId)).toEqual(['start', 'standard', 'annual', 'standard']);
    await verifiedDep(fx.registerId);
  });

  it('is not signed when a monthly receipt requested in the month closed it already', async () => {
    now = new Date('2026-04-20T10:00:00Z');
    const fx = await autRegisterWithSession(t.app, apiKey);
    await autSale(t.app, fx);
    expect((await postNullReceipt(t.app, fx.headers, fx.registerId, 'monthly')).statusCode).toBe(201);
    now = new Date('2026-04-30T21:00:00Z'); // 23:00 on 30 April in Vienna
    await autSale(t.app, fx);
    now = new Date('2026-05-02T10:00:00Z');
    await autSale(t.app, fx);
    expect(await journalTypes(t.database, fx.registerId)).toEqual(['start', 'standard', 'monthly', 'standard', 'standard']);
    await verifiedDep(fx.registerId);
  });

  it('precedes a null receipt requested in the new month', async () => {
    now = new Date('2026-06-30T21:00:00Z'); // 23:00 on 30 June in Vienna (summer time)
    const fx = await autRegisterWithSession(t.app, apiKey);
    await autSale(t.app, fx);
    now = new Date('2026-06-30T22:00:00Z'); // midnight, 1 July in Vienna
    const requested = json(await postNullReceipt(t.app, fx.headers, fx.registerId, 'null'));
    expect(requested).toMatchObject({ type: 'null', document_number: '4' });
    expect(await journalTypes(t.database, fx.registerId)).toEqual(['start', 'standard', 'monthly', 'null']);
    await verifiedDep(fx.registerId);
  });
});
