// npm run bench:export: builds a DSFinV-K export of BENCH_EXPORT_OPERATIONS (100,000)
// signed sales in one closing, through the real job path (queue, worker, chunk
// storage), and reports the build time and the worker's peak memory.
// Uses BENCH_DATABASE_URL (default: the machine's PostgreSQL), or PGlite with BENCH_EXPORT_EMBEDDED=1.
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import pino from 'pino';
import { openDatabase } from '../src/db/database.js';
import { createDsfinvkBuilder } from '../src/exports/dsfinvkJob.js';
import { ExportQueue } from '../src/exports/exportQueue.js';
import { ExportWorker } from '../src/exports/exportWorker.js';
import { writeResults } from './lib/results.js';

const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const OPERATIONS = Number(process.env.BENCH_EXPORT_OPERATIONS ?? 100_000);

const peakRssMiB = () => Number(/VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) / 1024;

const url = new URL(ADMIN_URL);
const dbName = `fiscal_export_bench_${Date.now().toString(36)}`;
const admin = new pg.Client({ connectionString: ADMIN_URL });
await admin.connect();
await admin.query(`CREATE DATABASE ${dbName}`);
url.pathname = `/${dbName}`;
const database = await openDatabase({ databaseUrl: url.toString(), poolSize: 5 });
try {
  await database.migrate();
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  // One merchant, location, fiscalized register, and a closed session holding OPERATIONS signed sales.
  await client.query(`
    INSERT INTO tenants (id, name) VALUES ('ten_b', 'bench');
    INSERT INTO merchants (id, tenant_id, legal_name, country_code, status, address, fiscal_identities)
      VALUES ('mer_b', 'ten_b', 'Bench GmbH', 'DEU', 'active',
              '{"line1":"Friedrichstraße 1","line2":null,"city":"Berlin","postal_code":"10117","country_code":"DEU"}',
              '[{"country_code":"DEU","tax_number":"21/815/08150","vat_id":"DE123456789"}]');
    INSERT INTO locations (id, merchant_id, name, address, timezone)
      VALUES ('loc_b', 'mer_b', 'Filiale', '{"line1":"Friedrichstraße 1","line2":null,"city":"Berlin","postal_code":"10117","country_code":"DEU"}', 'Europe/Berlin');
    INSERT INTO tse_devices (id, merchant_id, serial_number, public_key, private_key_enc, algorithm, status)
      VALUES ('tse_b', 'mer_b', repeat('ab', 32), 'BASE64KEY', 'sealed', 'ecdsa-plain-SHA256', 'active');
    INSERT INTO registers (id, merchant_id, location_id, name, status, fiscalization_status, regime, fiscalized_at, device_id, client_id)
      VALUES ('reg_b', 'mer_b', 'loc_b', 'Kasse 1', 'active', 'fiscalized', 'KassenSichV', now(), 'tse_b', 'ERS-bench');
    INSERT INTO register_sessions (id, merchant_id, register_id, status, opening_amount, opened_at, closed_at, closing_number)
      VALUES ('ses_b', 'mer_b', 'reg_b', 'closed', 100, now() - interval '1 day', now(), 1);`);
  await client.query(
    `INSERT INTO operations (id, merchant_id, type, source, status, currency, register_id, location_id, session_id, sequence_number,
                             pretax_amount, tax_amount, tip_amount, total_amount, line_items, cart_level_discounts, payments,
                             fiscal_information, completed_at, created_at)
     SELECT 'op_' || g, 'mer_b', 'sale', 'POS', 'completed', 'EUR', 'reg_b', 'loc_b', 'ses_b', g,
            10, 1.9, 0, 11.9,
            jsonb_build_array(jsonb_build_object('id', 'li_' || g, 'type', 'item', 'title', 'Brot ' || g, 'quantity', 1,
              'unit_price', '11.90', 'total_amount', '11.90', 'sku_identifier', 'SKU-1', 'gift_card_id', null,
              'taxes', jsonb_build_array(jsonb_build_object('id', 'tax_' || g, 'name', 'MwSt', 'rate', '0.19', 'tax_amount', '1.90')))),
            '[]'::jsonb,
            jsonb_build_array(jsonb_build_object('id', 'pay_' || g, 'payment_id', null, 'method', CASE WHEN g % 2 = 0 THEN 'cash' ELSE 'card' END,
              'amount', '11.90', 'currency', 'EUR', 'status', 'captured', 'processor', null, 'card_brand', null,
              'processor_reference', null, 'processed_at', null, 'gift_card_id', null)),
            jsonb_build_object('regime', 'KassenSichV', 'start_signature_counter', 2 * g - 1,
              'start_event', jsonb_build_object('signed_at', '2026-11-21T10:00:00.000Z'),
              'end_event', jsonb_build_object('signed_at', '2026-11-21T10:00:01.000Z', 'transaction_counter', g, 'signature_counter', 2 * g,
                'signature', 'c2lnbmF0dXJl', 'public_key', 'BASE64KEY', 'process_type', 'Kassenbeleg-V1',
                'process_data', 'Beleg^11.90_0.00_0.00_0.00_0.00^11.90:Bar')),
            now() - interval '1 hour', now() - interval '1 hour'
       FROM generate_series(1, $1::int) g`,
    [OPERATIONS],
  );
  await client.query(`INSERT INTO export_jobs (id, merchant_id, type, status, from_time, to_time)
                      VALUES ('exp_b', 'mer_b', 'dsfinvk', 'pending', now() - interval '2 days', now() + interval '1 day')`);
  await client.end();

  const log = pino({ level: 'warn' });
  const queue = new ExportQueue(database.prisma, 60_000);
  const worker = new ExportWorker({ queue, build: createDsfinvkBuilder(database.prisma), log, pollMs: 1000, leaseMs: 60_000 });
  const rssBefore = peakRssMiB();
  const started = performance.now();
  const job = await queue.claim(worker.id);
  await worker.run(job!);
  const seconds = (performance.now() - started) / 1000;
  const finished = await database.prisma.exportJob.findUniqueOrThrow({ where: { id: 'exp_b' } });
  if (finished.status !== 'completed') throw new Error(`export ${finished.status}: ${JSON.stringify(finished.error)}`);
  const result = {
    at: new Date().toISOString(),
    operations: OPERATIONS,
    build_seconds: Math.round(seconds * 100) / 100,
    operations_per_second: Math.round(OPERATIONS / seconds),
    archive_bytes: Number(finished.byteSize),
    peak_rss_mib_before: Math.round(rssBefore),
    peak_rss_mib: Math.round(peakRssMiB()),
  };
  const file = writeResults('export', result);
  console.log(JSON.stringify(result, null, 2));
  console.log(`wrote ${file}`);
} finally {
  await database.close();
  await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  await admin.end();
}
