import type { FastifyInstance } from 'fastify';
import { auth, createDeuSetup, json } from './testApp.js';

let counter = 0;
export const idem = () => `idem-${process.pid}-${Date.now()}-${counter++}`;

/** A valid sale: one 19 % line of 11.90 (tax 1.9 = 11.90 * 0.19 / 1.19). */
export const saleBody = (registerId: string | null, overrides: Record<string, unknown> = {}) => ({
  type: 'sale',
  source: registerId ? 'POS' : 'ONLINE',
  currency: 'EUR',
  ...(registerId ? { register_id: registerId } : {}),
  pretax_amount: '10.00',
  tax_amount: '1.90',
  tip_amount: '0.00',
  total_amount: '11.90',
  line_items: [
    {
      title: 'Brot',
      quantity: 1,
      unit_price: '11.90',
      total_amount: '11.90',
      sku_identifier: 'SKU-BROT',
      taxes: [{ name: 'MwSt', rate: '0.19', tax_amount: '1.9' }],
    },
  ],
  ...overrides,
});

export interface OperationsFixture {
  merchantId: string;
  locationId: string;
  registerId: string;
  headers: Record<string, string>;
}

/** A DEU merchant with a fiscalized register and an open session. */
export async function fiscalizedRegisterWithSession(app: FastifyInstance, apiKey: string): Promise<OperationsFixture> {
  const setup = await createDeuSetup(app, apiKey);
  const headers = auth(apiKey, setup.merchantId);
  const fiscalized = await app.inject({ method: 'POST', url: `/v1/registers/${setup.registerId}/fiscalize`, headers });
  if (fiscalized.statusCode !== 200) throw new Error(`fiscalize failed: ${fiscalized.body}`);
  const opened = await app.inject({
    method: 'POST',
    url: '/v1/operations',
    headers: { ...headers, 'idempotency-key': idem() },
    payload: { type: 'session_open', register_id: setup.registerId, opening_amount: '100.00' },
  });
  if (opened.statusCode !== 201) throw new Error(`session_open failed: ${opened.body}`);
  return { ...setup, headers };
}

export async function createOperation(app: FastifyInstance, headers: Record<string, string>, payload: unknown) {
  return app.inject({ method: 'POST', url: '/v1/operations', headers: { ...headers, 'idempotency-key': idem() }, payload });
}

export async function completeOp(
  app: FastifyInstance,
  headers: Record<string, string>,
  operation: { id: string; resource_version: number; total_amount: string },
  payments?: unknown[],
) {
  return app.inject({
    method: 'POST',
    url: `/v1/operations/${operation.id}/complete`,
    headers: { ...headers, 'idempotency-key': idem(), 'if-match': `"${operation.resource_version}"` },
    payload: { payments: payments ?? [{ payment_id: 'p1', method: 'cash', amount: operation.total_amount, currency: 'EUR', status: 'captured' }] },
  });
}

export async function createAndCompleteSale(app: FastifyInstance, fixture: OperationsFixture, overrides: Record<string, unknown> = {}) {
  const created = await createOperation(app, fixture.headers, saleBody(fixture.registerId, overrides));
  if (created.statusCode !== 201) throw new Error(`create failed: ${created.body}`);
  const completed = await completeOp(app, fixture.headers, json(created));
  if (completed.statusCode !== 200) throw new Error(`complete failed: ${completed.body}`);
  return json(completed);
}
