// Contract 9.1 / 9.3: the machine-readable contract at /openapi-json (OpenAPI 3.1, version 1.1.0),
// describing every route; /docs-json redirects; openapi/openapi.json is what the app serves.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, json, type TestApp } from '../support/testApp.js';

type Json = Record<string, any>;

let t: TestApp;
let doc: Json;

beforeAll(async () => {
  t = await createTestApp();
  const response = await t.app.inject({ method: 'GET', url: '/openapi-json' });
  expect(response.statusCode).toBe(200);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  doc = json(response);
});
afterAll(() => t.close());

/** Every (method, path) the app routes, read from Fastify's route tree; HEAD is implied by GET. */
function appRoutes(): { method: string; path: string }[] {
  const routes: { method: string; path: string }[] = [];
  const stack: string[] = [];
  for (const line of t.app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^([│ ]*)[├└]── (\S+)(?: \(([^)]*)\))?/.exec(line);
    if (!match) continue;
    const depth = match[1].length / 4;
    stack.length = depth;
    const path = (stack[depth - 1] ?? '') + match[2];
    stack[depth] = path;
    for (const method of (match[3] ?? '').split(',').map((m) => m.trim()).filter(Boolean)) {
      if (method !== 'HEAD') routes.push({ method, path });
    }
  }
  return routes;
}

const toOpenApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');

function resolveRef(schema: Json | undefined): Json | undefined {
  if (!schema?.$ref) return schema;
  const name = String(schema.$ref).replace('#/components/schemas/', '');
  return doc.components?.schemas?.[name];
}

function operations(): { method: string; path: string; operation: Json }[] {
  return Object.entries(doc.paths as Json).flatMap(([path, item]) =>
    Object.entries(item as Json)
      .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
      .map(([method, operation]) => ({ method, path, operation: operation as Json })),
  );
}

describe('GET /openapi-json', () => {
  it('is OpenAPI 3.1 with contract version 1.1.0', () => {
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(doc.info.version).toBe('1.1.0');
    expect(doc.info.title).toBeTruthy();
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toMatch(/^3\.1/);
  });

  it('needs no API key', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/openapi-json', headers: { authorization: 'Bearer nonsense' } });
    expect(response.statusCode).toBe(200);
  });

  it('describes every /v1 route and the health checks', () => {
    const routes = appRoutes().filter(({ path }) => path.startsWith('/v1/') || path === '/healthz' || path === '/readyz');
    expect(routes.length).toBeGreaterThanOrEqual(17);
    const missing = routes.filter(({ method, path }) => !doc.paths?.[toOpenApiPath(path)]?.[method.toLowerCase()]);
    expect(missing).toEqual([]);
    for (const path of ['/v1/merchants', '/v1/merchants/{id}', '/v1/locations', '/v1/locations/{id}', '/v1/registers', '/v1/registers/{id}']) {
      expect(doc.paths).toHaveProperty([path]);
    }
  });

  it('hides the document itself', () => {
    for (const path of Object.keys(doc.paths)) expect(path).not.toMatch(/^\/(openapi|docs)-json/);
  });

  it('gives every operation a success response with a schema', () => {
    const without = operations()
      .filter(({ operation }) => {
        const success = Object.entries(operation.responses ?? {}).filter(([status]) => /^[23]\d\d$/.test(status));
        return !success.some(([, response]) => Object.values((response as Json).content ?? {}).some((media) => (media as Json).schema));
      })
      .map(({ method, path }) => `${method.toUpperCase()} ${path}`);
    expect(without).toEqual([]);
  });

  it('gives every write a request body schema (except the contract’s body-less calls)', () => {
    // The contract's and DESIGN's body-less calls (fiscalize takes an optional body for Italian registers).
    const bodyless = new Set(['post /v1/registers/{id}/fiscalize', 'post /v1/registers/{id}/decommission', 'post /v1/registers/{id}/daily-closures']);
    const without = operations()
      .filter(({ method, path }) => ['post', 'put', 'patch'].includes(method) && !bodyless.has(`${method} ${path}`))
      .filter(({ operation }) => !operation.requestBody?.content?.['application/json']?.schema)
      .map(({ method, path }) => `${method.toUpperCase()} ${path}`);
    expect(without).toEqual([]);
    const merchantCreate = doc.paths['/v1/merchants'].post.requestBody.content['application/json'].schema;
    expect(merchantCreate.additionalProperties).toBe(false);
    expect(merchantCreate.required).toEqual(expect.arrayContaining(['legal_name', 'country_code', 'address', 'fiscal_identities']));
    expect(Object.keys(merchantCreate.properties)).not.toContain('tax_id');
  });

  it('documents the error envelope on every /v1 operation (401, 429, 500 and their own)', () => {
    const envelope = doc.components.schemas.Error;
    expect(envelope).toBeDefined();
    expect(envelope.required).toEqual(expect.arrayContaining(['code', 'message', 'retryable']));
    expect(Object.keys(envelope.properties).sort()).toEqual(['code', 'details', 'message', 'retryable']);

    for (const { method, path, operation } of operations().filter(({ path }) => path.startsWith('/v1/'))) {
      const statuses = Object.keys(operation.responses);
      for (const status of ['401', '429', '500']) expect(statuses, `${method} ${path}`).toContain(status);
      for (const status of statuses.filter((s) => /^[45]\d\d$/.test(s))) {
        const schema = resolveRef(operation.responses[status].content?.['application/json']?.schema);
        expect(schema?.required, `${method} ${path} ${status}`).toEqual(expect.arrayContaining(['code', 'message', 'retryable']));
      }
    }
    const patch = doc.paths['/v1/merchants/{id}'].patch.responses;
    for (const status of ['400', '401', '403', '404', '412', '422']) expect(patch).toHaveProperty([status]);
    expect(doc.paths['/readyz'].get.responses).toHaveProperty(['503']);
  });

  it('shows every tagged union as oneOf with a discriminator', () => {
    const unions: string[] = [];
    const undiscriminated: string[] = [];
    const visit = (node: unknown, where: string) => {
      if (Array.isArray(node)) return node.forEach((child, i) => visit(child, `${where}/${i}`));
      if (!node || typeof node !== 'object') return;
      const schema = node as Json;
      const alternatives = (schema.oneOf ?? schema.anyOf) as Json[] | undefined;
      if (alternatives && alternatives.length > 1) {
        const resolved = alternatives.map(resolveRef);
        // a tagged union: every alternative an object with one property fixed to a constant
        const tags = Object.keys(resolved[0]?.properties ?? {}).filter((property) =>
          resolved.every((alternative) => {
            const tag = alternative?.properties?.[property];
            return tag && (tag.const !== undefined || (Array.isArray(tag.enum) && tag.enum.length === 1));
          }),
        );
        if (tags.length) {
          unions.push(where);
          if (!schema.oneOf || !tags.includes(schema.discriminator?.propertyName)) undiscriminated.push(`${where} (${tags.join(', ')})`);
        }
      }
      for (const [key, child] of Object.entries(schema)) visit(child, `${where}/${key}`);
    };
    visit(doc, '#');
    expect(unions.length).toBeGreaterThan(0);
    expect(undiscriminated).toEqual([]);

    const identity = doc.components.schemas.FiscalIdentity;
    expect(identity.discriminator.propertyName).toBe('country_code');
    expect(identity.oneOf).toHaveLength(3);
    const countries = identity.oneOf.map((variant: Json) => resolveRef(variant)!.properties.country_code.const).sort();
    expect(countries).toEqual(['AUT', 'DEU', 'ITA']);
    const input = doc.paths['/v1/merchants'].post.requestBody.content['application/json'].schema.properties.fiscal_identities.items;
    expect((resolveRef(input) ?? input).discriminator.propertyName).toBe('country_code');
  });

  it('publishes fiscal data as unions on regime (fiscal_information, the receipt’s fiscal, the Style O fiscal block)', () => {
    for (const name of ['FiscalInformation', 'OrganizationFiscal']) {
      const union = doc.components.schemas[name];
      expect(union.discriminator.propertyName, name).toBe('regime');
      const regimes = union.oneOf.map((variant: Json) => resolveRef(variant)!.properties.regime.const);
      expect(regimes, name).toEqual(['KassenSichV', 'RKSV', 'RT']);
    }
    const refOf = (schema: Json): string[] => JSON.stringify(schema).match(/#\/components\/schemas\/(FiscalInformation|OrganizationFiscal)"/g) ?? [];
    expect(refOf(doc.components.schemas.SaleOperation)).not.toEqual([]);
    expect(refOf(doc.components.schemas.Receipt)).not.toEqual([]);
    expect(refOf(doc.components.schemas.CanonicalReceipt)).not.toEqual([]);
    expect(refOf(doc.components.schemas.RefundOperation)).not.toEqual([]);
  });
});

describe('GET /docs-json', () => {
  it('answers 301 to /openapi-json', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/docs-json' });
    expect(response.statusCode).toBe(301);
    expect(response.headers.location).toBe('/openapi-json');
    expect(response.headers['x-request-id']).toBeTruthy();
  });
});

describe('openapi/openapi.json', () => {
  it('equals the document the app serves', () => {
    const committed = JSON.parse(readFileSync(resolve(import.meta.dirname, '../../openapi/openapi.json'), 'utf8'));
    expect(committed).toEqual(doc);
  });
});
