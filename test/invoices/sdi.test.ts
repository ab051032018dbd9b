// Italian invoices through the sandbox's SdI (DESIGN "E-invoicing", reference italy.md §10),
// end to end with a short SDI_SIMULATOR_DELAY_MS: RC, NS 00305, MC, the public administration's
// answers through simulate, implicit acceptance 15 days after delivery (injected clock), every
// state change in the history with its time, production without an SdI client, and a restart
// between submission and transmission. The organization signs: its files are CAdES .xml.p7m.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/modules/admin/service.js';
import { auth, createPeerApp, createTestApp, expectError, json, type TestApp } from '../support/testApp.js';
import { orgAuth } from '../support/styleO.js';
import {
  deInvoice,
  invoiceAction,
  invoicingFixture,
  itBuyer,
  itInvoice,
  mustCreateInvoice,
  IT_SELLER_MERCHANT,
  waitForInvoice,
  WRONG_CHECK_DIGIT_PIVA,
  uploadItalianCertificate,
  type InvoicingFixture,
} from '../support/invoices.js';

const DELAY_MS = 100;
const DAY_MS = 24 * 60 * 60 * 1000;

let t: TestApp;
let fx: InvoicingFixture;
let clockOffsetMs = 0;

beforeAll(async () => {
  t = await createTestApp(
    { EXPORT_POLL_MS: '50', SDI_SIMULATOR_DELAY_MS: String(DELAY_MS), INVOICE_ACCEPTANCE_CHECK_MS: '50' },
    { clock: () => new Date(Date.now() + clockOffsetMs) },
  );
  fx = await invoicingFixture(t);
  // FPA12 invoices must be signed; with the certificate every Italian file reaches the SdI as .xml.p7m.
  await uploadItalianCertificate(t, fx);
});
afterAll(() => t.close());

const history = async (id: string) =>
  (await t.database.prisma.invoiceStateChange.findMany({ where: { invoiceId: id }, orderBy: { id: 'asc' } })).map((change) => ({
    from: change.fromState,
    to: change.toState,
    event: change.event,
    at: change.changedAt,
    details: change.details,
  }));

const submitted = (payload: object) => mustCreateInvoice(t.app, fx.it, { ...payload, submit: true });
const settled = (id: string) => waitForInvoice(t.app, fx.it, id, (invoice) => !['submitted', 'transmitted'].includes(invoice.state));

describe('the sandbox SdI', () => {
  it('receives a B2B invoice (transmitted, with its IdentificativoSdI) and delivers it (RC)', async () => {
    const invoice = await submitted(itInvoice());
    expect(invoice.state).toBe('submitted');
    const delivered = await settled(invoice.id);
    expect(delivered).toMatchObject({
      state: 'delivered',
      fiscal: { transmission_status: 'transmitted', delivery_status: 'delivered', fiscal_errors: [] },
    });
    expect(delivered.fiscal.authority_identifier).toMatch(/^\d{12}$/);
    const transmittedAt = Date.parse(delivered.fiscal.transmitted_at);
    const deliveredAt = Date.parse(delivered.fiscal.delivered_at);
    expect(deliveredAt - transmittedAt).toBeGreaterThanOrEqual(DELAY_MS - 20);

    const changes = await history(invoice.id);
    expect(changes.map(({ from, to, event }) => [from, to, event])).toEqual([
      [null, 'draft', 'created'],
      ['draft', 'submitted', 'submitted'],
      ['submitted', 'transmitted', 'received_by_authority'],
      ['transmitted', 'delivered', 'delivered'],
    ]);
    expect(changes[2].details).toEqual({ authority_identifier: delivered.fiscal.authority_identifier });
    expect(changes[3].at.toISOString()).toBe(delivered.fiscal.delivered_at);
    for (let i = 1; i < changes.length; i += 1) expect(changes[i].at.getTime()).toBeGreaterThanOrEqual(changes[i - 1].at.getTime());
  });

  it('rejects (NS 00305) a buyer VAT number whose check digit is wrong; such an invoice cannot be cancelled', async () => {
    const invoice = await submitted(itInvoice({ buyer: itBuyer({ tax_id: WRONG_CHECK_DIGIT_PIVA }) }));
    const rejected = await settled(invoice.id);
    expect(rejected).toMatchObject({ state: 'rejected_by_authority', fiscal: { transmission_status: 'rejected', delivery_status: null } });
    expect(rejected.fiscal.fiscal_errors).toEqual([{ code: '00305', message: expect.stringContaining(WRONG_CHECK_DIGIT_PIVA) }]);
    expect((await history(invoice.id)).at(-1)).toMatchObject({ from: 'transmitted', to: 'rejected_by_authority', event: 'rejected' });
    const cancel = await invoiceAction(t.app, fx.it, invoice.id, 'cancel');
    expect(expectError(cancel, 409, 'invoice_invalid_state').message).toMatch(/never existed fiscally/);
  });

  it('cannot deliver to 0000000 without a PEC address (MC: undeliverable, still issued), and delivers with one', async () => {
    const consumer = itBuyer({ legal_name: 'Mario Rossi', tax_id: 'RSSMRA85T10A562S' });
    const withoutPec = await submitted(itInvoice({ buyer: consumer, routing: { codice_destinatario: '0000000' } }));
    expect(await settled(withoutPec.id)).toMatchObject({ state: 'undeliverable', fiscal: { delivery_status: 'undeliverable', transmission_status: 'transmitted', fiscal_errors: [] } });
    const withPec = await submitted(itInvoice({ buyer: consumer, routing: { codice_destinatario: '0000000', pec_address: 'mario.rossi@pec.it' } }));
    expect((await settled(withPec.id)).state).toBe('delivered');
  });
});

describe('a public administration\'s answer (FPA12, sandbox simulate)', () => {
  const pa = () => itInvoice({ routing: { codice_destinatario: 'UFABCD' } });
  const simulate = (id: string, event: string) => invoiceAction(t.app, fx.it, id, 'simulate', { event });

  it('accepted (NE EC01) or deadline passed (DT) -> accepted', async () => {
    for (const event of ['recipient_accepted', 'deadline_passed']) {
      const invoice = await submitted(pa());
      expect(await settled(invoice.id)).toMatchObject({ state: 'delivered', fiscal: { delivery_status: 'delivered' } });
      const response = await simulate(invoice.id, event);
      expect(response.statusCode).toBe(200);
      expect(json(response)).toMatchObject({ state: 'accepted', fiscal: { delivery_status: 'accepted' } });
      expect((await history(invoice.id)).at(-1)).toMatchObject({ from: 'delivered', to: 'accepted', event });
      expectError(await simulate(invoice.id, 'recipient_refused'), 409, 'invoice_invalid_state');
    }
  });

  it('refused (NE EC02) -> stays delivered with delivery_status refused, and nothing more can be answered', async () => {
    const invoice = await submitted(pa());
    await settled(invoice.id);
    const refused = json(await simulate(invoice.id, 'recipient_refused'));
    expect(refused).toMatchObject({ state: 'delivered', fiscal: { delivery_status: 'refused', fiscal_errors: [{ code: 'EC02' }] } });
    expect((await history(invoice.id)).at(-1)).toMatchObject({ from: 'delivered', to: 'delivered', event: 'recipient_refused' });
    expectError(await simulate(invoice.id, 'recipient_accepted'), 409, 'invoice_invalid_state');
  });

  it('is only for a delivered PA invoice (409), with a known event (400)', async () => {
    const b2b = await submitted(itInvoice());
    await settled(b2b.id);
    expect(expectError(await simulate(b2b.id, 'recipient_accepted'), 409, 'invoice_invalid_state').message).toMatch(/FPA12/);
    const draft = await mustCreateInvoice(t.app, fx.it, pa());
    expectError(await simulate(draft.id, 'recipient_accepted'), 409, 'invoice_invalid_state');
    const german = await mustCreateInvoice(t.app, fx.de, deInvoice({ submit: true }));
    expectError(await invoiceAction(t.app, fx.de, german.id, 'simulate', { event: 'recipient_accepted' }), 409, 'invoice_invalid_state');
    expect(expectError(await simulate(draft.id, 'paid'), 400, 'invalid_request').details!.field).toBe('event');
  });
});

describe('a restart between submission and transmission', () => {
  it('loses nothing: the job written with the submission is taken up by the next instance, also one a dead worker held', async () => {
    const stopped = await createTestApp({ EXPORT_WORKER: 'off' });
    try {
      const local = await invoicingFixture(stopped);
      const first = await mustCreateInvoice(stopped.app, local.it, itInvoice({ submit: true }));
      const second = await mustCreateInvoice(stopped.app, local.it, itInvoice({ submit: true }));
      // The second one's worker died while transmitting: its lease has run out.
      await stopped.database.sql.query(
        `UPDATE invoice_transmission_jobs SET status = 'running', worker_id = 'worker-dead', attempts = 1, locked_until = now() - interval '1 second' WHERE invoice_id = $1`,
        [second.id],
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(json(await stopped.app.inject({ method: 'GET', url: `/v1/invoices/${first.id}`, headers: local.it })).state).toBe('submitted');
      await stopped.app.close();

      const restarted = await createPeerApp(stopped, { EXPORT_POLL_MS: '50', SDI_SIMULATOR_DELAY_MS: String(DELAY_MS) });
      try {
        for (const invoice of [first, second]) {
          expect((await waitForInvoice(restarted.app, local.it, invoice.id, (read) => read.state === 'delivered')).fiscal.authority_identifier).toMatch(/^\d{12}$/);
        }
      } finally {
        await restarted.close();
      }
    } finally {
      await stopped.close();
    }
  });
});

describe('production', () => {
  it('has no SdI client: an Italian invoice stays submitted, retried, with the reason; simulate does not exist', async () => {
    const production = await createTestApp({ SERVICE_ENV: 'production', EXPORT_POLL_MS: '50', SECRETS_KEY: 'ab'.repeat(32) });
    try {
      const tenant = await production.database.prisma.tenant.create({ data: { id: 'ten_production_test', name: 'Production' } });
      const { apiKey: itaKey } = await createApiKey(production.database.prisma, tenant.id, 'live', { kind: 'tenant', country_code: 'ITA' });
      const organization = json(
        await production.app.inject({
          method: 'POST',
          url: '/v1/merchants',
          headers: auth(itaKey),
          payload: IT_SELLER_MERCHANT,
        }),
      );
      const { apiKey } = await createApiKey(production.database.prisma, tenant.id, 'live', { kind: 'platform' });
      const headers = orgAuth(apiKey, organization.id);
      const invoice = await mustCreateInvoice(production.app, headers, { ...itInvoice(), submit: true });
      const failed = await waitForInvoice(production.app, headers, invoice.id, (read) => read.fiscal.transmission_status === 'failed');
      expect(failed).toMatchObject({ state: 'submitted', fiscal: { authority_identifier: null, fiscal_errors: [{ code: 'SDI_NOT_CONFIGURED' }] } });
      expectError(await invoiceAction(production.app, headers, invoice.id, 'simulate', { event: 'recipient_accepted' }), 404, 'not_found');
    } finally {
      await production.close();
    }
  });
});

describe('implicit acceptance', () => {
  it('makes a delivered B2B invoice accepted 15 days after delivery, by the service clock', async () => {
    const invoice = await submitted(itInvoice());
    const delivered = await settled(invoice.id);
    const stored = await t.database.prisma.invoice.findUniqueOrThrow({ where: { id: invoice.id } });
    expect(stored.acceptanceDueAt!.getTime()).toBe(Date.parse(delivered.fiscal.delivered_at) + 15 * DAY_MS);

    clockOffsetMs = 15 * DAY_MS - 60_000;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await waitForInvoice(t.app, fx.it, invoice.id, () => true)).state).toBe('delivered');

    clockOffsetMs = 15 * DAY_MS + 1000;
    const accepted = await waitForInvoice(t.app, fx.it, invoice.id, (read) => read.state === 'accepted');
    expect(accepted.fiscal.delivery_status).toBe('accepted');
    expect((await history(invoice.id)).at(-1)).toMatchObject({ from: 'delivered', to: 'accepted', event: 'implicitly_accepted' });
  });
});
