import { randomUUID } from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { Database } from '../../src/db/database.js';
import { createApiKey } from '../../src/modules/admin/service.js';
import { json } from './testApp.js';

/** Style O headers: the key, and Service-Organization when given. */
export const orgAuth = (apiKey: string, organizationId?: string): Record<string, string> => ({
  authorization: `Bearer ${apiKey}`,
  ...(organizationId ? { 'service-organization': organizationId } : {}),
});

export async function organizationKey(db: Database, tenantId: string, organizationId: string): Promise<string> {
  return (await createApiKey(db.prisma, tenantId, 'test', { kind: 'organization', organization_id: organizationId })).apiKey;
}

export async function platformKey(db: Database, tenantId: string): Promise<string> {
  return (await createApiKey(db.prisma, tenantId, 'test', { kind: 'platform' })).apiKey;
}

export async function tenantKey(db: Database, tenantId: string, countryCode: string): Promise<string> {
  return (await createApiKey(db.prisma, tenantId, 'test', { kind: 'tenant', country_code: countryCode })).apiKey;
}

export const uuid = () => randomUUID();

export async function postRefund(
  app: FastifyInstance,
  headers: Record<string, string>,
  registerId: string,
  payload: object,
  idempotencyKey?: string,
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url: `/v1/registers/${registerId}/refunds`,
    headers: { ...headers, ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}) },
    payload,
  });
}

export async function mustRefund(app: FastifyInstance, headers: Record<string, string>, registerId: string, payload: object) {
  const response = await postRefund(app, headers, registerId, payload);
  if (response.statusCode !== 201) throw new Error(`refund failed (${response.statusCode}): ${response.body}`);
  return json(response);
}

export async function styleOAction(
  app: FastifyInstance,
  headers: Record<string, string>,
  operationId: string,
  action: 'complete' | 'cancel',
  options: { payload?: object; idempotencyKey?: string } = {},
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url: `/v1/operations/${operationId}/${action}`,
    headers: { ...headers, ...(options.idempotencyKey ? { 'idempotency-key': options.idempotencyKey } : {}) },
    ...(options.payload !== undefined ? { payload: options.payload } : {}),
  });
}

export async function mustCompleteRefund(app: FastifyInstance, headers: Record<string, string>, operationId: string) {
  const response = await styleOAction(app, headers, operationId, 'complete');
  if (response.statusCode !== 200) throw new Error(`complete failed (${response.statusCode}): ${response.body}`);
  return json(response);
}

export async function getReceipt(app: FastifyInstance, headers: Record<string, string>, operationId: string) {
  return app.inject({ method: 'GET', url: `/v1/operations/${operationId}/receipt`, headers });
}

/** Contract 2.8 totals: every derivation holds exactly. */
export function expectDerivedTotals(totals: Record<string, any>): void {
  const problems: string[] = [];
  if (totals.subtotal_gross - totals.total_line_discounts !== totals.subtotal_after_line_discounts) problems.push('after line');
  if (totals.subtotal_after_line_discounts - totals.total_cart_discounts !== totals.subtotal_after_all_discounts) problems.push('after all');
  if (totals.subtotal_after_all_discounts + totals.rounding_adjustment !== totals.total_gross) problems.push('total_gross');
  if (totals.total_net + totals.total_tax !== totals.total_gross) problems.push('net + tax');
  const breakdownTax = totals.tax_breakdown.reduce((s: number, e: any) => s + e.tax_amount, 0);
  if (breakdownTax !== totals.total_tax) problems.push('breakdown tax');
  for (const [key, value] of Object.entries(totals)) {
    if (typeof value === 'number' && !Number.isInteger(value)) problems.push(`${key} not an integer`);
    if (typeof value === 'number' && value < 0 && key !== 'net_payable' && key !== 'rounding_adjustment') problems.push(`${key} negative`);
  }
  if (problems.length) throw new Error(`totals do not derive: ${problems.join(', ')} in ${JSON.stringify(totals)}`);
}
