// Austrian (RKSV) fixtures: a merchant with an AUT fiscal identity, a register in Vienna,
// fiscalized with an open session; sales in the five Austrian rates; the register's DEP and
// crypto material read straight from the database for the independent verifier.
import { Decimal } from 'decimal.js';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../src/db/database.js';
import { SecretBox } from '../../src/lib/secretBox.js';
import { idem, type OperationsFixture } from './operations.js';
import { auth, json, TEST_SECRETS_KEY } from './testApp.js';

export const AUT_ADDRESS = { line1: 'Stephansplatz 1', city: 'Wien', postal_code: '1010', country_code: 'AUT' };
export const AUT_UID = 'ATU12345678';

export const autMerchantBody = () => ({
  legal_name: 'Kaffeehaus Wien GmbH',
  country_code: 'AUT',
  address: AUT_ADDRESS,
  fiscal_identities: [{ country_code: 'AUT', legal_entity_id_type: 'VAT_ID', vat_id: AUT_UID }],
});

/** An AUT merchant, location and register (not fiscalized). */
export async function autSetup(app: FastifyInstance, apiKey: string): Promise<OperationsFixture> {
  const merchant = json(await app.inject({ method: 'POST', url: '/v1/merchants', headers: auth(apiKey), payload: autMerchantBody() }));
  if (!merchant.id) throw new Error(`merchant create failed: ${JSON.stringify(merchant)}`);
  const headers = auth(apiKey, merchant.id);
  const location = json(await app.inject({ method: 'POST', url: '/v1/locations', headers, payload: { name: 'Stephansplatz', address: AUT_ADDRESS } }));
  const register = json(await app.inject({ method: 'POST', url: '/v1/registers', headers, payload: { location_id: location.id, name: 'Kassa 1' } }));
  return { merchantId: merchant.id, locationId: location.id, registerId: register.id, headers };
}

/** An AUT register, fiscalized (start receipt signed), with an open session. */
export async function autRegisterWithSession(app: FastifyInstance, apiKey: string): Promise<OperationsFixture & { register: any }> {
  const setup = await autSetup(app, apiKey);
  const fiscalized = await app.inject({ method: 'POST', url: `/v1/registers/${setup.registerId}/fiscalize`, headers: setup.headers });
  if (fiscalized.statusCode !== 200) throw new Error(`fiscalize failed: ${fiscalized.body}`);
  const opened = await app.inject({
    method: 'POST',
    url: '/v1/operations',
    headers: { ...setup.headers, 'idempotency-key': idem() },
    payload: { type: 'session_open', register_id: setup.registerId, opening_amount: '100.00' },
  });
  if (opened.statusCode !== 201) throw new Error(`session_open failed: ${opened.body}`);
  return { ...setup, register: fiscalized.json() };
}

/** total × rate / (1 + rate) at 8 places (contract 2.2). */
const tax = (total: string, rate: string) => new Decimal(total).times(rate).dividedBy(new Decimal(rate).plus(1)).toFixed(8, Decimal.ROUND_HALF_UP);

/** A goods-movement line of `total` at `rate` (decimal strings). */
export const autLine = (title: string, total: string, rate: string) => ({
  title,
  sku_identifier: title.toUpperCase(),
  quantity: 1,
  unit_price: total,
  total_amount: total,
  taxes: [{ name: `USt ${Number(rate) * 100} %`, rate, tax_amount: tax(total, rate) }],
});

/** The register's receipts in signing order and its crypto material, as a DEP export would hold them. */
export async function depOf(database: Database, registerId: string) {
  const [state] = await database.sql.query<{ id: string; signature_device_id: string; public_key: string; aes_key_enc: string }>(
    'SELECT id, signature_device_id, public_key, aes_key_enc FROM rksv_cash_registers WHERE register_id = $1',
    [registerId],
  );
  const receipts = await database.sql.query<{ jws: string }>('SELECT jws FROM rksv_receipts WHERE rksv_cash_register_id = $1 ORDER BY receipt_number', [
    state!.id,
  ]);
  const aesKey = new SecretBox(TEST_SECRETS_KEY).open(state!.aes_key_enc);
  return {
    aesKey,
    dep: { 'Belege-Gruppe': [{ Signaturzertifikat: '', Zertifizierungsstellen: [], 'Belege-kompakt': receipts.map((r) => r.jws) }] },
    cryptoMaterial: {
      base64AESKey: aesKey,
      certificateOrPublicKeyMap: {
        [state!.signature_device_id]: { id: state!.signature_device_id, signatureDeviceType: 'PUBLIC_KEY', signatureCertificateOrPublicKey: state!.public_key },
      },
    },
  };
}
