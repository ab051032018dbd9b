import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { validateXML } from 'xmllint-wasm';
import { createApiKey } from '../../src/modules/admin/service.js';
import { checkEn16931 } from '../einvoicing/en16931Rules.js';
import { fatturaPaSchemaErrors } from '../einvoicing/fatturapaXsd.js';
import { auth, createTenantWithKey, json, type TestApp } from './testApp.js';
import { orgAuth, platformKey } from './styleO.js';
import { makeCertificate, type CertificateOptions } from './certificates.js';

/** Italian VAT numbers: valid check digits, and one whose check digit is wrong (the SdI's 00305). */
export const SELLER_PIVA = '12345678903';
export const BUYER_PIVA = '01234567897';
export const WRONG_CHECK_DIGIT_PIVA = '01234567890';

export interface InvoicingFixture {
  tenantId: string;
  /** Platform key headers with Service-Organization of the Italian organization. */
  it: Record<string, string>;
  itOrganizationId: string;
  /** The same for the German organization. */
  de: Record<string, string>;
  deOrganizationId: string;
  platformKey: string;
}

/** The Italian seller every invoicing test issues from (POST /v1/merchants body). */
export const IT_SELLER_MERCHANT = {
  legal_name: 'Rossi Forniture Srl',
  country_code: 'ITA',
  address: { line1: 'Via Dante 12', city: 'Milano', postal_code: '20121', country_code: 'ITA' },
  fiscal_identities: [
    {
      country_code: 'ITA',
      tax_number: SELLER_PIVA,
      vat_number: SELLER_PIVA,
      legal_entity_type: 'COMPANY',
      fisconline_user: 'RSSMRA85T10F205Z',
      fisconline_password: 'secret-password',
      fisconline_pin: '1234567890',
    },
  ],
};

/** A tenant with an Italian and a German organization, reached through a platform key. */
export async function invoicingFixture(t: TestApp): Promise<InvoicingFixture> {
  const { tenantId, apiKey: itaKey } = await createTenantWithKey(t.database, 'ITA');
  const { apiKey: deuKey } = await createApiKey(t.database.prisma, tenantId, 'test', { kind: 'tenant', country_code: 'DEU' });
  const itOrganization = json(
    await t.app.inject({
      method: 'POST',
      url: '/v1/merchants',
      headers: auth(itaKey),
      payload: IT_SELLER_MERCHANT,
    }),
  );
  const deOrganization = json(
    await t.app.inject({
      method: 'POST',
      url: '/v1/merchants',
      headers: auth(deuKey),
      payload: {
        legal_name: 'Müller Werkzeuge GmbH',
        country_code: 'DEU',
        address: { line1: 'Friedrichstraße 1', city: 'Berlin', postal_code: '10117', country_code: 'DEU' },
        fiscal_identities: [{ country_code: 'DEU', tax_number: '21/815/08150', vat_id: 'DE123456789' }],
      },
    }),
  );
  const key = await platformKey(t.database, tenantId);
  return {
    tenantId,
    it: orgAuth(key, itOrganization.id),
    itOrganizationId: itOrganization.id,
    de: orgAuth(key, deOrganization.id),
    deOrganizationId: deOrganization.id,
    platformKey: key,
  };
}

export const itBuyer = (overrides: Record<string, unknown> = {}) => ({
  legal_name: 'Bianchi Costruzioni SpA',
  tax_id: BUYER_PIVA,
  address: { line1: 'Corso Francia 5', city: 'Torino', state: 'TO', postal_code: '10138', country: 'IT' },
  ...overrides,
});

export const itLine = (overrides: Record<string, unknown> = {}) => ({
  description: 'Consulenza tecnica',
  quantity: '2',
  unit_price_net: 15000,
  tax: { rate: '0.22' },
  ...overrides,
});

/** A B2B invoice (FPR12) of the Italian organization. */
export const itInvoice = (overrides: Record<string, unknown> = {}) => ({
  jurisdiction: 'IT',
  buyer: itBuyer(),
  line_items: [itLine(), itLine({ description: 'Manuale tecnico', quantity: 1, unit_price_net: 2500, tax: { rate: '0.04' } })],
  routing: { codice_destinatario: 'ABC1234' },
  payment_terms: { iban: 'IT60X0542811101000000123456', due_date: '2099-12-31' },
  ...overrides,
});

export const deInvoice = (overrides: Record<string, unknown> = {}) => ({
  jurisdiction: 'DE',
  seller: { contact: { name: 'Petra Müller', phone: '+49 30 1234567', email: 'rechnung@mueller-werkzeuge.de' }, email: 'rechnung@mueller-werkzeuge.de' },
  buyer: {
    legal_name: 'Schmidt Bau AG',
    tax_id: 'DE987654321',
    email: 'eingangsrechnungen@schmidt-bau.de',
    address: { line1: 'Hauptstraße 5', city: 'München', postal_code: '80331', country: 'DE' },
  },
  line_items: [
    { description: 'Bohrmaschine', quantity: '3', unit_price_net: 8999, unit: 'C62', tax: { rate: '0.19' }, discount: { type: 'rate', rate: '0.1' } },
    { description: 'Fachbuch', quantity: '1', unit_price_net: 4900, tax: { rate: '0.07' } },
  ],
  routing: { buyer_reference: '04011000-12345-67' },
  payment_terms: { iban: 'DE02120300000000202051', due_date: '2099-12-31' },
  ...overrides,
});

export async function postInvoice(app: FastifyInstance, headers: Record<string, string>, payload: object, idempotencyKey?: string): Promise<LightMyRequestResponse> {
  return app.inject({ method: 'POST', url: '/v1/invoices', headers: { ...headers, ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}) }, payload });
}

export async function mustCreateInvoice(app: FastifyInstance, headers: Record<string, string>, payload: object): Promise<any> {
  const response = await postInvoice(app, headers, payload);
  if (response.statusCode !== 201) throw new Error(`invoice not created (${response.statusCode}): ${response.body}`);
  return json(response);
}

export async function invoiceAction(
  app: FastifyInstance,
  headers: Record<string, string>,
  id: string,
  action: 'submit' | 'cancel' | 'simulate',
  payload?: object,
): Promise<LightMyRequestResponse> {
  return app.inject({ method: 'POST', url: `/v1/invoices/${id}/${action}`, headers, ...(payload ? { payload } : {}) });
}

export async function getInvoice(app: FastifyInstance, headers: Record<string, string>, id: string): Promise<any> {
  const response = await app.inject({ method: 'GET', url: `/v1/invoices/${id}`, headers });
  if (response.statusCode !== 200) throw new Error(`invoice not read (${response.statusCode}): ${response.body}`);
  return json(response);
}

/** Polls the invoice until `done` holds (the SdI sandbox answers in the background). */
export async function waitForInvoice(app: FastifyInstance, headers: Record<string, string>, id: string, done: (invoice: any) => boolean, timeoutMs = 10_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const invoice = await getInvoice(app, headers, id);
    if (done(invoice)) return invoice;
    if (Date.now() > deadline) throw new Error(`invoice ${id} stayed ${invoice.state}: ${JSON.stringify(invoice.fiscal)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const XSD_ROOT = join(process.cwd(), '..', 'shared', 'reference', 'xsd');

/** Validates a FatturaPA document against the official 1.2.3 schema (read from ../shared, never copied). */
export async function expectValidFatturaPa(xml: string): Promise<void> {
  expect(await fatturaPaSchemaErrors(xml)).toEqual([]);
}

/** Validates an XRechnung against the UN/CEFACT CII D16B schema. */
export async function expectValidCii(xml: string): Promise<void> {
  const dir = join(XSD_ROOT, 'cii-d16b');
  const [root, ...imported] = [
    'CrossIndustryInvoice_100pD16B.xsd',
    'CrossIndustryInvoice_ReusableAggregateBusinessInformationEntity_100pD16B.xsd',
    'CrossIndustryInvoice_QualifiedDataType_100pD16B.xsd',
    'CrossIndustryInvoice_UnqualifiedDataType_100pD16B.xsd',
  ].map((fileName) => ({ fileName, contents: readFileSync(join(dir, fileName), 'utf8') }));
  const result = await validateXML({ xml: [{ fileName: 'invoice.xml', contents: xml }], schema: [root], preload: imported });
  expect(result.errors).toEqual([]);
  expect(result.valid).toBe(true);
}

/** An XRechnung: valid against the CII schema and free of fatal EN 16931 / XRechnung rule failures (the independent checker of test/einvoicing). */
export async function expectValidXRechnung(xml: string): Promise<void> {
  await expectValidCii(xml);
  expect(checkEn16931(xml).filter((failure) => failure.flag === 'fatal')).toEqual([]);
}

export { orgAuth };

/** Uploads a fiscal certificate (with its private key unless `withKey` is false) for the Italian organization; returns the API's certificate. */
export async function uploadItalianCertificate(t: TestApp, fx: InvoicingFixture, options: CertificateOptions & { withKey?: boolean } = {}): Promise<any> {
  const certificate = await makeCertificate(options);
  const response = await t.app.inject({
    method: 'POST',
    url: `/v1/organizations/${fx.itOrganizationId}/fiscal-certificates`,
    headers: fx.it,
    payload: { jurisdiction: 'IT', certificate: certificate.pem, ...(options.withKey === false ? {} : { private_key: certificate.keyPem }) },
  });
  expect(response.statusCode, response.body).toBe(201);
  return json(response);
}
