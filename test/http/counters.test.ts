// Counters never lie (reference §4, DESIGN "Running it"): the TSE transaction and
// signature counters and the register's sequence numbers are strictly increasing,
// without gap or repeat, also under concurrent completes, and on PostgreSQL also
// with two service instances sharing one database.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/database.js';
import { ADMIN_TOKEN, createTenantWithKey, createTestApp, json, type TestApp } from '../support/testApp.js';
import { completeOp, createOperation, fiscalizedRegisterWithSession, saleBody, type OperationsFixture } from '../support/operations.js';
import { verifiesFiscalInformation } from '../fiscal/independentDtbs.js';

const N = 50;

let t: TestApp;
let fx: OperationsFixture;
let tseSerial: string;

beforeAll(async () => {
  t = await createTestApp();
  const tenant = await createTenantWithKey(t.database, 'DEU');
  fx = await fiscalizedRegisterWithSession(t.app, tenant.apiKey);
  tseSerial = json(await t.app.inject({ method: 'GET', url: `/v1/registers/${fx.registerId}`, headers: fx.headers })).fiscalization.tse_serial;
});
afterAll(() => t.close());

const consecutive = (values: number[]) => {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted.every((value, i) => i === 0 || value === sorted[i - 1] + 1);
};

/** N creates at once, then N completes at once, spread round-robin over `apps`. */
async function createAndCompleteConcurrently(apps: FastifyInstance[]) {
  const created = await Promise.all(
    Array.from({ length: N }, (_, i) => createOperation(apps[i % apps.length], fx.headers, saleBody(fx.registerId, { external_id: `burst-${i}` }))),
  );
  expect(created.map((r) => r.statusCode)).toEqual(Array(N).fill(201));
  const operations = created.map((r) => json(r));
  const completed = await Promise.all(operations.map((op, i) => completeOp(apps[i % apps.length], fx.headers, op)));
  const failures = completed.filter((r) => r.statusCode !== 200).map((r) => r.body);
  expect(failures).toEqual([]);
  return { operations, completed: completed.map((r) => json(r)) };
}

async function startCountersOf(transactionNumbers: number[]) {
  const device = await t.database.prisma.tseDevice.findUniqueOrThrow({ where: { serialNumber: tseSerial } });
  const rows = await t.database.prisma.tseTransaction.findMany({
    where: { tseId: device.id, transactionNumber: { in: transactionNumbers.map(BigInt) } },
  });
  return { device, rows: new Map(rows.map((row) => [Number(row.transactionNumber), row])) };
}

/** Asserts the counter rules over one burst and returns its counter ranges. */
async function expectHonestCounters(completed: any[], previous?: { transaction: number; signature: number }) {
  const transactionNumbers = completed.map((op) => op.fiscal_information.end_event.transaction_counter as number);
  const finishCounters = completed.map((op) => op.fiscal_information.end_event.signature_counter as number);
  expect(new Set(transactionNumbers).size).toBe(N);
  expect(consecutive(transactionNumbers)).toBe(true);
  expect(new Set(finishCounters).size).toBe(N);

  const { device, rows } = await startCountersOf(transactionNumbers);
  const startCounters = transactionNumbers.map((number) => Number(rows.get(number)!.startSignatureCounter));
  transactionNumbers.forEach((number, i) => {
    expect(rows.get(number)!.state).toBe('finished');
    expect(Number(rows.get(number)!.finishSignatureCounter)).toBe(finishCounters[i]);
    expect(startCounters[i]).toBeLessThan(finishCounters[i]);
  });
  const signatures = [...startCounters, ...finishCounters];
  expect(new Set(signatures).size).toBe(2 * N);
  expect(consecutive(signatures)).toBe(true);

  const minTransaction = Math.min(...transactionNumbers);
  const minSignature = Math.min(...signatures);
  if (previous) {
    expect(minTransaction).toBe(previous.transaction + 1);
    expect(minSignature).toBe(previous.signature + 1);
  }
  // Nothing else was signed meanwhile: the device's counters end at the burst's maxima.
  expect(Number(device.transactionCounter)).toBe(Math.max(...transactionNumbers));
  expect(Number(device.signatureCounter)).toBe(Math.max(...signatures));

  // Each counter is the one the TSE signed.
  for (const op of completed) expect(verifiesFiscalInformation(op.fiscal_information)).toBe(true);
  return { transaction: Math.max(...transactionNumbers), signature: Math.max(...signatures) };
}

/** Sequence numbers of all the register's operations: 1..n without gap or repeat. */
async function expectGaplessSequence() {
  const rows = await t.database.prisma.operation.findMany({ where: { registerId: fx.registerId }, select: { sequenceNumber: true } });
  const numbers = rows.map((row) => row.sequenceNumber!).sort((x, y) => x - y);
  expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, i) => i + 1));
}

let afterFirstBurst: { transaction: number; signature: number };

describe(`${N} concurrent completes on one register`, () => {
  it('take consecutive transaction numbers and interleaved, gapless signature counters', async () => {
    const { operations, completed } = await createAndCompleteConcurrently([t.app]);
    const sequence = operations.map((op) => op.sequence_number as number);
    expect(new Set(sequence).size).toBe(N);
    expect(consecutive(sequence)).toBe(true);
    // Document numbers follow the operations' sequence numbers.
    expect(completed.map((op) => Number(op.fiscal_information.document_number)).sort()).toEqual([...sequence].sort());
    afterFirstBurst = await expectHonestCounters(completed);
    await expectGaplessSequence();
  });
});

describe('two service instances sharing one PostgreSQL database', () => {
  it.skipIf(!process.env.DATABASE_URL)('keep the same counters honest', async () => {
    expect(t.databaseUrl).toBeTruthy();
    const database = await openDatabase({ databaseUrl: t.databaseUrl!, poolSize: 10 });
    const peer = await buildApp({
      config: loadConfig({ LOG_LEVEL: 'silent', ADMIN_TOKEN, DATA_DIR: '/tmp/fiscal-test-data', EXPORT_WORKER: 'off' }),
      database,
      secretsKey: Buffer.alloc(32, 7),
    });
    await peer.ready();
    try {
      const { operations, completed } = await createAndCompleteConcurrently([t.app, peer]);
      const sequence = operations.map((op) => op.sequence_number as number);
      expect(new Set(sequence).size).toBe(N);
      expect(consecutive(sequence)).toBe(true);
      await expectHonestCounters(completed, afterFirstBurst);
      await expectGaplessSequence();
    } finally {
      await peer.close();
      await database.close();
    }
  });
});
