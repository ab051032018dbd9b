// The stack without the service's code, for bench/stackFloor.ts: Fastify with the service's
// request log answers a JSON POST with a body the size of a completed operation, after
// FLOOR_ROUND_TRIPS prepared statements sent one after another through pg's pool.
import Fastify from 'fastify';
import pg from 'pg';
import { logOptions } from '../../src/http/loggerOptions.js';
import { logDestination } from '../../src/lib/logDestination.js';

const roundTrips = Number(process.env.FLOOR_ROUND_TRIPS ?? 0);
const pool = new pg.Pool({ connectionString: process.env.FLOOR_DATABASE_URL, max: 20 });

/** About the size and shape of a completed German sale as the service presents it (1.6 kB). */
const money = (amount: string) => ({ amount, currency: 'EUR' });
const line = (n: number) => ({ id: `li_${n}abcdefghijklmnop`, description: `Artikel ${n}`, quantity: '1', unit_price: money('10.00'), vat_rate: '19.00', total: money('10.00'), discounts: [] });
const operation = {
  id: 'op_E4psRs3F5yemnBJneIJm',
  object: 'operation',
  type: 'sale',
  status: 'completed',
  register_id: 'reg_TrGfRD4LrSSuapEdc6yZ',
  sequence_number: 4,
  line_items: [line(1), line(2)],
  payments: [{ method: 'cash', amount: money('11.90') }],
  fiscal: { tse_serial: 'a'.repeat(64), transaction_number: 12345, signature_counter: 67890, signature: 'x'.repeat(96), qr_code: 'y'.repeat(300) },
  receipt: { id: 'rcp_xxxxxxxxxxxxxxxxxxxxx', url: `https://example.com/r/${'z'.repeat(40)}` },
  created_at: '2026-11-28T17:00:00.000Z',
};

const app = Fastify(logOptions('info', await logDestination()));
app.post('/floor', async (request, reply) => {
  const { key } = request.body as { key: string };
  for (let i = 0; i < roundTrips; i++) await pool.query({ name: `floor_${i}`, text: `SELECT $1::text AS key, now() AS at, ${i} AS step`, values: [key] });
  reply.code(201);
  return operation;
});
app.get('/ready', async () => ({ ok: true }));
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
