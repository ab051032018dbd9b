// Austria (issue 15 point 6): while the signature device fails (sandbox simulation
// unreachable, timeout or reject_after_start) receipts are issued all the same with the
// failure marker, chained and counted, and operations complete; once it works again a signed
// collective receipt comes, automatically, before the next receipt. The DEP of the whole walk
// verifies with the independent verifier.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenantWithKey, createTestApp, json, type TestApp } from '../support/testApp.js';
import { simulate } from '../support/operations.js';
import { autRegisterWithSession, depOf } from '../support/rksv.js';
import { autSale, journalTypes, listNullReceipts, postNullReceipt } from '../support/rksvJournal.js';
import { decodeCompactJws, verifyDep, verifyReceiptQr } from '../fiscal/independentRksv.js';

/** The failure marker as the JWS signature segment (reference rksv.md §6.1). */
const FAILED_SEGMENT = 'U2ljaGVyaGVpdHNlaW5yaWNodHVuZyBhdXNnZWZhbGxlbg';

let t: TestApp;
let apiKey: string;

beforeAll(async () => {
  // A hanging device is given up on after 150 ms.
  t = await createTestApp({ DEVICE_TIMEOUT_MS: '150' });
  apiKey = (await createTenantWithKey(t.database, 'AUT')).apiKey;
});
afterAll(() => t.close());

async function verifiedDep(registerId: string) {
  const { aesKey, dep, cryptoMaterial } = await depOf(t.database, registerId);
  const verified = verifyDep(dep, cryptoMaterial, { counterBytes: 8 });
  expect(verified.errors).toEqual([]);
  return { aesKey, receipts: verified.receipts };
}

describe('a failing signature device', () => {
  it.each(['unreachable', 'timeout', 'reject_after_start'] as const)(
    '%s: sales complete with the failure marker, chained and counted; after recovery a signed collective receipt precedes the next one',
    async (mode) => {
      const fx = await autRegisterWithSession(t.app, apiKey);
      await autSale(t.app, fx, '10.00');

      await simulate(t.app, fx.headers, fx.registerId, mode);
      const failed = await autSale(t.app, fx, '4.50');
      expect(failed.status).toBe('completed');
      const fiscal = failed.fiscal_information;
      expect(fiscal).toMatchObject({ document_type: 'standard', document_number: '3', signature_device_failed: true });
      expect(fiscal.jws.split('.')[2]).toBe(FAILED_SEGMENT);
      expect(decodeCompactJws(fiscal.jws).signatureFailed).toBe(true);
      const { aesKey } = await depOf(t.database, fx.registerId);
      // The failed receipt still carries the counter: 10.00 + 4.50.
      expect(verifyReceiptQr(fiscal.verification.qr_data, fiscal.public_key, aesKey, 1450n).errors).toEqual([]);

      // A null receipt during the outage carries the marker too; no collective receipt is possible yet.
      const outageNull = json(await postNullReceipt(t.app, fx.headers, fx.registerId, 'null'));
      expect(outageNull).toMatchObject({ type: 'null', document_number: '4', signature_device_failed: true });
      expect((await autSale(t.app, fx, '1.00')).fiscal_information).toMatchObject({ document_number: '5', signature_device_failed: true });

      await simulate(t.app, fx.headers, fx.registerId, 'ok');
      const recovered = await autSale(t.app, fx, '2.00');
      expect(recovered.fiscal_information).toMatchObject({ document_number: '7', signature_device_failed: false });
      await autSale(t.app, fx, '3.00');

      expect(await journalTypes(t.database, fx.registerId)).toEqual(['start', 'standard', 'standard', 'null', 'standard', 'collective', 'standard', 'standard']);
      const nullReceipts = await listNullReceipts(t.app, fx.headers, fx.registerId);
      expect(nullReceipts.map((receipt) => [receipt.type, receipt.document_number, receipt.signature_device_failed])).toEqual([
        ['start', '1', false],
        ['null', '4', true],
        ['collective', '6', false],
      ]);
      const { receipts } = await verifiedDep(fx.registerId);
      expect(receipts.map((receipt) => receipt.signatureFailed)).toEqual([false, false, true, true, true, false, false, false]);
      expect(receipts.map((receipt) => receipt.counterCents)).toEqual([0n, 1000n, 1450n, 1450n, 1550n, 1550n, 1750n, 2050n]);
    },
  );

  it('a closing receipt during an outage carries the marker and still takes the register out of service', async () => {
    const fx = await autRegisterWithSession(t.app, apiKey);
    await simulate(t.app, fx.headers, fx.registerId, 'unreachable');
    await autSale(t.app, fx);
    const closing = json(await postNullReceipt(t.app, fx.headers, fx.registerId, 'closing'));
    expect(closing).toMatchObject({ type: 'closing', document_number: '3', signature_device_failed: true });
    const register = json(await t.app.inject({ method: 'GET', url: `/v1/registers/${fx.registerId}`, headers: fx.headers }));
    expect(register).toMatchObject({ fiscalization_status: 'decommissioned', status: 'inactive' });
    expect(await journalTypes(t.database, fx.registerId)).toEqual(['start', 'standard', 'closing']);
    await verifiedDep(fx.registerId);
  });
});
