// OpenAPI describes both styles: Style O routes with their schemas, and shared method+path routes with both.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, json, type TestApp } from '../support/testApp.js';

type Json = Record<string, any>;
let t: TestApp;
let doc: Json;

beforeAll(async () => {
  t = await createTestApp();
  doc = json(await t.app.inject({ method: 'GET', url: '/openapi-json' }));
});
afterAll(() => t.close());

const ref = (schema: Json | undefined): Json | undefined =>
  schema?.$ref ? doc.components.schemas[String(schema.$ref).replace('#/components/schemas/', '')] : schema;
const body = (operation: Json) => ref(operation.requestBody?.content?.['application/json']?.schema);
const success = (operation: Json, status: string) => ref(operation.responses?.[status]?.content?.['application/json']?.schema);
const headerNames = (operation: Json) => (operation.parameters ?? []).filter((p: Json) => p.in === 'header').map((p: Json) => p.name);

describe('Style O in the OpenAPI document', () => {
  it('describes the Style O-only routes with request and response schemas', () => {
    const create = doc.paths['/v1/organizations/{organizationId}/locations'].post;
    expect(body(create)?.required).toEqual(expect.arrayContaining(['name', 'address']));
    expect(body(create)?.additionalProperties).toBe(false);
    expect(success(create, '201')?.properties.object.const ?? success(create, '201')?.properties.object.enum?.[0]).toBe('location');
    expect(headerNames(create)).toEqual(expect.arrayContaining(['service-organization', 'idempotency-key']));

    const refunds = doc.paths['/v1/registers/{id}/refunds'].post;
    expect(body(refunds)?.required).toEqual(['original_operation_id']);
    expect(Object.keys(body(refunds)!.properties)).toEqual(
      expect.arrayContaining(['original_operation_id', 'refund_type', 'line_items', 'reason', 'cashier', 'external_id', 'metadata', 'payments']),
    );
    const refund = success(refunds, '201')!;
    expect(refund.required).toEqual(
      expect.arrayContaining(['id', 'object', 'type', 'state', 'fiscal_state', 'sequence_number', 'references', 'data', 'started_at', 'completed_at']),
    );
    expect(refunds.responses).toHaveProperty('422');

    const cancel = doc.paths['/v1/operations/{id}/cancel'].post;
    expect(cancel.requestBody).toBeDefined();
    expect(success(cancel, '200')).toEqual(refund);

    const receipt = success(doc.paths['/v1/operations/{id}/receipt'].get, '200')!;
    expect(receipt.required).toEqual(
      expect.arrayContaining(['object', 'id', 'version', 'created_at', 'issuer', 'operation', 'line_items', 'totals', 'payments', 'fiscal', 'customer', 'notes', 'references', 'links', 'metadata']),
    );
    const totals = ref(doc.components.schemas.OrganizationTotals)!;
    for (const field of ['subtotal_gross', 'total_gross', 'total_net', 'total_tax', 'net_payable']) expect(totals.properties[field].type).toBe('integer');
  });

  it('describes both styles where they share a method and path', () => {
    const patch = doc.paths['/v1/locations/{id}'].patch;
    expect(headerNames(patch)).toEqual(expect.arrayContaining(['x-service-merchant', 'service-organization', 'if-match', 'idempotency-key']));
    const bodies = patch.requestBody.content['application/json'].schema.anyOf;
    expect(bodies).toHaveLength(2);
    const responses = patch.responses['200'].content['application/json'].schema.anyOf.map((s: Json) => s.$ref);
    expect(responses).toEqual(['#/components/schemas/Location', '#/components/schemas/OrganizationLocation']);

    const complete = doc.paths['/v1/operations/{id}/complete'].post;
    expect(complete.description).toMatch(/Style M/);
    expect(complete.description).toMatch(/Style O/);
    expect(complete.requestBody.content['application/json'].schema.anyOf).toHaveLength(2);
    expect(complete.responses['200'].content['application/json'].schema.anyOf.map((s: Json) => s.$ref)).toEqual([
      '#/components/schemas/Operation',
      '#/components/schemas/RefundOperation',
    ]);
    for (const status of ['409', '412', '422', '428']) expect(complete.responses).toHaveProperty(status);

    const get = doc.paths['/v1/operations/{id}'].get;
    expect(get.responses['200'].content['application/json'].schema.anyOf).toHaveLength(2);
  });
});
