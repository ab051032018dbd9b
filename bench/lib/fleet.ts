import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import type { FlowOutcome } from './openLoop.js';

export type Country = 'DEU' | 'AUT' | 'ITA';

/** Each country's merchant and the tax of the bench's one line. */
const MERCHANT_OF_COUNTRY: Record<Country, { body: object; address: object; total: string; tax: object }> = {
  DEU: {
    body: { legal_name: 'Bench GmbH', fiscal_identities: [{ country_code: 'DEU', tax_number: '21/815/08150', vat_id: 'DE123456789' }] },
    address: { line1: 'Friedrichstraße 1', city: 'Berlin', postal_code: '10117', country_code: 'DEU' },
    total: '11.90',
    tax: { name: 'MwSt', rate: '0.19', tax_amount: '1.9' },
  },
  AUT: {
    body: { legal_name: 'Bench Wien GmbH', fiscal_identities: [{ country_code: 'AUT', legal_entity_id_type: 'VAT_ID', vat_id: 'ATU12345678' }] },
    address: { line1: 'Stephansplatz 1', city: 'Wien', postal_code: '1010', country_code: 'AUT' },
    total: '11.90',
    tax: { name: 'USt', rate: '0.20', tax_amount: '1.98333333' },
  },
  ITA: {
    body: {
      legal_name: 'Bench Roma Srl',
      fiscal_identities: [
        {
          country_code: 'ITA',
          tax_number: '12345678903',
          vat_number: '12345678903',
          legal_entity_type: 'COMPANY',
          fisconline_user: 'RSSMRA85T10A562S',
          fisconline_password: 'bench-password-1',
          fisconline_pin: '12345',
        },
      ],
    },
    address: { line1: 'Via del Corso 1', city: 'Roma', postal_code: '00186', country_code: 'ITA' },
    total: '12.20',
    tax: { name: 'IVA 22%', rate: '0.22', tax_amount: '2.2' },
  },
};

export interface BenchClient {
  call(method: string, path: string, body: unknown, headers?: Record<string, string>): Promise<{ status: number; json: any }>;
  close(): Promise<void>;
}

/** Keep-alive HTTP to the server under test, JSON in and out. */
export function benchClient(baseUrl: string): BenchClient {
  const http = new Pool(baseUrl, { connections: 256 });
  return {
    async call(method, path, body, headers = {}) {
      const response = await http.request({
        method: method as 'POST',
        path,
        headers: { 'content-type': 'application/json', ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.body.text();
      return { status: response.statusCode, json: text ? JSON.parse(text) : undefined };
    },
    close: () => http.close(),
  };
}

/** A country's merchant with fiscalized registers, each with an open session. */
export interface Fleet {
  country: Country;
  headers: Record<string, string>;
  registers: string[];
}

/** Sets a fleet up through the public API, as an integrator would. */
export async function setUpFleet(client: BenchClient, adminToken: string, tenantId: string, country: Country, registerCount: number): Promise<Fleet> {
  const admin = { authorization: `Bearer ${adminToken}` };
  const key = await client.call('POST', `/admin/v1/tenants/${tenantId}/api-keys`, { kind: 'tenant', country_code: country }, admin);
  const auth = { authorization: `Bearer ${key.json.api_key}` };
  const { body, address } = MERCHANT_OF_COUNTRY[country];
  const merchant = await client.call('POST', '/v1/merchants', { ...body, country_code: country, address }, auth);
  if (merchant.status !== 201) throw new Error(`merchant ${country} failed: ${JSON.stringify(merchant.json)}`);
  const headers = { ...auth, 'x-service-merchant': merchant.json.id };
  const location = await client.call('POST', '/v1/locations', { name: 'Bench', address }, headers);
  const registers: string[] = [];
  for (let i = 0; i < registerCount; i += 1) {
    const register = await client.call('POST', '/v1/registers', { location_id: location.json.id, name: `Kasse ${i}` }, headers);
    const fiscalized = await client.call('POST', `/v1/registers/${register.json.id}/fiscalize`, undefined, headers);
    if (fiscalized.status !== 200) throw new Error(`fiscalize ${country} failed: ${JSON.stringify(fiscalized.json)}`);
    const opened = await client.call('POST', '/v1/operations', { type: 'session_open', register_id: register.json.id, opening_amount: '100.00' }, {
      ...headers,
      'idempotency-key': `open-${register.json.id}`,
    });
    if (opened.status !== 201) throw new Error(`session_open ${country} failed: ${JSON.stringify(opened.json)}`);
    registers.push(register.json.id);
  }
  return { country, headers, registers };
}

let sequence = 0;

/**
 * One flow: a POS sale created, then completed with a payment (signed by the
 * register's device: TSE, RKSV signature unit, RT), each call with its own
 * Idempotency-Key, on the fleet's first `registerCount` registers in turn. The
 * headers' literals open their objects: a literal that opens with a spread and
 * adds keys costs several µs on Node 20 (src/modules/operations/presenter.ts).
 */
export function saleFlow(client: BenchClient, fleet: Fleet, registerCount = fleet.registers.length) {
  const { total, tax } = MERCHANT_OF_COUNTRY[fleet.country];
  return async (index: number): Promise<FlowOutcome> => {
    const registerId = fleet.registers[index % registerCount];
    const runId = `${process.pid}-${sequence++}`;
    const calls: FlowOutcome['calls'] = [];
    let started = performance.now();
    const created = await client.call(
      'POST',
      '/v1/operations',
      {
        type: 'sale',
        source: 'POS',
        currency: 'EUR',
        register_id: registerId,
        tip_amount: '0.00',
        total_amount: total,
        line_items: [{ title: 'Brot', quantity: 1, unit_price: total, total_amount: total, sku_identifier: 'SKU-1', taxes: [tax] }],
      },
      { 'idempotency-key': `c-${runId}`, ...fleet.headers },
    );
    calls.push({ name: 'create', ms: performance.now() - started, ok: created.status === 201, status: created.status });
    if (created.status !== 201) return { calls };
    started = performance.now();
    const completed = await client.call(
      'POST',
      `/v1/operations/${created.json.id}/complete`,
      { payments: [{ payment_id: runId, method: 'cash', amount: total, currency: 'EUR', status: 'captured' }] },
      { 'idempotency-key': `x-${runId}`, 'if-match': '"1"', ...fleet.headers },
    );
    calls.push({ name: 'complete', ms: performance.now() - started, ok: completed.status === 200, status: completed.status });
    return { calls };
  };
}
