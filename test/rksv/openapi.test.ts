// Austria (issue 15, point 10): the OpenAPI document shows `fiscal_information` (Style M: the
// operation and its receipt) and `fiscal` (Style O: the refund and the canonical receipt) as
// unions on `regime` whose discriminator maps each regime to its variant; the RKSV
// variants carry the receipt's fields.
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

const schemas = () => doc.components.schemas as Record<string, Json>;
const ref = (name: string) => `#/components/schemas/${name}`;

/** The JSON Schema a response of `method path` with `status` has. */
const responseSchema = (method: string, path: string, status: string): Json =>
  doc.paths[path][method].responses[status].content['application/json'].schema;

/** `schema` resolved, through a $ref, or the union members an `anyOf`/`oneOf` wrapper (e.g. nullable) holds. */
function refsIn(schema: Json): string[] {
  if (schema.$ref) return [schema.$ref];
  return [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].flatMap(refsIn);
}

const RKSV_RECEIPT_FIELDS = [
  'regime',
  'document_number',
  'document_type',
  'cash_register_id',
  'suite',
  'signature_device_id',
  'signed_at',
  'amounts',
  'turnover_counter_encrypted',
  'chain_value',
  'jws',
  'signature_device_failed',
  'public_key',
  'verification',
];

describe('the fiscal unions in the OpenAPI document', () => {
  for (const [union, variants] of [
    ['FiscalInformation', { KassenSichV: 'KassenSichVFiscalInformation', RKSV: 'RksvFiscalInformation', RT: 'RtFiscalInformation' }],
    ['OrganizationFiscal', { KassenSichV: 'KassenSichVOrganizationFiscal', RKSV: 'RksvOrganizationFiscal', RT: 'RtOrganizationFiscal' }],
  ] as const) {
    it(`${union} is a oneOf on regime, its discriminator mapping each regime to its variant`, () => {
      const schema = schemas()[union]!;
      expect(schema.oneOf).toEqual(Object.values(variants).map((name) => ({ $ref: ref(name) })));
      expect(schema.discriminator).toEqual({
        propertyName: 'regime',
        mapping: Object.fromEntries(Object.entries(variants).map(([regime, name]) => [regime, ref(name)])),
      });
      for (const [regime, name] of Object.entries(variants)) {
        const variant = schemas()[name]!;
        expect(variant.properties.regime).toMatchObject({ const: regime });
        expect(variant.required).toContain('regime');
      }
      const rksv = schemas()[variants.RKSV]!;
      expect(rksv.required).toEqual(expect.arrayContaining(RKSV_RECEIPT_FIELDS));
      // R1-AT0 for the software unit (closed system), R1-<ZDA id> for a trust service's unit (R1-AT1).
      expect(rksv.properties.suite).toMatchObject({ type: 'string' });
      expect(rksv.properties.document_type.enum).toEqual(['start', 'standard', 'null', 'monthly', 'annual', 'closing', 'collective']);
    });
  }

  it('Style M: the operation’s fiscal_information and the receipt’s fiscal are FiscalInformation', () => {
    const operation = schemas().SaleOperation!;
    expect(refsIn(operation.properties.fiscal_information)).toEqual([ref('FiscalInformation')]);
    const receipt = responseSchema('get', '/v1/receipts/{id}', '200');
    const receiptSchema = receipt.$ref ? schemas()[receipt.$ref.split('/').at(-1)!]! : receipt;
    expect(refsIn(receiptSchema.properties.fiscal)).toContain(ref('FiscalInformation'));
  });

  it('Style O: the refund’s fiscal and the canonical receipt’s fiscal are OrganizationFiscal', () => {
    expect(refsIn(schemas().RefundOperation!.properties.fiscal)).toEqual([ref('OrganizationFiscal')]);
    expect(refsIn(schemas().CanonicalReceipt!.properties.fiscal)).toEqual([ref('OrganizationFiscal')]);
    const canonical = responseSchema('get', '/v1/operations/{id}/receipt', '200');
    expect(refsIn(canonical)).toEqual([ref('CanonicalReceipt')]);
  });

  it('the Style O RKSV variant is the Style M receipt in the contract’s envelope, its values null only while signing failed', () => {
    const rksv = schemas().RksvOrganizationFiscal!;
    expect(rksv.required).toEqual(
      expect.arrayContaining(['transmission_status', 'fiscal_unit_id', 'transmitted_at', 'tse_serial', 'client_id', 'signature_algorithm', 'error']),
    );
    expect(rksv.properties.transmission_status.enum).toEqual(['succeeded', 'failed']);
    expect(rksv.properties.signature_algorithm).toMatchObject({ const: 'ES256' });
    expect(JSON.stringify(rksv.properties.jws)).toContain('"null"');
  });
});
