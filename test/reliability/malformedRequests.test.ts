// Bad input at scale: every route of the served OpenAPI document gets
// schema-derived malformed and boundary requests (fast-check, fixed seed):
// dropped required fields, wrong types, unknown fields, huge strings, negative and
// huge numbers, invalid enum values, malformed JSON, wrong content types, odd path
// parameters, query values and headers, all with valid credentials where the route
// needs them (Style M with X-Service-Merchant, Style O without it). Whatever comes
// back: no 5xx, X-Request-Id on every response, and every 4xx body is exactly the
// error envelope {code, message, retryable, details?}, retryable only for 412/429.
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAndCompleteSale, fiscalizedRegisterWithSession, mustCreate, saleBody, type OperationsFixture } from '../support/operations.js';
import { openConnection, parseResponses } from '../support/processes.js';
import { mustRefund, orgAuth, platformKey } from '../support/styleO.js';
import { createTenantWithKey, createTestApp, DEU_ADDRESS, deuMerchantBody, json, type TestApp } from '../support/testApp.js';
import { expectEnvelope } from './support.js';

const SEED = 20261122;
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Path = (string | number)[];

let t: TestApp;
let doc: any;
let fx: OperationsFixture;
let ids: Record<string, string>;
let styleO: Record<string, string>;

beforeAll(async () => {
  t = await createTestApp({ EXPORT_WORKER: 'off' });
  const tenant = await createTenantWithKey(t.database, 'DEU');
  fx = await fiscalizedRegisterWithSession(t.app, tenant.apiKey);
  const completed = await createAndCompleteSale(t.app, fx);
  const open = await mustCreate(t.app, fx.headers, saleBody(fx.registerId));
  const receipt = json(await t.app.inject({ method: 'GET', url: `/v1/receipts/${completed.receipt_id}`, headers: fx.headers }));
  const exportJob = json(
    await t.app.inject({
      method: 'POST',
      url: '/v1/exports',
      headers: fx.headers,
      payload: { type: 'dsfinvk', from: '2020-01-01T00:00:00Z', to: '2030-01-01T00:00:00Z' },
    }),
  );
  styleO = orgAuth(await platformKey(t.database, tenant.tenantId), fx.merchantId);
  const refund = await mustRefund(t.app, styleO, fx.registerId, { original_operation_id: completed.id });
  const hosted = String(receipt.links?.hosted ?? '');
  ids = {
    merchant: fx.merchantId,
    location: fx.locationId,
    register: fx.registerId,
    openOperation: open.id,
    completedOperation: completed.id,
    refund: refund.id,
    receipt: completed.receipt_id,
    token: hosted.slice(hosted.lastIndexOf('/') + 1),
    export: exportJob.id,
  };
  expect(Object.values(ids).every(Boolean)).toBe(true);
  const served = await t.app.inject({ method: 'GET', url: '/openapi-json' });
  expect(served.statusCode).toBe(200);
  doc = json(served);
});
afterAll(() => t?.close());

// ---------- the served schema ----------

function deref(schema: any): any {
  let current = schema;
  for (let i = 0; current?.$ref && i < 20; i++) current = doc.components.schemas[String(current.$ref).split('/').pop()!];
  return current ?? {};
}

function typeOf(value: Json): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function accepts(schema: any, value: Json): boolean {
  const s = deref(schema);
  if (s.const !== undefined) return s.const === value;
  if (s.enum) return s.enum.includes(value);
  if (!s.type) return true;
  const types: string[] = Array.isArray(s.type) ? s.type : [s.type];
  const type = typeOf(value);
  if (!types.includes(type) && !(type === 'integer' && types.includes('number'))) return false;
  if (type === 'object') {
    const object = value as Record<string, Json>;
    return (s.required ?? []).every((key: string) => key in object) && Object.entries(s.properties ?? {}).every(([key, sub]) => !(key in object) || accepts(sub, object[key]));
  }
  return true;
}

/** The branch of a union that describes `value` (discriminator first, then the first that accepts it). */
function branch(schema: any, value: Json): any {
  const s = deref(schema);
  const options: any[] | undefined = s.oneOf ?? s.anyOf;
  if (!options) return s;
  const resolved = options.map(deref);
  const tag = s.discriminator?.propertyName;
  if (tag && value && typeof value === 'object' && !Array.isArray(value)) {
    const match = resolved.find((option) => {
      const property = deref(option.properties?.[tag]);
      return property.const === value[tag] || property.enum?.includes(value[tag]);
    });
    if (match) return branch(match, value);
  }
  return branch(resolved.find((option) => accepts(option, value)) ?? resolved[0], value);
}

const PATTERN_CANDIDATES = ['1.00', '0.19', 'EUR', 'DEU', 'DE', '1', 'abc', 'A1', '2026-01-01', '12345678901', '1234567890123'];

/** A minimal instance of a schema: required properties only. */
function exampleFor(schema: any, depth = 0): Json {
  const s = deref(schema);
  if (depth > 12) return null;
  if (s.const !== undefined) return s.const;
  if (s.enum) return s.enum[0];
  const options: any[] | undefined = s.oneOf ?? s.anyOf;
  if (options) return exampleFor(options.map(deref).find((option) => option.type !== 'null') ?? options[0], depth + 1);
  if (s.default !== undefined) return s.default;
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case 'object':
      return Object.fromEntries((s.required ?? []).map((key: string) => [key, exampleFor(s.properties?.[key], depth + 1)]));
    case 'array':
      return Array.from({ length: s.minItems ?? 0 }, () => exampleFor(s.items, depth + 1));
    case 'integer':
    case 'number':
      return s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 1);
    case 'boolean':
      return true;
    case 'null':
      return null;
    default: {
      if (s.format === 'date-time') return '2026-01-01T00:00:00Z';
      if (s.pattern) return PATTERN_CANDIDATES.find((candidate) => new RegExp(s.pattern).test(candidate)) ?? 'x';
      return 'x'.repeat(Math.max(1, s.minLength ?? 1));
    }
  }
}

interface Site {
  path: Path;
  schema: any;
  required: boolean;
}

/** Every value of `value` with the schema that describes it. */
function sitesOf(schema: any, value: Json, path: Path = [], required = true, out: Site[] = []): Site[] {
  const s = branch(schema, value);
  out.push({ path, schema: s, required });
  if (Array.isArray(value)) value.forEach((item, i) => sitesOf(s.items, item, [...path, i], true, out));
  else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) sitesOf(s.properties?.[key], item, [...path, key], (s.required ?? []).includes(key), out);
  }
  return out;
}

function setAt(root: Json, path: Path, replacement: Json | undefined): Json {
  if (!path.length) return replacement === undefined ? null : replacement;
  const copy = structuredClone(root) as any;
  let node = copy;
  for (const segment of path.slice(0, -1)) node = node[segment];
  const last = path.at(-1)!;
  if (replacement === undefined) {
    if (Array.isArray(node)) node.splice(Number(last), 1);
    else delete node[last];
  } else node[last] = replacement;
  return copy;
}

// ---------- the routes and their valid parts ----------

type Style = 'M' | 'O' | 'merchants' | 'public';

interface RouteCase {
  method: string;
  path: string;
  operation: any;
  style: Style;
}

function routeCases(): RouteCase[] {
  const cases: RouteCase[] = [];
  for (const [path, methods] of Object.entries<any>(doc.paths)) {
    for (const [method, operation] of Object.entries<any>(methods)) {
      const headers = (operation.parameters ?? []).filter((p: any) => p.in === 'header').map((p: any) => p.name.toLowerCase());
      const isPublic = Array.isArray(operation.security) && operation.security.length === 0;
      const base = { method: method.toUpperCase(), path, operation };
      if (isPublic || !path.startsWith('/v1/')) cases.push({ ...base, style: 'public' });
      else if (path.startsWith('/v1/merchants')) cases.push({ ...base, style: 'merchants' });
      else {
        if (headers.includes('x-service-merchant')) cases.push({ ...base, style: 'M' });
        if (headers.includes('service-organization')) cases.push({ ...base, style: 'O' });
      }
    }
  }
  return cases;
}

function credentials(route: RouteCase): Record<string, string> {
  switch (route.style) {
    case 'M':
      return fx.headers;
    case 'O':
      return styleO;
    case 'merchants':
      return { authorization: fx.headers.authorization };
    default:
      return {};
  }
}

/** A real id for each path parameter, so requests get past the lookups where they can. */
function validParam(route: RouteCase, name: string): string {
  if (name === 'organizationId') return ids.merchant;
  if (name === 'token') return ids.token;
  const resource = route.path.split('/')[2];
  switch (resource) {
    case 'merchants':
      return ids.merchant;
    case 'locations':
      return ids.location;
    case 'registers':
      return ids.register;
    case 'receipts':
      return ids.receipt;
    case 'exports':
      return ids.export;
    case 'operations':
      if (route.style === 'O') return ids.refund;
      return route.path.endsWith('/complete') || route.path.endsWith('/void') ? ids.openOperation : ids.completedOperation;
    default:
      return 'x';
  }
}

/** Known-valid bodies where the generic minimal instance would not pass the service's rules. */
function validBody(route: RouteCase, schema: any): Json {
  const key = `${route.style} ${route.method} ${route.path}`;
  const known: Record<string, Json> = {
    'merchants POST /v1/merchants': deuMerchantBody() as Json,
    'merchants PATCH /v1/merchants/{id}': { legal_name: 'Bäckerei Neu GmbH' },
    'M POST /v1/locations': { name: 'Filiale', address: DEU_ADDRESS },
    'M PATCH /v1/locations/{id}': { name: 'Filiale Süd' },
    'O PATCH /v1/locations/{id}': { name: 'Filiale Ost' },
    'M POST /v1/registers': { location_id: ids.location, name: 'Kasse 9' },
    'M PATCH /v1/registers/{id}': { name: 'Kasse 1b' },
    'M PUT /v1/registers/{id}/simulation': { fiscal_device: 'ok' },
    'M POST /v1/operations': saleBody(fx.registerId) as Json,
    'M POST /v1/operations/{id}/complete': {
      payments: [{ payment_id: 'p1', method: 'cash', amount: '11.90', currency: 'EUR', status: 'captured' }],
      completed_at: '2026-01-01T00:00:00Z',
    },
    'O POST /v1/operations/{id}/complete': {},
    'O POST /v1/operations/{id}/cancel': {},
    'M POST /v1/operations/{id}/void': { reason: 'operator_cancelled' },
    'M POST /v1/exports': { type: 'dsfinvk', from: '2020-01-01T00:00:00Z', to: '2030-01-01T00:00:00Z', register_id: ids.register },
    'O POST /v1/registers/{id}/refunds': { original_operation_id: ids.completedOperation, reason: 'defekt', metadata: { a: 1 } },
    'O POST /v1/organizations/{organizationId}/locations': {
      name: 'Lager',
      address: { line1: 'Hafenstraße 2', city: 'Hamburg', postal_code: '20457', country: 'DE' },
      timezone: 'Europe/Berlin',
      metadata: { floor: 2 },
    },
  };
  return key in known ? known[key] : exampleFor(schema);
}

// ---------- what goes wrong ----------

const anyJson: fc.Arbitrary<Json> = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
  fc.string({ maxLength: 30 }),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), fc.string({ maxLength: 8 }), { maxKeys: 3 }),
);

const boundaryValues: fc.Arbitrary<Json> = fc.constantFrom<Json>(
  -1,
  0,
  -0.000001,
  1e308,
  -1e308,
  2 ** 53 + 2,
  -(2 ** 63),
  1e-12,
  '-1',
  '-0',
  '0.000000001',
  '99999999999999999999.99',
  '1e5',
  '1,00',
  ' 1.00',
  'NaN',
  'Infinity',
  '١٢٣',
  '',
  [],
  {},
);

const oddStrings: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('\u0000', '\uFEFF', '\u202E', '😀'.repeat(10), "'; DROP TABLE operations; --", '../../etc/passwd', '<script>alert(1)</script>', '%s%n'),
);

interface Mutation {
  description: string;
  body: Json | undefined;
}

/** Schema-derived mutations of a valid body. */
function bodyMutations(baseline: Json, schema: any): fc.Arbitrary<Mutation> {
  const sites = sitesOf(schema, baseline);
  const at = (site: Site) => site.path.join('.') || '(root)';
  const arbitraries: fc.Arbitrary<Mutation>[] = [];
  const required = sites.filter((site) => site.path.length && site.required && typeof site.path.at(-1) === 'string');
  if (required.length) {
    arbitraries.push(fc.constantFrom(...required).map((site) => ({ description: `drop required ${at(site)}`, body: setAt(baseline, site.path, undefined) })));
  }
  arbitraries.push(
    fc.tuple(fc.constantFrom(...sites), anyJson).map(([site, value]) => ({
      description: `${at(site)} := ${JSON.stringify(value)} (wrong type)`,
      body: setAt(baseline, site.path, value),
    })),
  );
  const objects = sites.filter((site) => typeOf(site.path.length ? (site.path.reduce<any>((node, key) => node[key], baseline) as Json) : baseline) === 'object');
  if (objects.length) {
    arbitraries.push(
      fc.tuple(fc.constantFrom(...objects), fc.oneof(fc.string({ minLength: 1, maxLength: 12 }), fc.constantFrom('__proto__', 'constructor', 'id', 'tax_id')), anyJson).map(
        ([site, key, value]) => {
          const node = site.path.reduce<any>((current, segment) => current[segment], baseline);
          const extended = key in node ? { ...node, [`${key}_extra`]: value } : { ...node, [key]: value };
          return { description: `unknown field ${at(site)}.${key}`, body: setAt(baseline, site.path, extended) };
        },
      ),
    );
  }
  const strings = sites.filter((site) => site.path.length && typeof site.path.reduce<any>((node, key) => node[key], baseline) === 'string');
  if (strings.length) {
    arbitraries.push(
      fc.tuple(fc.constantFrom(...strings), fc.constantFrom('x', 'é', '9', '😀'), fc.integer({ min: 300, max: 300_000 })).map(([site, unit, length]) => ({
        description: `${at(site)} := ${JSON.stringify(unit)} x ${length}`,
        body: setAt(baseline, site.path, unit.repeat(length)),
      })),
      fc.tuple(fc.constantFrom(...strings), oddStrings).map(([site, value]) => ({
        description: `${at(site)} := ${JSON.stringify(value)}`,
        body: setAt(baseline, site.path, value),
      })),
    );
  }
  arbitraries.push(
    fc.tuple(fc.constantFrom(...sites), boundaryValues).map(([site, value]) => ({
      description: `${at(site)} := ${JSON.stringify(value)} (boundary)`,
      body: setAt(baseline, site.path, value),
    })),
  );
  const enums = sites.filter((site) => site.path.length && (site.schema.enum || site.schema.const !== undefined));
  if (enums.length) {
    arbitraries.push(
      fc.tuple(fc.constantFrom(...enums), fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom('SALE', 'Sale ', 'refund', 'sale\u0000'))).map(([site, value]) => ({
        description: `${at(site)} := ${JSON.stringify(value)} (not in enum)`,
        body: setAt(baseline, site.path, value),
      })),
    );
  }
  const arrays = sites.filter((site) => site.path.length && Array.isArray(site.path.reduce<any>((node, key) => node[key], baseline)));
  if (arrays.length) {
    arbitraries.push(
      fc.tuple(fc.constantFrom(...arrays), fc.integer({ min: 0, max: 3000 })).map(([site, length]) => {
        const current = site.path.reduce<any>((node, key) => node[key], baseline) as Json[];
        return {
          description: `${at(site)} with ${length} items`,
          body: setAt(baseline, site.path, Array.from({ length }, (_, i) => structuredClone(current[i % Math.max(1, current.length)] ?? null))),
        };
      }),
    );
  }
  arbitraries.push(
    fc.constantFrom<Json>([], 'body', 42, true, null, [baseline]).map((body) => ({ description: `root := ${JSON.stringify(body)?.slice(0, 40)}`, body })),
  );
  return fc.oneof(...arbitraries);
}

const PATH_VALUES = [
  '%00',
  '%2e%2e',
  '..%2f..%2fetc%2fpasswd',
  '%',
  '%zz',
  '%E2%82',
  '%C0%AF',
  'a'.repeat(65),
  'a'.repeat(5000),
  '%20',
  "'%20OR%201=1--",
  '%F0%9F%98%80',
  '__proto__',
  'constructor',
  '-1',
  '0',
  'null',
  'op_%0D%0AX-Injected:%201',
  '*',
  ';',
];

const pathValues: fc.Arbitrary<{ description: string; value: string }> = fc.oneof(
  fc.constantFrom(...PATH_VALUES).map((value) => ({ description: `raw ${value.slice(0, 30)}`, value })),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 80 }).map((value) => ({ description: `encoded ${JSON.stringify(value)}`, value: encodeURIComponent(value) })),
);

const oddHeaderValues = fc.constantFrom(
  '',
  ' ',
  'x'.repeat(10_000),
  '"1"',
  '"0"',
  '"-1"',
  'W/"1"',
  '*',
  '"99999999999999999999"',
  '1',
  '"1", "2"',
  'mer_' + 'Z'.repeat(20),
  "' OR 1=1 --",
  'ÄÖÜ',
  '\t"1"\t',
);

const oddAuthorization = fc.constantFrom(
  'Bearer',
  'Bearer ',
  'bearer svc_test_deu_xxxxxxxxxxxxxxxxxxxxxx',
  'Basic dXNlcjpwYXNz',
  `Bearer svc_test_deu_${'A'.repeat(5000)}`,
  'Bearer svc_live_deu_AAAAAAAAAAAAAAAAAAAAAAAAAA',
  'Bearer svc_platform_test_short',
  'Bearer svc_test_xyz_AAAAAAAAAAAAAAAAAAAAAAAAAA',
  'Bearer  svc_test_deu_AAAAAAAAAAAAAAAAAAAAAAAAAA',
);

// ---------- running and judging ----------

const problems: string[] = [];
let requests = 0;

function judge(response: LightMyRequestResponse, description: string): void {
  const status = response.statusCode;
  const where = `${description} -> ${status} ${response.body.slice(0, 300)}`;
  if (!response.headers['x-request-id']) problems.push(`no X-Request-Id: ${where}`);
  if (status >= 500) return void problems.push(`5xx: ${where}`);
  if (status < 400) return;
  if (!String(response.headers['content-type'] ?? '').startsWith('application/json')) return void problems.push(`not JSON: ${where}`);
  let body: any;
  try {
    body = JSON.parse(response.body);
  } catch {
    return void problems.push(`unparsable body: ${where}`);
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) return void problems.push(`not an object: ${where}`);
  const extra = Object.keys(body).filter((key) => !['code', 'message', 'retryable', 'details'].includes(key));
  if (extra.length) problems.push(`extra keys ${extra.join(',')}: ${where}`);
  if (typeof body.code !== 'string' || !body.code) problems.push(`code: ${where}`);
  if (typeof body.message !== 'string') problems.push(`message: ${where}`);
  if (body.retryable !== (status === 412 || status === 429)) problems.push(`retryable: ${where}`);
  if (body.details !== undefined && (body.details === null || typeof body.details !== 'object' || Array.isArray(body.details))) {
    problems.push(`details: ${where}`);
  }
}

interface Outgoing {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string;
  description: string;
}

async function send(request: Outgoing): Promise<void> {
  requests++;
  let response: LightMyRequestResponse;
  try {
    response = await t.app.inject({ method: request.method as any, url: request.url, headers: request.headers, payload: request.payload });
  } catch (error) {
    // The request could not even be written (an URL or header the HTTP layer refuses): no server answer to judge.
    problems.push(`inject refused ${request.description}: ${(error as Error).message}`);
    return;
  }
  judge(response, `${request.description} [${request.method} ${request.url.slice(0, 120)}]`);
}

function urlFor(route: RouteCase, params: Record<string, string> = {}, query = ''): string {
  const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => params[name] ?? encodeURIComponent(validParam(route, name)));
  return query ? `${path}?${query}` : path;
}

function requiredQuery(route: RouteCase): string {
  if (route.path === '/v1/exports/{id}/download') return 'expires=9999999999&signature=abc';
  return '';
}

const bodySchemaOf = (route: RouteCase) => route.operation.requestBody?.content?.['application/json']?.schema;
const sample = <T,>(arbitrary: fc.Arbitrary<T>, numRuns: number, salt: number) => fc.sample(arbitrary, { seed: SEED + salt, numRuns });

describe('malformed and boundary requests on every route of /openapi-json', () => {
  it('never get a 5xx; every 4xx is the exact error envelope; every response has X-Request-Id', { timeout: 120_000 }, async () => {
    const routes = routeCases();
    // Every path of the document is exercised, in both styles where it has both.
    expect(new Set(routes.map((r) => `${r.method} ${r.path}`)).size).toBe(
      Object.values<any>(doc.paths).reduce((n, methods) => n + Object.keys(methods).length, 0),
    );
    expect(routes.filter((r) => r.style === 'O').length).toBeGreaterThanOrEqual(6);

    for (const [index, route] of routes.entries()) {
      const headers = credentials(route);
      const label = `${route.style} ${route.method} ${route.path}`;
      const schema = bodySchemaOf(route);
      const query = requiredQuery(route);

      if (schema) {
        const baseline = validBody(route, schema);
        for (const mutation of sample(bodyMutations(baseline, schema), 8, index)) {
          await send({
            method: route.method,
            url: urlFor(route, {}, query),
            headers: { ...headers, 'content-type': 'application/json', 'idempotency-key': `fuzz-${requests}`, 'if-match': '"1"' },
            payload: mutation.body === undefined ? '' : JSON.stringify(mutation.body),
            description: `${label}: ${mutation.description.slice(0, 160)}`,
          });
        }
        const malformed = ['{', '{"a":}', '[1,]', "{'a':1}", '{"a":1}garbage', '1e999', '"unterminated', '\u0000', '{"__proto__":{"admin":true}}', '['.repeat(100_000)];
        for (const text of sample(fc.constantFrom(...malformed), 2, index)) {
          await send({
            method: route.method,
            url: urlFor(route, {}, query),
            headers: { ...headers, 'content-type': 'application/json', 'idempotency-key': `fuzz-${requests}`, 'if-match': '"1"' },
            payload: text,
            description: `${label}: malformed JSON ${JSON.stringify(text.slice(0, 20))}`,
          });
        }
        const contentTypes = ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', 'application/json; charset=utf-16', 'application/jsonx', 'json', '*/*'];
        for (const contentType of sample(fc.constantFrom(...contentTypes), 2, index + 1000)) {
          await send({
            method: route.method,
            url: urlFor(route, {}, query),
            headers: { ...headers, 'content-type': contentType, 'idempotency-key': `fuzz-${requests}`, 'if-match': '"1"' },
            payload: JSON.stringify(baseline),
            description: `${label}: content-type ${contentType}`,
          });
        }
      } else if (route.method !== 'GET') {
        // A body where the route takes none.
        await send({
          method: route.method,
          url: urlFor(route, {}, query),
          headers: { ...headers, 'content-type': 'application/json', 'idempotency-key': `fuzz-${requests}` },
          payload: JSON.stringify({ unexpected: 'x'.repeat(1000) }),
          description: `${label}: unexpected body`,
        });
      }

      const pathParams = (route.operation.parameters ?? []).filter((p: any) => p.in === 'path').map((p: any) => p.name as string);
      if (pathParams.length) {
        for (const odd of sample(pathValues, 3, index + 2000)) {
          const param = pathParams[(requests + index) % pathParams.length];
          await send({
            method: route.method,
            url: urlFor(route, { [param]: odd.value }, query),
            headers: { ...headers, 'content-type': 'application/json', 'idempotency-key': `fuzz-${requests}`, 'if-match': '"1"' },
            payload: schema ? JSON.stringify(validBody(route, schema)) : undefined,
            description: `${label}: path ${param} ${odd.description.slice(0, 60)}`,
          });
        }
      }

      const queryParams = (route.operation.parameters ?? []).filter((p: any) => p.in === 'query');
      if (queryParams.length) {
        const queryArb = fc.tuple(
          ...queryParams.map((p: any) =>
            fc.option(fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom('-1', '0', '201', '1e3', '9'.repeat(40), '2026-13-45T99:99:99Z', 'null', '[]', 'a&b=c', '%00')), {
              nil: undefined,
            }).map((value) => [p.name as string, value] as const),
          ),
          fc.option(fc.tuple(fc.string({ minLength: 1, maxLength: 10 }), fc.string({ maxLength: 10 })), { nil: undefined }),
        );
        for (const [index2, values] of sample(queryArb, 4, index + 3000).entries()) {
          const search = new URLSearchParams();
          for (const entry of values) {
            if (Array.isArray(entry) && entry[1] !== undefined) search.append(String(entry[0]), String(entry[1]));
          }
          // Repeated parameters on one of the runs.
          if (index2 === 0) for (const p of queryParams) search.append(p.name, '1');
          await send({
            method: route.method,
            url: urlFor(route, {}, search.toString()),
            headers,
            description: `${label}: query ${search.toString().slice(0, 80)}`,
          });
        }
      }

      // Headers: odd values for each header the route declares, and odd credentials on authenticated routes.
      const headerParams = (route.operation.parameters ?? []).filter((p: any) => p.in === 'header').map((p: any) => p.name.toLowerCase() as string);
      for (const [i, value] of sample(oddHeaderValues, Math.min(2, headerParams.length), index + 4000).entries()) {
        const name = headerParams[(index + i) % headerParams.length];
        if (route.style === 'M' && name === 'service-organization') continue;
        if (route.style === 'O' && name === 'x-service-merchant') continue; // that header is what makes a request Style M
        await send({
          method: route.method,
          url: urlFor(route, {}, query),
          headers: { ...headers, 'content-type': 'application/json', 'idempotency-key': `fuzz-${requests}`, 'if-match': '"1"', [name]: value },
          payload: schema ? JSON.stringify(validBody(route, schema)) : undefined,
          description: `${label}: header ${name}=${JSON.stringify(value.slice(0, 30))}`,
        });
      }
      if (route.style !== 'public') {
        for (const value of sample(oddAuthorization, 1, index + 5000)) {
          await send({
            method: route.method,
            url: urlFor(route, {}, query),
            headers: { ...headers, authorization: value },
            description: `${label}: authorization ${value.slice(0, 30)}`,
          });
        }
      }
    }

    expect(requests).toBeGreaterThan(300);
    expect(requests).toBeLessThan(1000);
    expect(problems).toEqual([]);
  });
});

describe('requests the HTTP parser rejects (a listening server)', () => {
  it('are answered with the error envelope and X-Request-Id too', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as { port: number };
    const key = fx.headers.authorization;
    const cases: [string, string][] = [
      ['header without a colon', 'GET /v1/merchants HTTP/1.1\r\nHost: x\r\nBroken Header\r\n\r\n'],
      ['non-numeric Content-Length', `POST /v1/merchants HTTP/1.1\r\nHost: x\r\nAuthorization: ${key}\r\nContent-Type: application/json\r\nContent-Length: abc\r\n\r\n{}`],
      ['two Content-Lengths', `POST /v1/merchants HTTP/1.1\r\nHost: x\r\nAuthorization: ${key}\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}`],
      ['Content-Length with chunked', `POST /v1/merchants HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n`],
      ['bad chunk size', `POST /v1/merchants HTTP/1.1\r\nHost: x\r\nAuthorization: ${key}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`],
      ['control character in the path', 'GET /v1/merchants/\u0001 HTTP/1.1\r\nHost: x\r\n\r\n'],
      ['unknown method', 'BREW /v1/merchants HTTP/1.1\r\nHost: x\r\n\r\n'],
      ['not HTTP at all', 'hello there\r\n\r\n'],
      ['headers over the size limit', `GET /v1/merchants HTTP/1.1\r\nHost: x\r\nX-Filler: ${'a'.repeat(20_000)}\r\n\r\n`],
    ];
    const wrong: string[] = [];
    for (const [what, raw] of cases) {
      const connection = await openConnection(port);
      connection.socket.write(raw, 'latin1');
      const timer = setTimeout(() => connection.socket.destroy(), 5000);
      const [response] = parseResponses(await connection.received);
      clearTimeout(timer);
      if (!response) {
        wrong.push(`${what}: no answer`);
        continue;
      }
      try {
        expect(response.status, what).toBeGreaterThanOrEqual(400);
        expect(response.status, what).toBeLessThan(500);
        expectEnvelope(response.status, response.headers, response.body, what);
      } catch (error) {
        wrong.push(`${what}: ${response.status} ${JSON.stringify(response.headers)} ${response.body} (${(error as Error).message.split('\n')[0]})`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
