// The DEP journal reader (src/fiscal/rksv/depJournal.ts), the DEP JSON writer and the ZIP
// builder (src/exports/rksvDep/): a long journal comes back whole, in signing order, in bounded
// pages, cut to [from, to] at receipts that share a timestamp, and streams into the archive.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRksvDepExport, type DepRegisterSource } from '../../src/exports/rksvDep/buildRksvDepExport.js';
import { depExportJson } from '../../src/exports/rksvDep/depExportJson.js';
import { depJournalOf } from '../../src/fiscal/rksv/depJournal.js';
import { BufferSink, readZip } from '../exports/zipContents.js';
import { createTestDatabase, type TestDatabase } from '../support/databases.js';

const RECEIPTS = 2500;
const BASE = new Date('2026-05-01T00:00:00Z');
/** Receipt n is signed at BASE + floor(n / 2) seconds: every two receipts share a timestamp (a monthly receipt and the sale after it do). */
const signedAt = (receiptNumber: number) => new Date(BASE.getTime() + Math.floor(receiptNumber / 2) * 1000);

let db: TestDatabase;

async function collect(pages: AsyncIterable<string[]>): Promise<string[][]> {
  const all: string[][] = [];
  for await (const page of pages) all.push(page);
  return all;
}

async function* asPages(...pages: string[][]): AsyncIterable<string[]> {
  yield* pages;
}

async function text(chunks: AsyncIterable<string>): Promise<string> {
  let all = '';
  for await (const chunk of chunks) all += chunk;
  return all;
}

beforeAll(async () => {
  db = await createTestDatabase();
  await db.database.sql.query(
    `INSERT INTO rksv_cash_registers (id, merchant_id, register_id, cash_register_id, signature_device_id, public_key, private_key_enc, aes_key_enc)
     VALUES ('rkv_1', 'mer_1', 'reg_1', 'RK-1', 'U:ATU12345678-1', 'spki', 'sealed', 'sealed')`,
  );
  await db.database.sql.query(
    `INSERT INTO rksv_receipts (id, rksv_cash_register_id, register_id, receipt_number, type, signed_at, amounts_cents, turnover_counter_cents, jws, signature_device_failed)
     SELECT 'rkb_' || n, 'rkv_1', 'reg_1', n, 'standard', $1::timestamptz + make_interval(secs => n / 2), '{0,0,0,0,0}', 0, 'jws-' || n, false
       FROM generate_series(1, ${RECEIPTS}) AS n`,
    [BASE],
  );
});
afterAll(() => db.drop());

describe('the DEP journal of a register', () => {
  it('reads the receipts signed in [from, to] in signing order, in pages of at most 1000, ties at both ends included', async () => {
    const journal = (await depJournalOf(db.database.sql, 'reg_1'))!;
    expect(journal.cashRegisterId).toBe('RK-1');
    // From receipt 10's time (shared with 11) to receipt 2400's (shared with 2401).
    const pages = await collect(journal.receiptsSignedBetween(signedAt(10), signedAt(2400)));
    expect(pages.map((page) => page.length)).toEqual([1000, 1000, 392]);
    expect(pages.flat()).toEqual(Array.from({ length: 2392 }, (_, index) => `jws-${index + 10}`));
  });

  it('reads nothing for a range without receipts, and knows no journal for a register without an RKSV signature unit', async () => {
    const journal = (await depJournalOf(db.database.sql, 'reg_1'))!;
    expect(await collect(journal.receiptsSignedBetween(new Date('2020-01-01T00:00:00Z'), new Date(BASE.getTime() - 1)))).toEqual([]);
    expect(await collect(journal.receiptsSignedBetween(new Date(signedAt(RECEIPTS).getTime() + 1), new Date('2099-01-01T00:00:00Z')))).toEqual([]);
    // Between two timestamps with no receipt signed in between.
    expect(await collect(journal.receiptsSignedBetween(new Date(signedAt(10).getTime() + 1), new Date(signedAt(12).getTime() - 1)))).toEqual([]);
    expect(await depJournalOf(db.database.sql, 'reg_unknown')).toBeNull();
  });
});

describe('dep-export.json', () => {
  it('is the DEP7 document with one group, whatever the pages', async () => {
    const group = (receipts: string[]) => ({ 'Belege-Gruppe': [{ Signaturzertifikat: '', Zertifizierungsstellen: [], 'Belege-kompakt': receipts }] });
    expect(JSON.parse(await text(depExportJson(asPages())))).toEqual(group([]));
    expect(JSON.parse(await text(depExportJson(asPages([], ['a.b.c'], [], ['d.e.f', 'g.h.i']))))).toEqual(group(['a.b.c', 'd.e.f', 'g.h.i']));
  });
});

describe('the DEP ZIP', () => {
  const material = { base64AESKey: 'key', certificateOrPublicKeyMap: {} };

  it('streams every page of every register into its folder', async () => {
    const pagesOf = (prefix: string) =>
      async function* () {
        for (let page = 0; page < 5; page += 1) yield Array.from({ length: 1000 }, (_, index) => `${prefix}.${page * 1000 + index}.${'s'.repeat(86)}`);
      };
    const sources: DepRegisterSource[] = ['RK-A', 'RK-B'].map((id) => ({ cashRegisterId: id, cryptoMaterial: material, receipts: pagesOf(id) }));
    const sink = new BufferSink();
    await buildRksvDepExport(sources, sink);
    const files = await readZip(sink.buffer);
    expect([...files.keys()]).toEqual(['RK-A/dep-export.json', 'RK-A/cryptographicMaterialContainer.json', 'RK-B/dep-export.json', 'RK-B/cryptographicMaterialContainer.json']);
    const receipts = JSON.parse(files.get('RK-B/dep-export.json')!.toString('utf8'))['Belege-Gruppe'][0]['Belege-kompakt'];
    expect(receipts).toHaveLength(5000);
    expect(receipts[4999]).toMatch(/^RK-B\.4999\./);
    expect(JSON.parse(files.get('RK-A/cryptographicMaterialContainer.json')!.toString('utf8'))).toEqual(material);
  });

  it('fails when reading the journal fails part way', async () => {
    const failing: DepRegisterSource = {
      cashRegisterId: 'RK-A',
      cryptoMaterial: material,
      async *receipts() {
        yield ['a.b.c'];
        throw new Error('connection lost');
      },
    };
    await expect(buildRksvDepExport([failing], new BufferSink())).rejects.toThrow('connection lost');
  });
});
