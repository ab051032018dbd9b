import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
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

export async function createOperation(app: FastifyInstance, headers: Record<string, string>, payload: object) {
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

// ---- helpers shared by the operation, session and fiscal HTTP tests ----

/** A DEU merchant with one register that is neither fiscalized nor in a session. */
export async function plainRegister(app: FastifyInstance, apiKey: string): Promise<OperationsFixture> {
  const setup = await createDeuSetup(app, apiKey);
  return { ...setup, headers: auth(apiKey, setup.merchantId) };
}

export async function fiscalize(app: FastifyInstance, headers: Record<string, string>, registerId: string) {
  return app.inject({ method: 'POST', url: `/v1/registers/${registerId}/fiscalize`, headers });
}

export async function decommission(app: FastifyInstance, headers: Record<string, string>, registerId: string) {
  return app.inject({ method: 'POST', url: `/v1/registers/${registerId}/decommission`, headers });
}

export async function simulate(
  app: FastifyInstance,
  headers: Record<string, string>,
  registerId: string,
  mode: 'ok' | 'unreachable' | 'reject_after_start' | 'timeout',
) {
  const response = await app.inject({
    method: 'PUT',
    url: `/v1/registers/${registerId}/simulation`,
    headers,
    payload: { fiscal_device: mode },
  });
  if (response.statusCode !== 200) throw new Error(`simulation failed: ${response.body}`);
}

/** Posts a session event (201 expected by the caller). */
export async function sessionEvent(
  app: FastifyInstance,
  headers: Record<string, string>,
  registerId: string,
  type: 'session_open' | 'session_cash_adjustment' | 'session_cash_count' | 'session_close',
  fields: Record<string, unknown> = {},
) {
  return createOperation(app, headers, { type, register_id: registerId, ...fields });
}

/** Creates an operation and fails the test unless it answers 201. */
export async function mustCreate(app: FastifyInstance, headers: Record<string, string>, payload: object) {
  const response = await createOperation(app, headers, payload);
  if (response.statusCode !== 201) throw new Error(`create failed (${response.statusCode}): ${response.body}`);
  return json(response);
}

/** Completes with the given payments (default: one cash payment of the total) and fails the test unless 200. */
export async function mustComplete(
  app: FastifyInstance,
  headers: Record<string, string>,
  operation: { id: string; resource_version: number; total_amount: string },
  payments?: unknown[],
) {
  const response = await completeOp(app, headers, operation, payments);
  if (response.statusCode !== 200) throw new Error(`complete failed (${response.statusCode}): ${response.body}`);
  return json(response);
}

export async function voidOp(
  app: FastifyInstance,
  headers: Record<string, string>,
  operation: { id: string; resource_version: number },
  reason: string = 'operator_cancelled',
) {
  return app.inject({
    method: 'POST',
    url: `/v1/operations/${operation.id}/void`,
    headers: { ...headers, 'idempotency-key': idem(), 'if-match': `"${operation.resource_version}"` },
    payload: { reason },
  });
}

export async function getOp(app: FastifyInstance, headers: Record<string, string>, id: string) {
  return app.inject({ method: 'GET', url: `/v1/operations/${id}`, headers });
}

/** A return of one 19 % line of -11.90 pointing at `relatedId` (or at an external sale when null). */
export const returnBody = (registerId: string | null, relatedId: string | null, overrides: Record<string, unknown> = {}) =>
  saleBody(registerId, {
    type: 'return',
    pretax_amount: '-10.00',
    tax_amount: '-1.90',
    total_amount: '-11.90',
    line_items: [
      {
        title: 'Brot',
        quantity: 1,
        unit_price: '-11.90',
        total_amount: '-11.90',
        sku_identifier: 'SKU-BROT',
        taxes: [{ name: 'MwSt', rate: '0.19', tax_amount: '-1.9' }],
      },
    ],
    ...(relatedId
      ? { related_operation_id: relatedId }
      : { external_related_operation: { description: 'Bon 4711 aus Altsystem', external_operation_id: 'legacy-4711' } }),
    ...overrides,
  });

/** An exchange: 11.90 back (19 %), 5.35 out (7 %): total -6.55. */
export const exchangeBody = (registerId: string | null, relatedId: string | null, overrides: Record<string, unknown> = {}) =>
  saleBody(registerId, {
    type: 'exchange',
    pretax_amount: '-5.00',
    tax_amount: '-1.55',
    total_amount: '-6.55',
    line_items: [
      {
        title: 'Brot zurück',
        quantity: 1,
        unit_price: '-11.90',
        total_amount: '-11.90',
        sku_identifier: 'SKU-BROT',
        taxes: [{ name: 'MwSt', rate: '0.19', tax_amount: '-1.9' }],
      },
      {
        title: 'Milch',
        quantity: 1,
        unit_price: '5.35',
        total_amount: '5.35',
        sku_identifier: 'SKU-MILCH',
        taxes: [{ name: 'MwSt', rate: '0.07', tax_amount: '0.35' }],
      },
    ],
    ...(relatedId
      ? { related_operation_id: relatedId }
      : { external_related_operation: { description: 'Bon 4711 aus Altsystem', external_operation_id: 'legacy-4711' } }),
    ...overrides,
  });

/**
 * Asserts status, code and the error envelope of contract 7 ({code, message,
 * retryable, details?}; retryable exactly for 5xx, 429 and 412); returns the body.
 */
export function expectApiError(response: LightMyRequestResponse, status: number, code: string): any {
  if (response.statusCode !== status) throw new Error(`expected ${status} ${code}, got ${response.statusCode}: ${response.body}`);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  const body = response.json();
  expect(Object.keys(body).every((key) => ['code', 'message', 'retryable', 'details'].includes(key))).toBe(true);
  expect(body.code).toBe(code);
  expect(typeof body.message).toBe('string');
  expect(body.retryable).toBe(status >= 500 || status === 429 || status === 412);
  return body;
}
