// Null receipts and the RKSV journal of an Austrian register, for the tests of issue 15
// points 6 and 7: requesting a null receipt, selling at one rate, reading the journal's
// receipt types in signing order.
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../src/db/database.js';
import { completeOp, createOperation, idem, type OperationsFixture } from './operations.js';
import { autLine } from './rksv.js';
import { json } from './testApp.js';

export function postNullReceipt(app: FastifyInstance, headers: Record<string, string>, registerId: string, type: string, key: string = idem()) {
  return app.inject({ method: 'POST', url: `/v1/registers/${registerId}/null-receipts`, headers: { ...headers, 'idempotency-key': key }, payload: { type } });
}

export async function listNullReceipts(app: FastifyInstance, headers: Record<string, string>, registerId: string) {
  const response = await app.inject({ method: 'GET', url: `/v1/registers/${registerId}/null-receipts`, headers });
  if (response.statusCode !== 200) throw new Error(`list failed (${response.statusCode}): ${response.body}`);
  return json(response).data as any[];
}

/** Creates an open sale of one 20 % line of `total` on the register. */
export async function openAutSale(app: FastifyInstance, fx: OperationsFixture, total = '12.00') {
  const created = await createOperation(app, fx.headers, {
    type: 'sale',
    source: 'POS',
    register_id: fx.registerId,
    currency: 'EUR',
    total_amount: total,
    line_items: [autLine('Melange', total, '0.20')],
  });
  if (created.statusCode !== 201) throw new Error(`create failed (${created.statusCode}): ${created.body}`);
  return json(created);
}

/** Sells one 20 % line of `total` on the register and answers the completed operation. */
export async function autSale(app: FastifyInstance, fx: OperationsFixture, total = '12.00') {
  const completed = await completeOp(app, fx.headers, await openAutSale(app, fx, total));
  if (completed.statusCode !== 200) throw new Error(`complete failed (${completed.statusCode}): ${completed.body}`);
  return json(completed);
}

/** The register's RKSV journal: receipt types in signing order. */
export async function journalTypes(database: Database, registerId: string): Promise<string[]> {
  const rows = await database.sql.query<{ type: string }>('SELECT type FROM rksv_receipts WHERE register_id = $1 ORDER BY receipt_number', [registerId]);
  return rows.map((row) => row.type);
}
