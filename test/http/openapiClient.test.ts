// The OpenAPI document generates a good client: a stable, unique operationId on every operation,
// real success descriptions, the contract's header rules, no unused components, the admin API
// described, and servers from the settings.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createTestApp, json, type TestApp } from '../support/testApp.js';

type Json = Record<string, any>;

let t: TestApp;
let doc: Json;

beforeAll(async () => {
  t = await createTestApp();
  doc = json(await t.app.inject({ method: 'GET', url: '/openapi-json' }));
});
afterAll(() => t.close());

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

function operations(document: Json = doc): { key: string; operation: Json }[] {
  return Object.entries(document.paths as Json).flatMap(([path, item]) =>
    Object.entries(item as Json)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]) => ({ key: `${method.toUpperCase()} ${path}`, operation: operation as Json })),
  );
}

// The contract's header rules (service-interface.md):
// - X-Service-Merchant (5.5): every merchant-scoped Style M call; not the merchant itself, Style O or public links.
// - Idempotency-Key (5.7): required on POST /operations, complete and void; optional on the other
//   creates, updates and actions that take one (Style O, 4.3: an optional UUID); never on reads or deletes.
// - If-Match (5.8): required on complete and void; optional on Style M updates; never on creates.
// - Service-Organization (5.4, 4.3): Style O only, optional (required with platform keys only).
// Where both styles share a method and path, the one operation requires none of them: X-Service-Merchant
// is what makes the call Style M, and each style's rule is in the header's description.
type Rule = 'required' | 'optional';
type Headers = Partial<Record<'x-service-merchant' | 'idempotency-key' | 'if-match' | 'service-organization', Rule>>;

const MERCHANT: Headers = { 'x-service-merchant': 'required' };
const MERCHANT_CREATE: Headers = { ...MERCHANT, 'idempotency-key': 'optional' };
const MERCHANT_UPDATE: Headers = { ...MERCHANT, 'idempotency-key': 'optional', 'if-match': 'optional' };
const TRANSITION: Headers = { ...MERCHANT, 'idempotency-key': 'required', 'if-match': 'required' };
const STYLE_O: Headers = { 'service-organization': 'optional' };
const STYLE_O_WRITE: Headers = { ...STYLE_O, 'idempotency-key': 'optional' };
const BOTH_STYLES: Headers = { 'x-service-merchant': 'optional', 'service-organization': 'optional' };
const BOTH_STYLES_WRITE: Headers = { ...BOTH_STYLES, 'idempotency-key': 'optional', 'if-match': 'optional' };

const OPERATIONS: Record<string, [operationId: string, headers: Headers]> = {
  'GET /healthz': ['getLiveness', {}],
  'GET /readyz': ['getReadiness', {}],
  'POST /admin/v1/tenants': ['createTenant', {}],
  'GET /admin/v1/tenants': ['listTenants', {}],
  'POST /admin/v1/tenants/{tenantId}/api-keys': ['createApiKey', {}],
  'GET /admin/v1/tenants/{tenantId}/api-keys': ['listApiKeys', {}],
  'DELETE /admin/v1/api-keys/{keyId}': ['revokeApiKey', {}],
  'POST /v1/merchants': ['createMerchant', { 'idempotency-key': 'optional' }],
  'GET /v1/merchants': ['listMerchants', {}],
  'GET /v1/merchants/{id}': ['getMerchant', {}],
  'PATCH /v1/merchants/{id}': ['updateMerchant', { 'idempotency-key': 'optional', 'if-match': 'optional' }],
  'DELETE /v1/merchants/{id}': ['deleteMerchant', {}],
  'POST /v1/locations': ['createLocation', MERCHANT_CREATE],
  'GET /v1/locations': ['listLocations', MERCHANT],
  'GET /v1/locations/{id}': ['getLocation', MERCHANT],
  'PATCH /v1/locations/{id}': ['updateLocation', BOTH_STYLES_WRITE],
  'DELETE /v1/locations/{id}': ['deleteLocation', MERCHANT],
  'POST /v1/registers': ['createRegister', MERCHANT_CREATE],
  'GET /v1/registers': ['listRegisters', MERCHANT],
  'GET /v1/registers/{id}': ['getRegister', MERCHANT],
  'PATCH /v1/registers/{id}': ['updateRegister', MERCHANT_UPDATE],
  'DELETE /v1/registers/{id}': ['deleteRegister', MERCHANT],
  'POST /v1/registers/{id}/fiscalize': ['fiscalizeRegister', MERCHANT_CREATE],
  'POST /v1/registers/{id}/decommission': ['decommissionRegister', MERCHANT_CREATE],
  'PUT /v1/registers/{id}/simulation': ['setRegisterSimulation', MERCHANT],
  'GET /v1/registers/{id}/rksv/crypto-material': ['getRksvCryptoMaterial', MERCHANT],
  'POST /v1/registers/{id}/null-receipts': ['createNullReceipt', { ...MERCHANT, 'idempotency-key': 'required' }],
  'GET /v1/registers/{id}/null-receipts': ['listNullReceipts', MERCHANT],
  'POST /v1/operations': ['createOperation', { ...MERCHANT, 'idempotency-key': 'required' }],
  'GET /v1/operations': ['listOperations', MERCHANT],
  'GET /v1/operations/{id}': ['getOperation', BOTH_STYLES],
  'POST /v1/operations/{id}/complete': ['completeOperation', BOTH_STYLES_WRITE],
  'PATCH /v1/operations/{id}/complete': ['completeOperationWithPatch', TRANSITION],
  'POST /v1/operations/{id}/void': ['voidOperation', TRANSITION],
  'POST /v1/exports': ['createExport', MERCHANT_CREATE],
  'GET /v1/exports': ['listExports', MERCHANT],
  'GET /v1/exports/{id}': ['getExport', MERCHANT],
  'POST /v1/registers/{id}/daily-closures': ['createDailyClosure', MERCHANT_CREATE],
  'GET /v1/registers/{id}/daily-closures': ['listDailyClosures', MERCHANT],
  'GET /v1/daily-closures/{id}': ['getDailyClosure', MERCHANT],
  'GET /v1/daily-closures/{id}/cor10': ['getDailyClosureCor10', MERCHANT],
  'GET /v1/exports/{id}/download': ['downloadExport', {}],
  'GET /v1/receipts/{id}': ['getReceipt', MERCHANT],
  'GET /v1/receipts/{id}/pdf': ['getReceiptPdf', MERCHANT],
  'GET /receipts/{token}': ['getHostedReceipt', {}],
  'GET /receipts/{token}/pdf': ['getHostedReceiptPdf', {}],
  'POST /v1/organizations/{organizationId}/locations': ['createOrganizationLocation', STYLE_O_WRITE],
  'POST /v1/registers/{id}/refunds': ['createRefund', STYLE_O_WRITE],
  'POST /v1/operations/{id}/cancel': ['cancelOperation', STYLE_O_WRITE],
  'GET /v1/operations/{id}/receipt': ['getCanonicalReceipt', STYLE_O],
  'POST /v1/organizations/{organizationId}/fiscal-certificates': ['uploadFiscalCertificate', STYLE_O_WRITE],
  'GET /v1/organizations/{organizationId}/fiscal-certificates': ['listFiscalCertificates', STYLE_O],
  'GET /v1/organizations/{organizationId}/fiscal-certificates/{certificateId}': ['getFiscalCertificate', STYLE_O],
  'POST /v1/organizations/{organizationId}/fiscal-certificates/{certificateId}/revoke': ['revokeFiscalCertificate', STYLE_O_WRITE],
  'POST /v1/organizations/{organizationId}/fiscal-portal-credentials': ['createFiscalPortalCredential', STYLE_O_WRITE],
  'GET /v1/organizations/{organizationId}/fiscal-portal-credentials': ['listFiscalPortalCredentials', STYLE_O],
  'GET /v1/organizations/{organizationId}/fiscal-portal-credentials/{credentialId}': ['getFiscalPortalCredential', STYLE_O],
  'PATCH /v1/organizations/{organizationId}/fiscal-portal-credentials/{credentialId}': ['updateFiscalPortalCredential', STYLE_O_WRITE],
  'DELETE /v1/organizations/{organizationId}/fiscal-portal-credentials/{credentialId}': ['deleteFiscalPortalCredential', STYLE_O],
  'POST /v1/organizations/{organizationId}/fiscal-portal-credentials/{credentialId}/validate': ['validateFiscalPortalCredential', STYLE_O_WRITE],
  'PUT /v1/organizations/{organizationId}/invoice-channels/{jurisdiction}': ['putInvoiceChannel', STYLE_O_WRITE],
  'GET /v1/organizations/{organizationId}/invoice-channels': ['listInvoiceChannels', STYLE_O],
  'GET /v1/organizations/{organizationId}/invoice-channels/{jurisdiction}': ['getInvoiceChannel', STYLE_O],
  'DELETE /v1/organizations/{organizationId}/invoice-channels/{jurisdiction}': ['deleteInvoiceChannel', STYLE_O],
  'GET /v1/events': ['listEvents', BOTH_STYLES],
  'GET /v1/events/{id}': ['getEvent', BOTH_STYLES],
  'POST /v1/webhook-endpoints': ['createWebhookEndpoint', BOTH_STYLES],
  'GET /v1/webhook-endpoints': ['listWebhookEndpoints', BOTH_STYLES],
  'GET /v1/webhook-endpoints/{id}': ['getWebhookEndpoint', BOTH_STYLES],
  'DELETE /v1/webhook-endpoints/{id}': ['deleteWebhookEndpoint', BOTH_STYLES],
  'GET /v1/webhook-endpoints/{id}/deliveries': ['listWebhookDeliveries', BOTH_STYLES],
  'POST /v1/invoices': ['createInvoice', STYLE_O_WRITE],
  'GET /v1/invoices': ['listInvoices', STYLE_O],
  'GET /v1/invoices/{id}': ['getInvoice', STYLE_O],
  'PATCH /v1/invoices/{id}': ['updateInvoice', STYLE_O_WRITE],
  'POST /v1/invoices/{id}/submit': ['submitInvoice', STYLE_O_WRITE],
  'POST /v1/invoices/{id}/cancel': ['cancelInvoice', STYLE_O_WRITE],
  'POST /v1/invoices/{id}/simulate': ['simulateInvoiceRecipient', STYLE_O_WRITE],
  'GET /v1/invoices/{id}/document': ['getInvoiceDocument', STYLE_O],
  'GET /v1/invoices/{id}/pdf': ['getInvoicePdf', STYLE_O],
};

describe('operations', () => {
  it('are exactly those of the table', () => {
    expect(operations().map(({ key }) => key).sort()).toEqual(Object.keys(OPERATIONS).sort());
  });

  it('each have a unique camelCase verb+noun operationId, the one the table pins', () => {
    const ids = operations().map(({ key, operation }) => {
      expect(operation.operationId, key).toMatch(/^[a-z]+(?:[A-Z][a-z0-9]*)+$/);
      expect(operation.operationId, key).toBe(OPERATIONS[key]?.[0]);
      return operation.operationId as string;
    });
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('each have a summary, and every success response a description of its own', () => {
    for (const { key, operation } of operations()) {
      expect(operation.summary, key).toBeTruthy();
      const successes = Object.entries(operation.responses as Json).filter(([status]) => /^2/.test(status));
      expect(successes.length, key).toBeGreaterThan(0);
      for (const [status, response] of successes) {
        expect(response.description, `${key} ${status}`).toMatch(/\w/);
        expect(response.description, `${key} ${status}`).not.toBe('Default Response');
      }
    }
  });

  it('carry the headers the contract gives them, required exactly where it requires them', () => {
    const tracked = ['x-service-merchant', 'idempotency-key', 'if-match', 'service-organization'];
    for (const { key, operation } of operations()) {
      const headers = Object.fromEntries(
        (operation.parameters ?? [])
          .filter((parameter: Json) => parameter.in === 'header' && tracked.includes(parameter.name))
          .map((parameter: Json) => [parameter.name, parameter.required ? 'required' : 'optional']),
      );
      expect(headers, key).toEqual(OPERATIONS[key]?.[1]);
    }
  });
});

describe('components', () => {
  it('holds no schema and no security scheme that nothing uses', () => {
    const refsIn = (node: unknown): string[] => JSON.stringify(node).match(/#\/components\/schemas\/[^"]+/g) ?? [];
    const used = new Set<string>();
    const pending = refsIn({ ...doc, components: { ...doc.components, schemas: {} } });
    while (pending.length > 0) {
      const name = pending.pop()!.replace('#/components/schemas/', '');
      if (used.has(name)) continue;
      used.add(name);
      pending.push(...refsIn(doc.components.schemas[name]));
    }
    expect(Object.keys(doc.components.schemas).filter((name) => !used.has(name))).toEqual([]);

    const schemes = new Set(
      [doc.security, ...operations().map(({ operation }) => operation.security)].flat().filter(Boolean).flatMap((requirement: Json) => Object.keys(requirement)),
    );
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual([...schemes].sort());
  });

  it('names every variant a discriminator selects, and maps each value to it', () => {
    const unmapped: string[] = [];
    const visit = (node: unknown, where: string) => {
      if (!node || typeof node !== 'object') return;
      const schema = node as Json;
      if (schema.discriminator) {
        const refs = (schema.oneOf as Json[]).map((variant) => variant.$ref);
        if (refs.some((ref) => !ref) || Object.values(schema.discriminator.mapping ?? {}).sort().join() !== [...refs].sort().join()) {
          unmapped.push(where);
        }
      }
      for (const [key, child] of Object.entries(schema)) visit(child, `${where}/${key}`);
    };
    visit(doc, '#');
    expect(unmapped).toEqual([]);
    expect(doc.components.schemas.Operation.discriminator.mapping.sale).toBe('#/components/schemas/SaleOperation');
    const create = doc.paths['/v1/operations'].post.requestBody.content['application/json'].schema;
    expect(create.discriminator.mapping.session_close).toBe('#/components/schemas/SessionCloseInput');
  });
});

describe('the admin API', () => {
  it('is described under the tag Admin with its own bearer scheme, whether or not ADMIN_TOKEN is set', async () => {
    const admin = operations().filter(({ key }) => key.includes(' /admin/'));
    expect(admin.length).toBeGreaterThan(0);
    for (const { key, operation } of admin) {
      expect(operation.tags, key).toEqual(['Admin']);
      expect(operation.security, key).toEqual([{ adminToken: [] }]);
    }
    expect(doc.components.securitySchemes.adminToken).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.tags.map((tag: Json) => tag.name)).toContain('Admin');

    const closed = await createTestApp({ ADMIN_TOKEN: '' });
    try {
      expect(json(await closed.app.inject({ method: 'GET', url: '/openapi-json' }))).toEqual(doc);
      const response = await closed.app.inject({ method: 'POST', url: '/admin/v1/tenants', payload: { name: 'x' } });
      expect(response.statusCode).toBe(404);
      expect(json(response)).toEqual({ code: 'not_found', message: 'No route POST /admin/v1/tenants', retryable: false });
    } finally {
      await closed.close();
    }
  });
});

describe('servers', () => {
  it('are the production and sandbox bases, by default both the public base URL', () => {
    expect(doc.servers).toEqual([
      { url: 'http://localhost:3000', description: expect.stringMatching(/^Production/) },
      { url: 'http://localhost:3000', description: expect.stringMatching(/^Sandbox/) },
    ]);
    const config = loadConfig({ PUBLIC_BASE_URL: 'https://fiscal.test/' });
    expect([config.productionBaseUrl, config.sandboxBaseUrl]).toEqual(['https://fiscal.test', 'https://fiscal.test']);
  });

  it('come from PRODUCTION_BASE_URL and SANDBOX_BASE_URL, and leave the paths as they are', async () => {
    const configured = await createTestApp({ PRODUCTION_BASE_URL: 'https://api.fiscal.test/', SANDBOX_BASE_URL: 'https://fiscal.test/sandbox' });
    try {
      const document = json(await configured.app.inject({ method: 'GET', url: '/openapi-json' }));
      expect(document.servers.map((server: Json) => server.url)).toEqual(['https://api.fiscal.test', 'https://fiscal.test/sandbox']);
      expect(Object.keys(document.paths)).toEqual(Object.keys(doc.paths));
    } finally {
      await configured.close();
    }
  });
});
