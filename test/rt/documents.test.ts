// Italy (issue 16): an ITA register fiscalized with the RT simulator issues a documento
// commerciale per sale (NNNN-NNNN), a documento di reso per return naming its original, and
// refuses what an RT cannot issue (rates, natura, exchanges, lottery code rules, returns beyond
// the original) at create with 422 regime_validation_failed naming the field.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenantWithKey, createTestApp, json, type TestApp } from '../support/testApp.js';
import { completeOp, createOperation, expectApiError, getOp, simulate } from '../support/operations.js';
import { itaLine, itaMovement, itaRegisterWithSession, itaSetup } from '../support/rt.js';

let t: TestApp;
let apiKey: string;

beforeAll(async () => {
  t = await createTestApp();
  apiKey = (await createTenantWithKey(t.database, 'ITA')).apiKey;
});
afterAll(() => t.close());

const card = (amount: string) => [{ method: 'credit_card', amount }];

describe('fiscalizing an Italian register', () => {
  it('attaches the RT simulator: fiscalization.rt names the driver, the 11-character serial and the open fiscal day', async () => {
    const fx = await itaSetup(t.app, apiKey);
    const response = await t.app.inject({ method: 'POST', url: `/v1/registers/${fx.registerId}/fiscalize`, headers: fx.headers });
    expect(response.statusCode).toBe(200);
    const { fiscalization } = json(response);
    expect(fiscalization).toMatchObject({ regime: 'RT', rt: { driver: 'simulator', fiscal_day: 1 } });
    expect(fiscalization.rt.serial).toMatch(/^[0-9A-Z]{11}$/);
    expect(fiscalization.tse_serial).toBe(fiscalization.rt.serial);
  });

  it('takes {rt: {driver: "simulator"}}, refuses a block of another regime (422) and a malformed one (400)', async () => {
    const fx = await itaSetup(t.app, apiKey);
    expectApiError(await t.app.inject({ method: 'POST', url: `/v1/registers/${fx.registerId}/fiscalize`, headers: fx.headers, payload: { rt: { driver: 'fax' } } }), 400, 'invalid_request');
    const ok = await t.app.inject({ method: 'POST', url: `/v1/registers/${fx.registerId}/fiscalize`, headers: fx.headers, payload: { rt: { driver: 'simulator' } } });
    expect(ok.statusCode).toBe(200);
  });
});

describe('documents of an Italian register', () => {
  it('numbers sales NNNN-NNNN in the open fiscal day and publishes the RT variant of fiscal_information', async () => {
    const fx = await itaRegisterWithSession(t.app, apiKey);
    const numbers: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const sale = json(await createOperation(t.app, fx.headers, itaMovement(fx, 'sale', [itaLine('Caffè', '1.20', '0.10'), itaLine('Libro', '12.00', '0.04'), itaLine('Francobollo', '1.30', 'N1')])));
      const completed = await completeOp(t.app, fx.headers, sale, card('14.50'));
      expect(completed.statusCode).toBe(200);
      const fiscal = json(completed).fiscal_information;
      expect(fiscal).toMatchObject({
        regime: 'RT',
        document_type: 'sale',
        fiscal_day: 1,
        document_progressive: i + 1,
        device_serial: fx.register.fiscalization.rt.serial,
        lottery_code: null,
        referenced_document: null,
      });
      numbers.push(fiscal.document_number);
    }
    expect(numbers).toEqual(['0001-0001', '0001-0002', '0001-0003']);
  });

  it('issues a documento di reso naming its original; returns never give back more than the original', async () => {
    const fx = await itaRegisterWithSession(t.app, apiKey);
    const sale = json(await createOperation(t.app, fx.headers, itaMovement(fx, 'sale', [itaLine('Scarpe', '80.00', '0.22')])));
    const original = json(await completeOp(t.app, fx.headers, sale, card('80.00'))).fiscal_information;

    const partial = json(await createOperation(t.app, fx.headers, itaMovement(fx, 'return', [itaLine('Scarpe', '-50.00', '0.22')], { related_operation_id: sale.id })));
    const reso = json(await completeOp(t.app, fx.headers, partial, card('-50.00'))).fiscal_information;
    expect(reso).toMatchObject({
      document_type: 'return',
      document_number: '0001-0002',
      referenced_document: { document_number: original.document_number, device_serial: original.device_serial, issued_at: original.issued_at },
    });

    const tooMuch = expectApiError(
      await createOperation(t.app, fx.headers, itaMovement(fx, 'return', [itaLine('Scarpe', '-30.01', '0.22')], { related_operation_id: sale.id })),
      422,
      'regime_validation_failed',
    );
    expect(tooMuch.details.field).toBe('total_amount');
    const rest = await createOperation(t.app, fx.headers, itaMovement(fx, 'return', [itaLine('Scarpe', '-30.00', '0.22')], { related_operation_id: sale.id }));
    expect(rest.statusCode).toBe(201);
  });

  it('takes the original of a return never recorded from external_related_operation, and names a missing field', async () => {
    const fx = await itaRegisterWithSession(t.app, apiKey);
    const external = { description: 'Scontrino di ieri', external_operation_id: 'pos-9', document_number: '0042-0007', device_serial: '99MEY026532', issued_at: '2026-11-22T10:00:00Z' };
    const created = json(await createOperation(t.app, fx.headers, itaMovement(fx, 'return', [itaLine('Maglia', '-20.00', '0.22')], { external_related_operation: external })));
    const reso = json(await completeOp(t.app, fx.headers, created, card('-20.00'))).fiscal_information;
    expect(reso.referenced_document).toEqual({ document_number: '0042-0007', device_serial: '99MEY026532', issued_at: '2026-11-22T10:00:00.000Z' });

    const { device_serial: _dropped, ...withoutSerial } = external;
    const error = expectApiError(
      await createOperation(t.app, fx.headers, itaMovement(fx, 'return', [itaLine('Maglia', '-20.00', '0.22')], { external_related_operation: withoutSerial })),
      422,
      'regime_validation_failed',
    );
    expect(error.details.field).toBe('external_related_operation.device_serial');
  });

  it('refuses at create what an RT cannot issue, naming the field', async () => {
    const fx = await itaRegisterWithSession(t.app, apiKey);
    const refused = async (body: object, field: string) => {
      const error = expectApiError(await createOperation(t.app, fx.headers, body), 422, 'regime_validation_failed');
      expect(error.details).toMatchObject({ field, regime: 'RT' });
    };
    await refused(itaMovement(fx, 'sale', [itaLine('Pane', '3.00', '0.07')]), 'line_items[0].taxes[0].rate');
    await refused(itaMovement(fx, 'sale', [{ ...itaLine('Pane', '3.00', 'N4'), taxes: [{ name: 'esente', rate: '0', tax_amount: '0' }] }]), 'line_items[0].taxes[0].name');
    // N7 is an invoice's nature: the COR10 of the daily closure cannot carry it.
    await refused(itaMovement(fx, 'sale', [itaLine('Servizio', '3.00', 'N7')]), 'line_items[0].taxes[0].name');
    await refused(itaMovement(fx, 'exchange', [itaLine('Pane', '3.00', '0.04')], { related_operation_id: null, external_related_operation: { description: 'x', external_operation_id: 'y' } }), 'type');
    await refused(itaMovement(fx, 'sale', [itaLine('Pane', '3.00', '0.04')], { lottery_code: 'abc' }), 'lottery_code');
  });

  it('keeps the lottery code of a sale paid electronically, and refuses one paid in cash', async () => {
    const fx = await itaRegisterWithSession(t.app, apiKey);
    const sale = json(await createOperation(t.app, fx.headers, itaMovement(fx, 'sale', [itaLine('Pizza', '9.00', '0.10')], { lottery_code: 'ABCD1234' })));
    expect(sale.lottery_code).toBe('ABCD1234');
    const cash = expectApiError(await completeOp(t.app, fx.headers, sale, [{ method: 'cash', amount: '9.00' }]), 422, 'regime_validation_failed');
    expect(cash.details.field).toBe('payments[0].method');
    const completed = json(await completeOp(t.app, fx.headers, sale, card('9.00')));
    expect(completed.fiscal_information.lottery_code).toBe('ABCD1234');
  });

  it('leaves the operation open when the RT is unreachable or does not answer (422 phase 1), with no gap in the numbering', async () => {
    const fx = await itaRegisterWithSession(t.app, apiKey);
    const sale = json(await createOperation(t.app, fx.headers, itaMovement(fx, 'sale', [itaLine('Gelato', '3.50', '0.10')])));
    await simulate(t.app, fx.headers, fx.registerId, 'unreachable');
    const error = expectApiError(await completeOp(t.app, fx.headers, sale, card('3.50')), 422, 'validation_error');
    expect(error.details.phase).toBe(1);
    expect(json(await getOp(t.app, fx.headers, sale.id))).toMatchObject({ status: 'open', fiscal_information: null });
    await simulate(t.app, fx.headers, fx.registerId, 'ok');
    expect(json(await completeOp(t.app, fx.headers, sale, card('3.50'))).fiscal_information.document_number).toBe('0001-0001');
  });
});
