// The RKSV receipt chain (src/fiscal/rksv/cashBox.ts) driven directly, with the service's
// clock and the signature unit in the test's hands: consecutive receipt numbers, dates that
// never go back, the failure marker and the collective receipt, month closing, the closing
// receipt. Every journal is checked with the independent verifier.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FiscalDeviceError } from '../../src/fiscal/deviceErrors.js';
import { RegimeRuleError } from '../../src/fiscal/fiscalDevice.js';
import { RksvCashBox, type ReceiptRequest } from '../../src/fiscal/rksv/cashBox.js';
import { SoftwareSignatureUnit, type SignatureUnit } from '../../src/fiscal/rksv/signatureUnit.js';
import { ZERO_TAX_SET } from '../../src/fiscal/rksv/taxSets.js';
import { SecretBox } from '../../src/lib/secretBox.js';
import { createTenantWithKey, createTestApp, TEST_SECRETS_KEY, type TestApp } from '../support/testApp.js';
import { autRegisterWithSession, depOf } from '../support/rksv.js';
import { journalTypes } from '../support/rksvJournal.js';
import { decodeCompactJws, verifyDep } from '../fiscal/independentRksv.js';

const secrets = new SecretBox(TEST_SECRETS_KEY);
const brokenUnit: SignatureUnit = { sign: () => Promise.reject(new Error('the signature card was removed')) };

let t: TestApp;
let apiKey: string;
let now = new Date('2026-03-10T10:00:00Z');

beforeAll(async () => {
  t = await createTestApp({}, { clock: () => now });
  apiKey = (await createTenantWithKey(t.database, 'AUT')).apiKey;
});
afterAll(() => t.close());

/** A fiscalized AUT register's receipt chain, with a signature unit that works or not as `unit.works` says. */
async function cashBox() {
  const fx = await autRegisterWithSession(t.app, apiKey);
  const [{ device_id: deviceId }] = await t.database.sql.query<{ device_id: string }>('SELECT device_id FROM registers WHERE id = $1', [fx.registerId]);
  const unit = { works: true };
  const box = new RksvCashBox(deviceId, fx.registerId, (stored) => (unit.works ? new SoftwareSignatureUnit(deviceId, stored.private_key_enc!, secrets) : brokenUnit), {
    secrets,
    clock: () => now,
    signatureTimeoutMs: 1000,
  });
  const issue = (request: Partial<ReceiptRequest> = {}) =>
    t.database.sql.transaction((sql) =>
      box.issue((_phase, exchange) => exchange(sql, new AbortController().signal), { type: 'standard', amounts: ZERO_TAX_SET, operationId: null, ...request }),
    );
  return { registerId: fx.registerId, unit, issue };
}

const sale = (euros: number): Partial<ReceiptRequest> => ({ amounts: { ...ZERO_TAX_SET, normal: BigInt(euros * 100) } });

async function verifiedReceipts(registerId: string) {
  const { dep, cryptoMaterial } = await depOf(t.database, registerId);
  const verified = verifyDep(dep, cryptoMaterial, { counterBytes: 8 });
  expect(verified.errors).toEqual([]);
  return verified.receipts;
}

describe('RksvCashBox', () => {
  it('numbers receipts consecutively after the start receipt and counts every amount', async () => {
    now = new Date('2026-03-10T10:00:00Z');
    const box = await cashBox();
    const numbers: string[] = [];
    for (const euros of [1, 2, 3, -2, 5]) numbers.push((await box.issue(sale(euros))).record.document_number);
    expect(numbers).toEqual(['2', '3', '4', '5', '6']);
    const receipts = await verifiedReceipts(box.registerId);
    expect(receipts.map((receipt) => receipt.receiptNumber)).toEqual(['1', '2', '3', '4', '5', '6']);
    expect(receipts.at(-1)!.counterCents).toBe(900n);
  });

  it('never dates a receipt before the previous one when the clock goes back', async () => {
    now = new Date('2026-03-10T10:00:00Z');
    const box = await cashBox();
    const first = await box.issue(sale(1));
    now = new Date('2026-03-10T08:00:00Z');
    const second = await box.issue(sale(1));
    expect(second.record.signed_at).toBe(first.record.signed_at);
    expect(decodeCompactJws(second.record.jws).fields.date).toBe('2026-03-10T11:00:00');
    now = new Date('2026-03-10T12:00:00Z');
    expect((await box.issue(sale(1))).record.signed_at).toBe(now.toISOString());
    await verifiedReceipts(box.registerId);
  });

  it('marks receipts while the unit fails; the signed collective receipt comes once, when it works again', async () => {
    now = new Date('2026-03-10T10:00:00Z');
    const box = await cashBox();
    box.unit.works = false;
    expect((await box.issue(sale(4))).record.signature_device_failed).toBe(true);
    expect((await box.issue({ type: 'null' })).record.signature_device_failed).toBe(true);
    box.unit.works = true;
    const recovered = await box.issue(sale(1));
    expect(recovered.record).toMatchObject({ document_number: '5', signature_device_failed: false });
    await box.issue(sale(1));
    expect(await journalTypes(t.database, box.registerId)).toEqual(['start', 'standard', 'null', 'collective', 'standard', 'standard']);
    const receipts = await verifiedReceipts(box.registerId);
    expect(receipts.map((receipt) => receipt.signatureFailed)).toEqual([false, true, true, false, false, false]);
  });

  it('closes the month a requested monthly receipt is signed in, after the one due for the month before', async () => {
    now = new Date('2026-01-20T10:00:00Z');
    const box = await cashBox();
    await box.issue(sale(1));
    now = new Date('2026-02-10T10:00:00Z');
    await box.issue({ type: 'monthly' });
    now = new Date('2026-02-20T10:00:00Z');
    await box.issue(sale(1));
    now = new Date('2026-03-02T10:00:00Z');
    await box.issue(sale(1));
    expect(await journalTypes(t.database, box.registerId)).toEqual(['start', 'standard', 'monthly', 'monthly', 'standard', 'standard']);
    await verifiedReceipts(box.registerId);
  });

  it('refuses a monthly receipt in December and an annual one in another month, issuing nothing', async () => {
    now = new Date('2026-12-01T10:00:00Z');
    const box = await cashBox();
    const refusal = await box.issue({ type: 'monthly' }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(RegimeRuleError);
    expect(refusal).toMatchObject({ regime: 'RKSV', field: 'type' });
    now = new Date('2027-01-05T10:00:00Z');
    await expect(box.issue({ type: 'annual' })).rejects.toBeInstanceOf(RegimeRuleError);
    expect(await journalTypes(t.database, box.registerId)).toEqual(['start']);
  });

  it('issues nothing after the closing receipt', async () => {
    now = new Date('2026-03-10T10:00:00Z');
    const box = await cashBox();
    await box.issue(sale(3));
    expect((await box.issue({ type: 'closing' })).record.document_type).toBe('closing');
    const refusal = await box.issue(sale(1)).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(FiscalDeviceError);
    expect(refusal).toMatchObject({ reason: 'inactive' });
    expect(await journalTypes(t.database, box.registerId)).toEqual(['start', 'standard', 'closing']);
    await verifiedReceipts(box.registerId);
  });
});
