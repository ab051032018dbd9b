// Complete signs through the KassenSichV TSE: every field of contract 2.2's
// fiscal_information, the DSFinV-K receipt QR string, and a signature that
// verifies with node:crypto and with the openssl CLI over a TR-03151 log message
// rebuilt independently (test/fiscal/independentDtbs.ts) from the published fields.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenantWithKey, createTestApp, json, type TestApp } from '../support/testApp.js';
import {
  completeOp,
  fiscalizedRegisterWithSession,
  getOp,
  mustComplete,
  mustCreate,
  saleBody,
  type OperationsFixture,
} from '../support/operations.js';
import {
  eventDtbs,
  finishSignerOf,
  opensslVerifies,
  verifiesEvent,
  verifiesFiscalInformation,
  type FiscalInformation,
} from '../fiscal/independentDtbs.js';

let t: TestApp;
let fx: OperationsFixture;
let register: any;

beforeAll(async () => {
  t = await createTestApp();
  const tenant = await createTenantWithKey(t.database, 'DEU');
  fx = await fiscalizedRegisterWithSession(t.app, tenant.apiKey);
  register = json(await t.app.inject({ method: 'GET', url: `/v1/registers/${fx.registerId}`, headers: fx.headers }));
});
afterAll(() => t.close());

const TSE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.000Z$/;

/** The fiscal_information with some end_event fields changed, as a forger would. */
const withEndEvent = (fiscal: FiscalInformation, changes: Partial<FiscalInformation['end_event']>): FiscalInformation => ({
  ...fiscal,
  end_event: { ...fiscal.end_event, ...changes },
});

/** Reference §10.2: the end_event checked by the openssl CLI instead of node:crypto. */
const verifiesWithOpenssl = (fiscal: FiscalInformation): boolean =>
  opensslVerifies(
    eventDtbs(fiscal.end_event, finishSignerOf(fiscal)),
    Buffer.from(fiscal.end_event.signature, 'base64'),
    Buffer.from(fiscal.end_event.public_key, 'base64'),
    fiscal.signature_algorithm,
  );

async function tseDevice() {
  return t.database.prisma.tseDevice.findUniqueOrThrow({ where: { serialNumber: register.fiscalization.tse_serial } });
}

describe('fiscal_information of a completed sale', () => {
  let fiscal: any;

  beforeAll(async () => {
    const body = saleBody(fx.registerId, {
      pretax_amount: '15.00',
      tax_amount: '2.25',
      total_amount: '17.25',
      line_items: [
        saleBody(fx.registerId).line_items[0],
        { title: 'Milch', quantity: 1, unit_price: '5.35', total_amount: '5.35', sku_identifier: 'SKU-MILCH', taxes: [{ name: 'MwSt', rate: '0.07', tax_amount: '0.35' }] },
      ],
    });
    const sale = await mustCreate(t.app, fx.headers, body);
    const completed = await mustComplete(t.app, fx.headers, sale, [
      { payment_id: 'p1', method: 'cash', amount: '5.00', currency: 'EUR', status: 'captured' },
      { payment_id: 'p2', method: 'card', amount: '12.25', currency: 'EUR', status: 'captured' },
    ]);
    fiscal = completed.fiscal_information;
    expect(json(await getOp(t.app, fx.headers, sale.id)).fiscal_information).toEqual(fiscal);
  });

  it('carries every KassenSichV field of contract 2.2', () => {
    expect(Object.keys(fiscal).sort()).toEqual(
      ['document_number', 'document_type', 'end_event', 'pos_client_serial_number', 'regime', 'signature_algorithm', 'start_event', 'time_format', 'tss_serial_number', 'verification'].sort(),
    );
    expect(fiscal).toMatchObject({
      regime: 'KassenSichV',
      document_number: expect.stringMatching(/\S/),
      document_type: 'Beleg',
      tss_serial_number: register.fiscalization.tse_serial,
      pos_client_serial_number: register.fiscalization.client_id,
      signature_algorithm: 'ecdsa-plain-SHA256',
      time_format: 'unixTime',
    });
    // The start event carries only signed_at (contract 9.4).
    expect(Object.keys(fiscal.start_event)).toEqual(['signed_at']);
    expect(fiscal.start_event.signed_at).toMatch(TSE_TIME);
    expect(fiscal.end_event).toEqual({
      signed_at: expect.stringMatching(TSE_TIME),
      transaction_counter: expect.any(Number),
      signature_counter: expect.any(Number),
      signature: expect.any(String),
      public_key: expect.any(String),
      process_type: 'Kassenbeleg-V1',
      process_data: 'Beleg^11.90_5.35_0.00_0.00_0.00^5.00:Bar_12.25:Unbar',
    });
    expect(Date.parse(fiscal.start_event.signed_at)).toBeLessThanOrEqual(Date.parse(fiscal.end_event.signed_at));
    expect(Number.isInteger(fiscal.end_event.transaction_counter) && fiscal.end_event.transaction_counter > 0).toBe(true);
    expect(Buffer.from(fiscal.end_event.signature, 'base64')).toHaveLength(64);
    expect(Object.keys(fiscal.verification)).toEqual(['qr_data']);
  });

  it('tss_serial_number is the SHA-256 of the uncompressed public key point', () => {
    const point = Buffer.from(fiscal.end_event.public_key, 'base64');
    expect(point).toHaveLength(65);
    expect(point[0]).toBe(0x04);
    expect(createHash('sha256').update(point).digest('hex')).toBe(fiscal.tss_serial_number);
  });

  it('verification.qr_data is the DSFinV-K V0 string with the same values as the fields', () => {
    const fields = fiscal.verification.qr_data.split(';');
    expect(fields).toEqual([
      'V0',
      fiscal.pos_client_serial_number,
      fiscal.end_event.process_type,
      fiscal.end_event.process_data,
      String(fiscal.end_event.transaction_counter),
      String(fiscal.end_event.signature_counter),
      fiscal.start_event.signed_at,
      fiscal.end_event.signed_at,
      fiscal.signature_algorithm,
      fiscal.time_format,
      fiscal.end_event.signature,
      fiscal.end_event.public_key,
    ]);
  });

  it('the end_event signature verifies with node:crypto over the rebuilt log message', () => {
    expect(verifiesFiscalInformation(fiscal)).toBe(true);
    // The check is meaningful: any changed field breaks it.
    expect(verifiesFiscalInformation(withEndEvent(fiscal, { process_data: fiscal.end_event.process_data.replace('11.90', '11.91') }))).toBe(false);
    expect(verifiesFiscalInformation(withEndEvent(fiscal, { signature_counter: fiscal.end_event.signature_counter + 1 }))).toBe(false);
    expect(verifiesFiscalInformation(withEndEvent(fiscal, { signed_at: new Date(Date.parse(fiscal.end_event.signed_at) + 1000).toISOString() }))).toBe(false);
  });

  it('the end_event signature verifies with the openssl CLI', () => {
    expect(verifiesWithOpenssl(fiscal)).toBe(true);
    expect(verifiesWithOpenssl(withEndEvent(fiscal, { transaction_counter: fiscal.end_event.transaction_counter + 1 }))).toBe(false);
  });

  it('the TSE kept the start log too: signed, one signature before the finish', async () => {
    const device = await tseDevice();
    const row = await t.database.prisma.tseTransaction.findUniqueOrThrow({
      where: { tseId_transactionNumber: { tseId: device.id, transactionNumber: BigInt(fiscal.end_event.transaction_counter) } },
    });
    expect(row.state).toBe('finished');
    expect(Number(row.finishSignatureCounter)).toBe(fiscal.end_event.signature_counter);
    expect(Number(row.startSignatureCounter)).toBeLessThan(fiscal.end_event.signature_counter);
    expect(row.startLogTime.toISOString()).toBe(fiscal.start_event.signed_at);
    expect(row.finishSignature).toBe(fiscal.end_event.signature);
    const start = {
      signed_at: row.startLogTime.toISOString(),
      transaction_counter: fiscal.end_event.transaction_counter,
      signature_counter: Number(row.startSignatureCounter),
      signature: row.startSignature,
      process_type: '',
      process_data: '',
    };
    expect(verifiesEvent(start, { ...finishSignerOf(fiscal), operationType: 'StartTransaction' })).toBe(true);
  });

  it('the next completion takes the next transaction number and the next two signature counters', async () => {
    const next = (await mustComplete(t.app, fx.headers, await mustCreate(t.app, fx.headers, saleBody(fx.registerId)))).fiscal_information;
    expect(next.end_event.transaction_counter).toBe(fiscal.end_event.transaction_counter + 1);
    expect(next.end_event.signature_counter).toBe(fiscal.end_event.signature_counter + 2);
    expect(Number(next.document_number)).toBeGreaterThan(Number(fiscal.document_number));
    expect(verifiesFiscalInformation(next)).toBe(true);
  });
});

describe('session events', () => {
  const storedFiscal = async (id: string) => (await t.database.prisma.operation.findUniqueOrThrow({ where: { id } })).fiscalInformation as any;
  const counters = async () => {
    const device = await tseDevice();
    return {
      signature: Number(device.signatureCounter),
      transaction: Number(device.transactionCounter),
      transactions: await t.database.prisma.tseTransaction.count({ where: { tseId: device.id } }),
    };
  };

  it('open and cash adjustment are not signed', async () => {
    const before = await counters();
    const adjustment = await mustCreate(t.app, fx.headers, { type: 'session_cash_adjustment', register_id: fx.registerId, amount: '-10.00' });
    expect(await storedFiscal(adjustment.id)).toBeNull();
    expect(await counters()).toEqual(before);
  });

  it('the cash count is signed (SonstigerVorgang) and its signature verifies', async () => {
    const before = await counters();
    const counted = await mustCreate(t.app, fx.headers, { type: 'session_cash_count', register_id: fx.registerId, counted_closing_amount: '100.00' });
    // GET does not publish fiscal_information for session variants; the stored record is what the TSE signed.
    expect(json(await getOp(t.app, fx.headers, counted.id))).not.toHaveProperty('fiscal_information');
    const fiscal = await storedFiscal(counted.id);
    expect(fiscal).toMatchObject({
      regime: 'KassenSichV',
      tss_serial_number: register.fiscalization.tse_serial,
      pos_client_serial_number: register.fiscalization.client_id,
      end_event: { process_type: 'SonstigerVorgang', transaction_counter: before.transaction + 1, signature_counter: before.signature + 2 },
    });
    expect(fiscal.end_event.process_data).toContain(counted.expected_closing_amount);
    expect(fiscal.end_event.process_data).toContain(counted.closing_cashcount_diff);
    expect(verifiesFiscalInformation(fiscal)).toBe(true);
    expect(verifiesWithOpenssl(fiscal)).toBe(true);
    expect(await counters()).toEqual({ signature: before.signature + 2, transaction: before.transaction + 1, transactions: before.transactions + 1 });
  });

  it('session_close is signed when closing_adjustment_amount is non-zero, and not when it is zero or absent', async () => {
    // The session is counted by the test above.
    let before = await counters();
    const moved = await mustCreate(t.app, fx.headers, { type: 'session_close', register_id: fx.registerId, closing_adjustment_amount: '-50.00' });
    const fiscal = await storedFiscal(moved.id);
    expect(fiscal.end_event).toMatchObject({ process_type: 'Kassenbeleg-V1', transaction_counter: before.transaction + 1 });
    expect(fiscal.end_event.process_data).toContain('-50.00');
    expect(verifiesFiscalInformation(fiscal)).toBe(true);
    expect((await counters()).transaction).toBe(before.transaction + 1);

    for (const adjustment of [{ closing_adjustment_amount: '0.00' }, { closing_adjustment_amount: '-0' }, {}]) {
      await mustCreate(t.app, fx.headers, { type: 'session_open', register_id: fx.registerId });
      await mustCreate(t.app, fx.headers, { type: 'session_cash_count', register_id: fx.registerId, counted_closing_amount: '0' });
      before = await counters();
      const closed = await mustCreate(t.app, fx.headers, { type: 'session_close', register_id: fx.registerId, ...adjustment });
      expect(await storedFiscal(closed.id)).toBeNull();
      expect(await counters()).toEqual(before);
    }
    await mustCreate(t.app, fx.headers, { type: 'session_open', register_id: fx.registerId });
  });
});

describe('signing failures leave nothing signed', () => {
  it('a complete rejected for its payments does not touch the TSE', async () => {
    const device = await tseDevice();
    const sale = await mustCreate(t.app, fx.headers, saleBody(fx.registerId));
    const response = await completeOp(t.app, fx.headers, sale, [{ payment_id: 'p', method: 'cash', amount: '1.00', currency: 'EUR', status: 'captured' }]);
    expect(response.statusCode).toBe(422);
    const after = await tseDevice();
    expect(after.signatureCounter).toBe(device.signatureCounter);
    expect(after.transactionCounter).toBe(device.transactionCounter);
  });
});
