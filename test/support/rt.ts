// Italian (RT) fixtures: a merchant with an ITA fiscal identity, a register in Rome fiscalized
// with the RT simulator (or a driver given in the body), with an open session; lines in the
// Italian rates and natura codes.
import { Decimal } from 'decimal.js';
import type { FastifyInstance } from 'fastify';
import { idem, type OperationsFixture } from './operations.js';
import { auth, itaMerchantBody, json } from './testApp.js';

export const ITA_ADDRESS = { line1: 'Via del Corso 1', city: 'Roma', postal_code: '00186', country_code: 'ITA' };

/** An ITA merchant, location and register (not fiscalized). */
export async function itaSetup(app: FastifyInstance, apiKey: string): Promise<OperationsFixture> {
  const merchant = json(await app.inject({ method: 'POST', url: '/v1/merchants', headers: auth(apiKey), payload: itaMerchantBody({ password: 'segreto-1', pin: '12345' }) }));
  if (!merchant.id) throw new Error(`merchant create failed: ${JSON.stringify(merchant)}`);
  const headers = auth(apiKey, merchant.id);
  const location = json(await app.inject({ method: 'POST', url: '/v1/locations', headers, payload: { name: 'Corso', address: ITA_ADDRESS } }));
  const register = json(await app.inject({ method: 'POST', url: '/v1/registers', headers, payload: { location_id: location.id, name: 'Cassa 1' } }));
  return { merchantId: merchant.id, locationId: location.id, registerId: register.id, headers };
}

/** An ITA register fiscalized (simulator unless `body` names a driver) with an open session. */
export async function itaRegisterWithSession(app: FastifyInstance, apiKey: string, body?: object): Promise<OperationsFixture & { register: any }> {
  const setup = await itaSetup(app, apiKey);
  const fiscalized = await app.inject({ method: 'POST', url: `/v1/registers/${setup.registerId}/fiscalize`, headers: setup.headers, ...(body ? { payload: body } : {}) });
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

/** A line of `total` at `rate` ("0.22"), or at rate 0 with a natura code ("N4"). */
export const itaLine = (title: string, total: string, rateOrNatura: string) => {
  const natura = rateOrNatura.startsWith('N');
  const rate = natura ? '0' : rateOrNatura;
  return {
    title,
    sku_identifier: title.toUpperCase(),
    quantity: 1,
    unit_price: total,
    total_amount: total,
    taxes: [{ name: natura ? rateOrNatura : `IVA ${Number(rate) * 100}%`, rate, tax_amount: new Decimal(total).times(rate).dividedBy(new Decimal(rate).plus(1)).toFixed(8, Decimal.ROUND_HALF_UP) }],
  };
};

/** A sale (or return) body on the register of `fx`. */
export const itaMovement = (fx: OperationsFixture, type: 'sale' | 'return' | 'exchange', lines: ReturnType<typeof itaLine>[], extra: Record<string, unknown> = {}) => ({
  type,
  source: 'POS',
  register_id: fx.registerId,
  currency: 'EUR',
  total_amount: lines.reduce((sum, line) => sum.plus(line.total_amount), new Decimal(0)).toFixed(2),
  line_items: lines,
  ...extra,
});
