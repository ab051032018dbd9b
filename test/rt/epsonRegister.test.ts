// Italy (issue 16): a register fiscalized with the epson_fpmate driver issues its documents on
// the printer (here a fake fpmate.cgi that numbers like the device), and the numbering in
// fiscal_information is the printer's; a printer that refuses leaves the operation open.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenantWithKey, createTestApp, json, type TestApp } from '../support/testApp.js';
import { completeOp, createOperation, expectApiError, getOp } from '../support/operations.js';
import { FakeFpmate, PRINTER_FAILURES } from '../support/fakeFpmate.js';
import { itaLine, itaMovement, itaRegisterWithSession, itaSetup } from '../support/rt.js';

let t: TestApp;
let apiKey: string;
let printer: FakeFpmate;

beforeAll(async () => {
  t = await createTestApp({ DEVICE_TIMEOUT_MS: '1000' });
  apiKey = (await createTenantWithKey(t.database, 'ITA')).apiKey;
  printer = await FakeFpmate.start({ zRepNumber: 41 });
});
afterAll(async () => {
  await printer.close();
  await t.close();
});

const epson = () => ({ rt: { driver: 'epson_fpmate', url: printer.url, serial: '99MEY026532', departments: { '0.22': 1, '0.10': 2, N4: 7 } } });

describe('an Italian register on an Epson RT printer', () => {
  it('fiscalizes with the printer’s matricola and refuses a configuration that cannot work (400 or 422 naming the field)', async () => {
    const fx = await itaSetup(t.app, apiKey);
    const bad = await t.app.inject({ method: 'POST', url: `/v1/registers/${fx.registerId}/fiscalize`, headers: fx.headers, payload: { rt: { driver: 'epson_fpmate', url: printer.url, serial: 'short' } } });
    expectApiError(bad, 400, 'invalid_request');
    const ok = json(await t.app.inject({ method: 'POST', url: `/v1/registers/${fx.registerId}/fiscalize`, headers: fx.headers, payload: epson() }));
    expect(ok.fiscalization).toMatchObject({ regime: 'RT', tse_serial: '99MEY026532', rt: { driver: 'epson_fpmate', serial: '99MEY026532' } });
  });

  it('prints the sale on the printer and publishes its numbering', async () => {
    const fx = await itaRegisterWithSession(t.app, apiKey, epson());
    const sale = json(await createOperation(t.app, fx.headers, itaMovement(fx, 'sale', [itaLine('Vino', '12.00', '0.22'), itaLine('Pane', '2.00', '0.10')])));
    const before = printer.requests.length;
    const completed = await completeOp(t.app, fx.headers, sale, [{ method: 'credit_card', amount: '14.00' }]);
    expect(completed.statusCode).toBe(200);
    const fiscal = json(completed).fiscal_information;
    expect(fiscal).toMatchObject({ regime: 'RT', document_type: 'sale', fiscal_day: 42, device_serial: '99MEY026532' });
    expect(fiscal.document_number).toMatch(/^0042-\d{4}$/);
    const request = printer.requests.slice(before).find((entry) => entry.document === 'printerFiscalReceipt')!;
    const items = request.commands.filter((command) => command.name === 'printRecItem');
    expect(items.map((item) => item.attributes.department)).toEqual(['1', '2']);
    // The register shows the printer's open fiscal day from its first document on.
    const register = json(await t.app.inject({ method: 'GET', url: `/v1/registers/${fx.registerId}`, headers: fx.headers }));
    expect(register.fiscalization.rt.fiscal_day).toBe(42);
  });

  it('leaves the sale open when the printer refuses it (422, phase 1)', async () => {
    const fx = await itaRegisterWithSession(t.app, apiKey, epson());
    const sale = json(await createOperation(t.app, fx.headers, itaMovement(fx, 'sale', [itaLine('Vino', '12.00', '0.22')])));
    printer.next(PRINTER_FAILURES.paperEnd);
    const error = expectApiError(await completeOp(t.app, fx.headers, sale, [{ method: 'credit_card', amount: '12.00' }]), 422, 'validation_error');
    expect(error.details).toMatchObject({ phase: 1, reason: 'rejected' });
    expect(json(await getOp(t.app, fx.headers, sale.id)).status).toBe('open');
  });
});

describe('the daily closure of an Epson RT printer', () => {
  it('runs printZReport, totals the day, and leaves COR10 and its transmission to the printer', async () => {
    const fx = await itaRegisterWithSession(t.app, apiKey, epson());
    const sale = json(await createOperation(t.app, fx.headers, itaMovement(fx, 'sale', [itaLine('Vino', '12.20', '0.22')])));
    expect((await completeOp(t.app, fx.headers, sale, [{ method: 'cash', amount: '12.20' }])).statusCode).toBe(200);
    const response = await t.app.inject({ method: 'POST', url: `/v1/registers/${fx.registerId}/daily-closures`, headers: { ...fx.headers, 'idempotency-key': crypto.randomUUID() } });
    expect(response.statusCode).toBe(201);
    expect(json(response)).toMatchObject({
      fiscal_day: 42,
      document_count: 1,
      totals: [{ vat_rate: '0.22', amount: '10.00', tax: '2.20', returns: '0.00' }],
      paid_cash: '12.20',
      transmission: { status: 'transmitted', transmitted_at: null, errors: [] },
      links: { cor10: null },
    });
    expect(printer.requests.at(-1)!.commands.map((command) => command.name)).toContain('printZReport');
    const next = json(await createOperation(t.app, fx.headers, itaMovement(fx, 'sale', [itaLine('Pane', '2.00', '0.10')])));
    const completed = json(await completeOp(t.app, fx.headers, next, [{ method: 'cash', amount: '2.00' }]));
    expect(completed.fiscal_information.document_number).toMatch(/^0043-\d{4}$/);
  });
});
