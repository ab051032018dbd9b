// Contract section 7: every error is {code, message, retryable, details?}; schema errors name the field;
// every response carries X-Request-Id.
import { z } from 'zod';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/http/errors.js';
import { auth, createDeuSetup, createTenantWithKey, createTestApp, DEU_ADDRESS, deuMerchantBody, expectError, type TestApp } from '../support/testApp.js';

let t: TestApp;
let key: string;
let merchantId: string;

/** Routes that fail in ways no real route should, registered before ready(). */
function failingRoutes(app: FastifyInstance) {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  typed.get('/v1/test/throws', async () => {
    throw new Error('kaboom: secret internal detail');
  });
  typed.get('/test/public-throws', { config: { auth: 'public' } }, async () => {
    throw new TypeError('cannot read properties of undefined');
  });
  typed.get('/v1/test/rejects-with-status', async () => {
    throw Object.assign(new Error('upstream is down'), { statusCode: 503 });
  });
  typed.get('/v1/test/throws-non-error', async () => {
    throw 'a string';
  });
  typed.get('/v1/test/bad-response', { schema: { response: { 200: z.object({ id: z.string() }) } } }, async () => ({ id: 42 }) as never);
  typed.get('/v1/test/api-error/:status', { schema: { params: z.object({ status: z.coerce.number() }) } }, async (request) => {
    throw new ApiError(request.params.status, 'test_code', 'a test error');
  });
}

beforeAll(async () => {
  t = await createTestApp({}, { routes: failingRoutes });
  key = (await createTenantWithKey(t.database)).apiKey;
  merchantId = (await createDeuSetup(t.app, key)).merchantId;
});
afterAll(() => t.close());

const postMerchant = (payload: unknown, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url: '/v1/merchants', headers: { ...auth(key), ...headers }, payload: payload as object });

describe('the envelope', () => {
  it('for unknown routes and methods, with or without a key', async () => {
    expectError(await t.app.inject({ method: 'GET', url: '/v1/nothing-here', headers: auth(key) }), 404, 'not_found');
    expectError(await t.app.inject({ method: 'GET', url: '/v1/nothing-here' }), 404, 'not_found');
    expectError(await t.app.inject({ method: 'GET', url: '/' }), 404, 'not_found');
    expectError(await t.app.inject({ method: 'GET', url: '/v2/merchants', headers: auth(key) }), 404, 'not_found');
    expectError(await t.app.inject({ method: 'PUT', url: '/v1/merchants', headers: auth(key), payload: {} }), 404, 'not_found');
    expectError(await t.app.inject({ method: 'DELETE', url: '/v1/merchants', headers: auth(key) }), 404, 'not_found');
  });

  it('for malformed JSON and empty JSON bodies', async () => {
    const broken = expectError(
      await postMerchant('{"legal_name": "x",', { 'content-type': 'application/json' }),
      400,
      'invalid_request',
    );
    expect(broken.details?.field).toBe('body');
    expectError(await postMerchant('', { 'content-type': 'application/json' }), 400, 'invalid_request');
    expectError(await postMerchant('null', { 'content-type': 'application/json' }), 400, 'invalid_request');
    expectError(await postMerchant('[]', { 'content-type': 'application/json' }), 400, 'invalid_request');
    expectError(await postMerchant('"text"', { 'content-type': 'application/json' }), 400, 'invalid_request');
  });

  it('for a wrong content type', async () => {
    const xml = expectError(await postMerchant('<merchant/>', { 'content-type': 'application/xml' }), 400, 'invalid_request');
    expect(xml).toMatchObject({ message: 'Content-Type must be application/json', details: { header: 'Content-Type' } });
    expectError(await postMerchant('legal_name=x', { 'content-type': 'application/x-www-form-urlencoded' }), 400, 'invalid_request');
    expectError(await postMerchant(JSON.stringify(deuMerchantBody()), { 'content-type': 'text/plain' }), 400, 'invalid_request');
    expect(await t.database.prisma.merchant.count()).toBe(1);
  });

  it('for a body shorter than its Content-Length says', async () => {
    const short = expectError(await postMerchant('{"legal_name": "x"}', { 'content-type': 'application/json', 'content-length': '40' }), 400, 'invalid_request');
    expect(short).toMatchObject({ message: 'The request body is not as long as its Content-Length says', details: { header: 'Content-Length' } });
    expect(await t.database.prisma.merchant.count()).toBe(1);
  });

  it('for a body over the size limit (413, not retryable)', async () => {
    expectError(await postMerchant({ legal_name: 'x'.repeat(t.config.bodyLimitBytes + 1) }), 413);
  });

  it('for unexpected exceptions: 500 internal_error, retryable, without internal detail', async () => {
    for (const url of ['/v1/test/throws', '/test/public-throws', '/v1/test/rejects-with-status', '/v1/test/throws-non-error']) {
      const response = await t.app.inject({ method: 'GET', url, headers: auth(key) });
      const body = expectError(response, 500, 'internal_error');
      expect(body.retryable).toBe(true);
      expect(response.body).not.toMatch(/kaboom|secret|undefined|upstream|a string|stack/i);
    }
  });

  it('for a response that does not match its schema: 500 internal_error', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/v1/test/bad-response', headers: auth(key) });
    expectError(response, 500, 'internal_error');
  });

  it('retryable is true exactly for 5xx, 429 and 412', async () => {
    for (const status of [400, 401, 403, 404, 409, 412, 422, 428, 429, 500, 501, 502, 503]) {
      const response = await t.app.inject({ method: 'GET', url: `/v1/test/api-error/${status}`, headers: auth(key) });
      const body = expectError(response, status, 'test_code');
      expect(body.retryable).toBe(status >= 500 || status === 429 || status === 412);
    }
  });

  it('for URLs the router cannot decode and over-long path parameters', async () => {
    const badUrl = await t.app.inject({ method: 'GET', url: '/v1/merchants/%zz', headers: { ...auth(key), 'x-request-id': 'bad-url-1' } });
    expectError(badUrl, 400, 'invalid_request');
    expect(badUrl.headers['x-request-id']).toBe('bad-url-1');
    const longParam = await t.app.inject({ method: 'GET', url: `/v1/merchants/${'a'.repeat(200)}`, headers: auth(key) });
    expectError(longParam, 400, 'invalid_request');
  });
});

describe('schema errors name the field path in details.field', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['a missing nested field', deuMerchantBody({ address: { line1: 'x', city: 'Berlin', country_code: 'DEU' } }), 'address.postal_code'],
    [
      'a wrong type inside a fiscal identity',
      deuMerchantBody({ fiscal_identities: [{ country_code: 'AUT', legal_entity_id_type: 'GLN', gln: 4012345000009 }] }),
      'fiscal_identities[0].gln',
    ],
    [
      'a wrong type in the second fiscal identity',
      deuMerchantBody({
        fiscal_identities: [
          { country_code: 'DEU', tax_number: '21/815/08150', vat_id: 'DE123456789' },
          { country_code: 'AUT', legal_entity_id_type: 'VAT_ID', vat_id: 123 },
        ],
      }),
      'fiscal_identities[1].vat_id',
    ],
    ['a missing top-level field', { ...deuMerchantBody(), legal_name: undefined }, 'legal_name'],
    ['a wrong top-level type', deuMerchantBody({ legal_name: 42 }), 'legal_name'],
    ['an array where an object belongs', deuMerchantBody({ address: [] }), 'address'],
    ['an unknown top-level field (tax_id)', deuMerchantBody({ tax_id: 'DE123456789' }), 'tax_id'],
    ['an unknown nested field', deuMerchantBody({ address: { ...DEU_ADDRESS, street: 'x' } }), 'address.street'],
    [
      'an unknown field in a fiscal identity',
      deuMerchantBody({ fiscal_identities: [{ country_code: 'DEU', tax_number: '1', vat_id: 'DE1', steuer_id: '1' }] }),
      'fiscal_identities[0].steuer_id',
    ],
    [
      '`country` in place of `country_code` in a fiscal identity',
      deuMerchantBody({ fiscal_identities: [{ country: 'DEU', tax_number: '1', vat_id: 'DE1' }] }),
      'fiscal_identities[0].country_code',
    ],
    ['an unknown fiscal identity discriminator', deuMerchantBody({ fiscal_identities: [{ country_code: 'FRA', siret: '1' }] }), 'fiscal_identities[0].country_code'],
  ];

  it.each(cases)('%s', async (_label, payload, field) => {
    const body = expectError(await postMerchant(payload), 400, 'invalid_request');
    expect(body.details?.field).toBe(field);
  });

  it('`country` in place of the merchant’s `country_code` is rejected', async () => {
    const { country_code: _omit, ...rest } = deuMerchantBody();
    const body = expectError(await postMerchant({ ...rest, country: 'DEU' }), 400, 'invalid_request');
    expect(['country', 'country_code']).toContain(body.details?.field);
    const both = expectError(await postMerchant({ ...deuMerchantBody(), country: 'DEU' }), 400, 'invalid_request');
    expect(both.details?.field).toBe('country');
  });

  it('in path parameters', async () => {
    const body = expectError(await t.app.inject({ method: 'GET', url: `/v1/merchants/${'m'.repeat(65)}`, headers: auth(key) }), 400, 'invalid_request');
    expect(body.details?.field).toBe('id');
  });

  it('on merchant-scoped bodies too', async () => {
    const body = expectError(
      await t.app.inject({
        method: 'POST',
        url: '/v1/locations',
        headers: auth(key, merchantId),
        payload: { name: 'Filiale', address: { ...DEU_ADDRESS, postal_code: 10117 } },
      }),
      400,
      'invalid_request',
    );
    expect(body.details?.field).toBe('address.postal_code');
    const register = expectError(
      await t.app.inject({ method: 'POST', url: '/v1/registers', headers: auth(key, merchantId), payload: { name: 'Kasse' } }),
      400,
      'invalid_request',
    );
    expect(register.details?.field).toBe('location_id');
  });

  it('nothing was created by the rejected requests', async () => {
    expect(await t.database.prisma.merchant.count()).toBe(1);
  });
});

describe('X-Request-Id', () => {
  it('is issued on every response when the client sends none', async () => {
    const responses = await Promise.all([
      t.app.inject({ method: 'GET', url: '/v1/merchants', headers: auth(key) }),
      t.app.inject({ method: 'GET', url: '/v1/merchants' }),
      t.app.inject({ method: 'GET', url: '/healthz' }),
      t.app.inject({ method: 'GET', url: '/readyz' }),
      t.app.inject({ method: 'GET', url: '/openapi-json' }),
      t.app.inject({ method: 'GET', url: '/docs-json' }),
      t.app.inject({ method: 'GET', url: '/nowhere' }),
      postMerchant(deuMerchantBody({ tax_id: 'x' })),
      t.app.inject({ method: 'GET', url: '/v1/test/throws', headers: auth(key) }),
    ]);
    const ids = responses.map((response) => response.headers['x-request-id']);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9._:-]{8,128}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('echoes a sane client id, on success and on errors', async () => {
    const sane = ['abc-123', 'req_01J9Z8Q7X6', 'trace.id:42', 'a'.repeat(128), '550e8400-e29b-41d4-a716-446655440000'];
    for (const id of sane) {
      const ok = await t.app.inject({ method: 'GET', url: '/v1/merchants', headers: { ...auth(key), 'x-request-id': id } });
      expect(ok.statusCode).toBe(200);
      expect(ok.headers['x-request-id']).toBe(id);
    }
    const unauthorized = await t.app.inject({ method: 'GET', url: '/v1/merchants', headers: { 'x-request-id': 'client-401' } });
    expect(unauthorized.headers['x-request-id']).toBe('client-401');
    const invalid = await postMerchant(deuMerchantBody({ tax_id: 'x' }), { 'x-request-id': 'client-400' });
    expect(invalid.headers['x-request-id']).toBe('client-400');
    const crashed = await t.app.inject({ method: 'GET', url: '/v1/test/throws', headers: { ...auth(key), 'x-request-id': 'client-500' } });
    expect(crashed.headers['x-request-id']).toBe('client-500');
  });

  it('replaces an insane one', async () => {
    const insane = ['x'.repeat(300), 'a'.repeat(129), 'has spaces in it', 'tab\there', 'quote"d', '<script>', 'ümlaut', 'semi;colon'];
    for (const id of insane) {
      const response = await t.app.inject({ method: 'GET', url: '/v1/merchants', headers: { ...auth(key), 'x-request-id': id } });
      expect(response.statusCode).toBe(200);
      const issued = response.headers['x-request-id'] as string;
      expect(issued).not.toBe(id);
      expect(issued).toMatch(/^[A-Za-z0-9._:-]{8,128}$/);
    }
  });

  it('is not part of the error body (the trace id lives only in the header)', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/v1/merchants', headers: { 'x-request-id': 'only-in-header' } });
    expect(response.body).not.toContain('only-in-header');
  });
});
