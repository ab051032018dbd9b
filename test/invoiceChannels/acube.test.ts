// Italian invoices through A-Cube (src/einvoicing/sdi/acube), end to end against the fake A-Cube:
// the organization configures its channel (the login checks the credentials), submits, the file
// reaches A-Cube exactly once whatever fails on the way (5xx, 429 with Retry-After, 409, an answer
// lost to a timeout, an expired token), a file A-Cube's validation refuses is rejected and never
// sent again, and the SdI's notifications A-Cube lists move the invoice through every state, each
// applied once. The password shows nowhere: responses, log, events.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, json, type TestApp } from '../support/testApp.js';
import { ACUBE_EMAIL, ACUBE_PASSWORD, FakeAcube } from '../support/fakeAcube.js';
import {
  getInvoice,
  invoiceAction,
  invoicingFixture,
  itInvoice,
  mustCreateInvoice,
  uploadItalianCertificate,
  waitForInvoice,
  type InvoicingFixture,
} from '../support/invoices.js';

let t: TestApp;
let fx: InvoicingFixture;
let acube: FakeAcube;
const logLines: string[] = [];
const responseBodies: string[] = [];

beforeAll(async () => {
  acube = await FakeAcube.start();
  t = await createTestApp(
    { LOG_LEVEL: 'trace', EXPORT_POLL_MS: '50', INVOICE_CHANNEL_POLL_MS: '100', INVOICE_CHANNEL_TIMEOUT_MS: '1500', SDI_SIMULATOR_DELAY_MS: '50' },
    { logStream: { write: (line) => void logLines.push(line) } },
  );
  fx = await invoicingFixture(t);
});
afterEach(() => acube.clearFaults());
afterAll(async () => {
  await t.close();
  await acube.close();
});

const channelUrl = (jurisdiction = 'IT', organizationId = fx.itOrganizationId) => `/v1/organizations/${organizationId}/invoice-channels/${jurisdiction}`;

async function call(method: 'GET' | 'PUT' | 'DELETE', url: string, payload?: object, headers = fx.it) {
  const response = await t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
  responseBodies.push(response.body);
  return response;
}

const acubeBody = (overrides: Record<string, unknown> = {}) => ({
  driver: 'acube',
  email: ACUBE_EMAIL,
  password: ACUBE_PASSWORD,
  base_url: acube.baseUrl,
  login_url: acube.baseUrl,
  ...overrides,
});

async function submitted(payload: object): Promise<any> {
  const invoice = await mustCreateInvoice(t.app, fx.it, { ...payload, submit: true });
  responseBodies.push(JSON.stringify(invoice));
  return invoice;
}

const read = async (id: string) => {
  const invoice = await getInvoice(t.app, fx.it, id);
  responseBodies.push(JSON.stringify(invoice));
  return invoice;
};
const until = (id: string, done: (invoice: any) => boolean) => waitForInvoice(t.app, fx.it, id, done);
const transmitted = (id: string) => until(id, (invoice) => invoice.state === 'transmitted');
/** RC for a B2B invoice A-Cube received: it is delivered and its polling ends, leaving the worker to the next tests. */
async function deliver(invoice: { id: string; invoice_number: string }) {
  acube.notify(invoice.invoice_number, 'RC');
  return until(invoice.id, (current) => current.state === 'delivered');
}
const acceptanceDueAt = async (id: string) => (await t.database.prisma.invoice.findUniqueOrThrow({ where: { id } })).acceptanceDueAt;
const events = async (id: string) =>
  (await t.database.prisma.invoiceStateChange.findMany({ where: { invoiceId: id }, orderBy: { id: 'asc' } })).map((change) => change.event);

describe('configuring the A-Cube channel', () => {
  it('refuses a wrong password with 422 and the field, storing nothing', async () => {
    const error = expectError(await call('PUT', channelUrl(), acubeBody({ password: 'not-the-password' })), 422, 'invoice_channel_credentials_rejected');
    expect(error.details).toMatchObject({ field: 'password', driver: 'acube' });
    expect(error.details!.reason).toMatch(/Invalid credentials/);
    expectError(await call('GET', channelUrl()), 404, 'not_found');
    expect(await t.database.prisma.invoiceChannelConfig.count()).toBe(0);
  });

  it('refuses a disabled account (email) and an intermediary that cannot be reached (login_url)', async () => {
    acube.accountDisabled = true;
    expect(expectError(await call('PUT', channelUrl(), acubeBody()), 422, 'invoice_channel_account_disabled').details).toMatchObject({ field: 'email' });
    acube.accountDisabled = false;
    acube.failNext({ kind: 'status', status: 503 }, (method, path) => path === '/login');
    expect(expectError(await call('PUT', channelUrl(), acubeBody()), 422, 'invoice_channel_unreachable').details).toMatchObject({ field: 'login_url' });
    expect(await t.database.prisma.invoiceChannelConfig.count()).toBe(0);
  });

  it('refuses a driver that does not serve the jurisdiction, and a body without the driver\'s fields', async () => {
    expect(expectError(await call('PUT', channelUrl('DE', fx.deOrganizationId), acubeBody(), fx.de), 422, 'invoice_channel_driver_unsupported').details).toMatchObject({ field: 'driver' });
    expectError(await call('PUT', channelUrl(), { driver: 'acube', email: ACUBE_EMAIL }), 400);
    expectError(await call('PUT', channelUrl(), { driver: 'pigeon' }), 400);
  });

  it('stores the account after a login: 200 with the public settings, the password sealed', async () => {
    const logins = acube.logins().length;
    const response = await call('PUT', channelUrl(), acubeBody());
    expect(response.statusCode).toBe(200);
    const channel = json(response);
    expect(channel).toEqual({
      object: 'invoice_channel',
      organization_id: fx.itOrganizationId,
      jurisdiction: 'IT',
      driver: 'acube',
      config_id: expect.stringMatching(/^ichc_/),
      settings: { email: ACUBE_EMAIL, base_url: acube.baseUrl, login_url: acube.baseUrl },
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(acube.logins().length).toBe(logins + 1);
    expect(json(await call('GET', channelUrl()))).toEqual(channel);
    expect(json(await call('GET', `/v1/organizations/${fx.itOrganizationId}/invoice-channels`))).toEqual({ object: 'list', data: [channel] });
    const [stored] = await t.database.prisma.invoiceChannelConfig.findMany();
    expect(stored!.secretsSealed).toMatch(/^v1:/);
    expect(JSON.stringify(stored)).not.toContain(ACUBE_PASSWORD);

    // The same account again (a rotated password, say) updates the same configuration.
    const again = json(await call('PUT', channelUrl(), acubeBody()));
    expect(again.config_id).toBe(channel.config_id);
    expect(again.created_at).toBe(channel.created_at);
  });

  it('is 404 to another tenant', async () => {
    const other = await invoicingFixture(t);
    expectError(await call('GET', channelUrl(), undefined, other.it), 404);
    expectError(await call('PUT', channelUrl(), acubeBody(), other.it), 404);
    expectError(await call('DELETE', channelUrl(), undefined, other.it), 404);
    expect(json(await call('GET', channelUrl())).driver).toBe('acube');
  });
});

describe('a B2B invoice through A-Cube (plain XML)', () => {
  it('reaches A-Cube once, is transmitted with its uuid and channel, and RC delivers it', async () => {
    const invoice = await submitted(itInvoice());
    const sent = await transmitted(invoice.id);
    const [received, ...others] = acube.received(invoice.invoice_number);
    expect(others).toEqual([]);
    expect(received!.contentType).toBe('application/xml');
    expect(sent.fiscal.authority_identifier).toBe(received!.uuid);
    expect(sent.fiscal.jurisdiction_data).toMatchObject({ channel: 'acube', format: 'FPR12' });
    const document = await t.app.inject({ method: 'GET', url: `/v1/invoices/${invoice.id}/document`, headers: fx.it });
    expect(received!.document.equals(document.rawPayload)).toBe(true);

    const delivered = await deliver(invoice);
    expect(delivered).toMatchObject({ state: 'delivered', fiscal: { delivery_status: 'delivered', fiscal_errors: [] } });
    expect((await acceptanceDueAt(invoice.id))!.getTime() - Date.parse(delivered.fiscal.delivered_at)).toBe(15 * 24 * 60 * 60 * 1000);
  });

  it('shows the SdI error codes of a scarto (NS)', async () => {
    const invoice = await submitted(itInvoice());
    await transmitted(invoice.id);
    acube.notify(invoice.invoice_number, 'NS', {
      lista_errori: {
        Errore: [
          { Codice: '00305', Descrizione: '1.4.1.1.2 <IdCodice> non valido' },
          { Codice: '00311', Descrizione: '1.1.4 <CodiceDestinatario> non valido' },
        ],
      },
    });
    const rejected = await until(invoice.id, (current) => current.state !== 'transmitted');
    expect(rejected).toMatchObject({
      state: 'rejected_by_authority',
      fiscal: {
        transmission_status: 'rejected',
        fiscal_errors: [
          { code: '00305', message: '1.4.1.1.2 <IdCodice> non valido' },
          { code: '00311', message: '1.1.4 <CodiceDestinatario> non valido' },
        ],
      },
    });
    expect(await events(invoice.id)).toEqual(['created', 'submitted', 'received_by_authority', 'rejected']);
  });

  it('is undeliverable on MC, and nothing follows for a B2B invoice', async () => {
    const invoice = await submitted(itInvoice());
    await transmitted(invoice.id);
    acube.notify(invoice.invoice_number, 'MC', { descrizione: 'Recapito non disponibile' });
    const undeliverable = await until(invoice.id, (current) => current.state !== 'transmitted');
    expect(undeliverable).toMatchObject({ state: 'undeliverable', fiscal: { delivery_status: 'undeliverable' } });
    await until(invoice.id, () => true);
    const job = await t.database.prisma.invoiceTransmissionJob.findUniqueOrThrow({ where: { invoiceId: invoice.id } });
    expect(job.status).toBe('done');
  });

  it('gets no simulated recipient answer: A-Cube is not the sandbox simulator', async () => {
    const invoice = await submitted(itInvoice({ routing: { codice_destinatario: 'ABC1234' } }));
    await transmitted(invoice.id);
    await deliver(invoice);
    const refused = expectError(await invoiceAction(t.app, fx.it, invoice.id, 'simulate', { event: 'recipient_accepted' }), 409, 'invoice_invalid_state');
    expect(refused.message).toMatch(/went through acube/);
  });
});

describe("A-Cube's validation refusing the file: rejected as by an NS, never sent again", () => {
  const posts = (document: Buffer) => acube.calls.filter((c) => c.method === 'POST' && c.path === '/invoices' && c.body.equals(document));

  it("is rejected_by_authority with A-Cube's violations, the event an NS gives, and its job done", async () => {
    const violations = [
      { propertyPath: 'fattura_elettronica_header.cessionario_committente.dati_anagrafici', message: 'Either id_fiscale_iva or codice_fiscale must be set.' },
      { propertyPath: 'fattura_elettronica_body[0].dati_generali.dati_generali_documento.data', message: 'This value should not be in the future.' },
    ];
    acube.failNext({ kind: 'violations', status: 400, violations }, (method, path) => method === 'POST' && path === '/invoices');
    const invoice = await submitted(itInvoice());
    const rejected = await until(invoice.id, (current) => current.state !== 'submitted');
    expect(rejected).toMatchObject({
      state: 'rejected_by_authority',
      fiscal: {
        transmission_status: 'rejected',
        authority_identifier: null,
        jurisdiction_data: { channel: 'acube' },
        fiscal_errors: violations.map(({ propertyPath, message }) => ({ code: 'ACUBE_REJECTED', message: `${propertyPath}: ${message}` })),
      },
    });
    expect(await events(invoice.id)).toEqual(['created', 'submitted', 'rejected']);
    const published = json(await t.app.inject({ method: 'GET', url: '/v1/events?type=invoice.state_changed&limit=100', headers: fx.it }));
    const [last] = published.data.filter((event: any) => event.data.object.id === invoice.id);
    expect(last.data).toEqual({ object: rejected, previous_state: 'submitted' });

    const document = (await t.app.inject({ method: 'GET', url: `/v1/invoices/${invoice.id}/document`, headers: fx.it })).rawPayload;
    expect(posts(document)).toHaveLength(1);
    expect(acube.received(invoice.invoice_number)).toEqual([]);
    const job = await t.database.prisma.invoiceTransmissionJob.findUniqueOrThrow({ where: { invoiceId: invoice.id } });
    expect(job.status).toBe('done');
    // Past the first retry's delay: still the one POST.
    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect(posts(document)).toHaveLength(1);
  });

  it('fails the cancellation whose credit note A-Cube refuses, as an NS of the credit note would', async () => {
    const invoice = await submitted(itInvoice());
    await transmitted(invoice.id);
    await deliver(invoice);
    acube.failNext({ kind: 'violations', status: 400, violations: [{ propertyPath: 'content', message: 'Invalid credit note.' }] }, (method, path) => method === 'POST' && path === '/invoices');
    const requested = json(await invoiceAction(t.app, fx.it, invoice.id, 'cancel'));
    expect(requested.state).toBe('cancellation_requested');
    const note = await until(requested.cancellation_credit_note_id, (current) => current.state !== 'submitted');
    expect(note).toMatchObject({ state: 'rejected_by_authority', fiscal: { fiscal_errors: [{ code: 'ACUBE_REJECTED', message: 'content: Invalid credit note.' }] } });
    const restored = await until(invoice.id, (current) => current.state !== 'cancellation_requested');
    expect(restored).toMatchObject({ state: 'delivered', cancellation_credit_note_id: null });
  });

  it("shows A-Cube's answer when a 422 lists no violations", async () => {
    acube.failNext({ kind: 'status', status: 422, message: 'Invalid FatturaPA document' }, (method, path) => method === 'POST' && path === '/invoices');
    const invoice = await submitted(itInvoice());
    const rejected = await until(invoice.id, (current) => current.state !== 'submitted');
    expect(rejected).toMatchObject({
      state: 'rejected_by_authority',
      fiscal: { fiscal_errors: [{ code: 'ACUBE_REJECTED', message: 'A-Cube POST /invoices answered 422: Invalid FatturaPA document' }] },
    });
  });

  it('retries a 409, whose next attempt looks the file up first, and sends it once', async () => {
    acube.failNext({ kind: 'status', status: 409, message: 'Conflict' }, (method, path) => method === 'POST' && path === '/invoices');
    const invoice = await submitted(itInvoice());
    const failed = await until(invoice.id, (current) => current.fiscal.transmission_status === 'failed');
    expect(failed).toMatchObject({ state: 'submitted', fiscal: { fiscal_errors: [{ code: 'ACUBE_REJECTED', message: 'A-Cube POST /invoices answered 409: Conflict' }] } });
    await transmitted(invoice.id);
    expect(acube.received(invoice.invoice_number)).toHaveLength(1);
    await deliver(invoice);
  });
});

describe('faults of A-Cube: retried, never sent twice', () => {
  it('retries a 5xx, keeping the invoice submitted with the reason', async () => {
    acube.failNext({ kind: 'status', status: 502, message: 'Bad Gateway' }, (method, path) => method === 'POST' && path === '/invoices');
    const invoice = await submitted(itInvoice());
    const failed = await until(invoice.id, (current) => current.fiscal.transmission_status === 'failed');
    expect(failed.state).toBe('submitted');
    expect(failed.fiscal.fiscal_errors).toEqual([{ code: 'ACUBE_UNAVAILABLE', message: 'A-Cube POST /invoices answered 502: Bad Gateway' }]);
    await transmitted(invoice.id);
    expect(acube.received(invoice.invoice_number)).toHaveLength(1);
    await deliver(invoice);
  });

  it('waits as long as a 429 Retry-After asks', async () => {
    acube.failNext({ kind: 'status', status: 429, retryAfter: '2', message: 'Too Many Requests' }, (method, path) => method === 'POST' && path === '/invoices');
    const invoice = await submitted(itInvoice());
    const limited = await until(invoice.id, (current) => current.fiscal.transmission_status === 'failed');
    expect(limited.fiscal.fiscal_errors[0].code).toBe('ACUBE_RATE_LIMITED');
    const limitedAt = Date.now();
    const sent = await transmitted(invoice.id);
    expect(Date.now() - limitedAt).toBeGreaterThanOrEqual(1500);
    expect(acube.received(invoice.invoice_number)).toHaveLength(1);
    expect(sent.fiscal.fiscal_errors).toEqual([]);
    await deliver(invoice);
  });

  it('finds a file whose answer was lost to a timeout instead of sending it again', async () => {
    acube.failNext({ kind: 'hang_after_handling' }, (method, path) => method === 'POST' && path === '/invoices');
    const invoice = await submitted(itInvoice());
    const timedOut = await until(invoice.id, (current) => current.fiscal.transmission_status === 'failed');
    expect(timedOut.fiscal.fiscal_errors[0]).toMatchObject({ code: 'ACUBE_TIMEOUT' });
    const sent = await transmitted(invoice.id);
    const received = acube.received(invoice.invoice_number);
    expect(received).toHaveLength(1);
    expect(sent.fiscal.authority_identifier).toBe(received[0]!.uuid);
    expect(acube.calls.filter((c) => c.method === 'POST' && c.path === '/invoices' && c.body.equals(received[0]!.document))).toHaveLength(1);
    await deliver(invoice);
  });

  it('renews an expired token once, transparently', async () => {
    const invoiceBefore = await submitted(itInvoice());
    await transmitted(invoiceBefore.id);
    await deliver(invoiceBefore);
    acube.expireTokens();
    const logins = acube.logins().length;
    const invoice = await submitted(itInvoice());
    const sent = await transmitted(invoice.id);
    expect(sent.fiscal.fiscal_errors).toEqual([]);
    expect(acube.logins().length).toBe(logins + 1);
    expect(acube.received(invoice.invoice_number)).toHaveLength(1);
    await deliver(invoice);
  });

  it('surfaces refused credentials (401) with A-Cube\'s reason, and sends once they work again', async () => {
    // The password was changed at A-Cube: the token expires and every login is refused until it is set back.
    acube.expireTokens();
    acube.failNext({ kind: 'status', status: 401, message: 'Invalid credentials.' }, (method, path) => path === '/login', 1000);
    const invoice = await submitted(itInvoice());
    const refused = await until(invoice.id, (current) => current.fiscal.fiscal_errors[0]?.code === 'ACUBE_UNAUTHORIZED');
    expect(refused).toMatchObject({ state: 'submitted', fiscal: { transmission_status: 'failed' } });
    expect(refused.fiscal.fiscal_errors).toEqual([{ code: 'ACUBE_UNAUTHORIZED', message: 'A-Cube POST /login answered 401: Invalid credentials.' }]);
    acube.clearFaults();
    await transmitted(invoice.id);
    expect(acube.received(invoice.invoice_number)).toHaveLength(1);
    await deliver(invoice);
  });
});

describe("a public administration's invoice (FPA12, signed) through A-Cube", () => {
  const pa = () => itInvoice({ routing: { codice_destinatario: 'UFABCD' } });

  beforeAll(() => uploadItalianCertificate(t, fx));

  it('is sent as the signed .p7m; RC delivers it, NE EC01 accepts it, each notification applied once', async () => {
    const invoice = await submitted(pa());
    await transmitted(invoice.id);
    const [received] = acube.received(invoice.invoice_number);
    expect(received!.contentType).toBe('application/pkcs7-mime');
    acube.notify(invoice.invoice_number, 'RC');
    await until(invoice.id, (current) => current.state === 'delivered');
    expect(await acceptanceDueAt(invoice.id)).toBeNull();
    // A-Cube lists RC again on every look: it changes nothing more.
    await new Promise((resolve) => setTimeout(resolve, 300));
    acube.notify(invoice.invoice_number, 'NE', { esito_committente: { esito: 'EC01' } });
    const accepted = await until(invoice.id, (current) => current.state !== 'delivered');
    expect(accepted).toMatchObject({ state: 'accepted', fiscal: { delivery_status: 'accepted' } });
    expect(await events(invoice.id)).toEqual(['created', 'submitted', 'received_by_authority', 'delivered', 'recipient_accepted']);
    expect((await t.database.prisma.invoice.findUniqueOrThrow({ where: { id: invoice.id } })).channelNotificationIds).toHaveLength(2);
  });

  it('NE EC02: stays delivered, refused, with the reason', async () => {
    const invoice = await submitted(pa());
    await transmitted(invoice.id);
    acube.notify(invoice.invoice_number, 'RC');
    acube.notify(invoice.invoice_number, 'NE', { esito_committente: { esito: 'EC02', descrizione: 'Importo errato' } });
    const refused = await until(invoice.id, (current) => current.fiscal.delivery_status === 'refused');
    expect(refused).toMatchObject({ state: 'delivered', fiscal: { fiscal_errors: [{ code: 'EC02', message: 'Importo errato' }] } });
    expect(await events(invoice.id)).toEqual(['created', 'submitted', 'received_by_authority', 'delivered', 'recipient_refused']);
  });

  it('DT: accepted when the administration let its 15 days pass', async () => {
    const invoice = await submitted(pa());
    await transmitted(invoice.id);
    acube.notify(invoice.invoice_number, 'RC');
    acube.notify(invoice.invoice_number, 'DT');
    const accepted = await until(invoice.id, (current) => current.state === 'accepted');
    expect(await events(invoice.id)).toEqual(['created', 'submitted', 'received_by_authority', 'delivered', 'deadline_passed']);
    expect(accepted.fiscal.delivery_status).toBe('accepted');
  });

  it('MC then AT: undeliverable once; AT changes nothing more and ends the polling', async () => {
    const invoice = await submitted(pa());
    await transmitted(invoice.id);
    acube.notify(invoice.invoice_number, 'MC', { descrizione: 'Casella PEC piena' });
    await until(invoice.id, (current) => current.state === 'undeliverable');
    acube.notify(invoice.invoice_number, 'AT', { descrizione: 'Attestazione di avvenuta trasmissione' });
    const deadline = Date.now() + 5000;
    for (;;) {
      const job = await t.database.prisma.invoiceTransmissionJob.findUniqueOrThrow({ where: { invoiceId: invoice.id } });
      if (job.status === 'done') break;
      if (Date.now() > deadline) throw new Error('the AT was never read');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(await events(invoice.id)).toEqual(['created', 'submitted', 'received_by_authority', 'undeliverable']);
    expect((await read(invoice.id)).fiscal.fiscal_errors).toEqual([]);
  });
});

describe('removing the channel', () => {
  it('falls back to the sandbox simulator for new invoices; received ones still ask A-Cube', async () => {
    const waiting = await submitted(itInvoice({ routing: { codice_destinatario: 'UFABCD' } }));
    await transmitted(waiting.id);
    acube.notify(waiting.invoice_number, 'RC');
    await until(waiting.id, (current) => current.state === 'delivered');

    const removed = await call('DELETE', channelUrl());
    expect(json(removed)).toEqual({ object: 'invoice_channel', organization_id: fx.itOrganizationId, jurisdiction: 'IT', deleted: true });
    expectError(await call('GET', channelUrl()), 404, 'not_found');
    expectError(await call('DELETE', channelUrl()), 404, 'not_found');

    const simulated = await submitted(itInvoice());
    const delivered = await until(simulated.id, (current) => current.state === 'delivered');
    expect(delivered.fiscal.jurisdiction_data.channel).toBe('sandbox');
    expect(acube.received(simulated.invoice_number)).toHaveLength(0);

    acube.notify(waiting.invoice_number, 'NE', { esito_committente: { esito: 'EC01' } });
    const accepted = await until(waiting.id, (current) => current.state === 'accepted');
    expect(accepted.fiscal.jurisdiction_data.channel).toBe('acube');
  });
});

describe('the password', () => {
  it('appears in no response, no log line and no event', async () => {
    expect(logLines.length).toBeGreaterThan(0);
    for (const body of responseBodies) expect(body).not.toContain(ACUBE_PASSWORD);
    for (const line of logLines) expect(line).not.toContain(ACUBE_PASSWORD);
    const stored = await t.database.prisma.event.findMany();
    expect(stored.length).toBeGreaterThan(0);
    expect(JSON.stringify(stored)).not.toContain(ACUBE_PASSWORD);
    // The login carried it, and only the login.
    const carrying = acube.calls.filter((c) => c.body.includes(ACUBE_PASSWORD));
    expect(carrying.length).toBeGreaterThan(0);
    expect(carrying.every((c) => c.path === '/login')).toBe(true);
  });
});
