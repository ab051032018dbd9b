// Italian invoices straight to the SdI over SDICoop (src/einvoicing/sdi/sdiCoop), end to end
// against the fake SdI: the organization configures its channel (its client certificate checked
// without calling the SdI), submits, the worker hands the file to SdIRiceviFile over mutual TLS,
// and the SdI's pushes to the configuration's notification URL (injected into the app's route)
// move the invoice through every state, each applied once. A push repeated changes nothing, a
// file is not sent twice when its answer was lost, and the private key shows nowhere.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DAY_MS } from '../../src/domain/dayLength.js';
import { makeCertificate } from '../support/certificates.js';
import { makeSdiCoopPki, startFakeSdiCoop, type FakePushRequest, type FakeSdiCoop, type SdiCoopPki } from '../support/fakeSdiCoop.js';
import { createTestApp, expectError, json, type TestApp } from '../support/testApp.js';
import { getInvoice, invoicingFixture, itInvoice, mustCreateInvoice, uploadItalianCertificate, waitForInvoice, type InvoicingFixture } from '../support/invoices.js';

const PUBLIC_BASE_URL = 'https://fiscal.example.test';

let t: TestApp;
let fx: InvoicingFixture;
let pki: SdiCoopPki;
let sdi: FakeSdiCoop;
let notificationPath: string;
const logLines: string[] = [];
const responseBodies: string[] = [];

beforeAll(async () => {
  pki = await makeSdiCoopPki();
  sdi = await startFakeSdiCoop({ pki });
  t = await createTestApp(
    { LOG_LEVEL: 'trace', EXPORT_POLL_MS: '50', INVOICE_CHANNEL_POLL_MS: '100', INVOICE_CHANNEL_TIMEOUT_MS: '1500', SDI_SIMULATOR_DELAY_MS: '50', PUBLIC_BASE_URL },
    { logStream: { write: (line) => void logLines.push(line) } },
  );
  fx = await invoicingFixture(t);
});
afterEach(() => sdi.clearFaults());
afterAll(async () => {
  await t.close();
  await sdi.close();
});

const channelUrl = () => `/v1/organizations/${fx.itOrganizationId}/invoice-channels/IT`;

async function call(method: 'GET' | 'PUT', url: string, payload?: object) {
  const response = await t.app.inject({ method, url, headers: fx.it, ...(payload ? { payload } : {}) });
  responseBodies.push(response.body);
  return response;
}

const sdiCoopBody = (overrides: Record<string, unknown> = {}) => ({
  driver: 'sdicoop',
  endpoint: sdi.url,
  client_certificate: pki.client.pem,
  client_private_key: pki.client.keyPem,
  ca_certificates: [pki.ca.pem],
  ...overrides,
});

/** The SdI's push, as the TLS terminator forwards it to the service. */
async function deliverPush(push: FakePushRequest, path = notificationPath) {
  const response = await t.app.inject({ method: 'POST', url: path, headers: push.headers, payload: push.body });
  responseBodies.push(response.body);
  return response;
}

async function submitted(payload: object): Promise<any> {
  const invoice = await mustCreateInvoice(t.app, fx.it, { ...payload, submit: true });
  responseBodies.push(JSON.stringify(invoice));
  return invoice;
}

const until = async (id: string, done: (invoice: any) => boolean) => {
  const invoice = await waitForInvoice(t.app, fx.it, id, done);
  responseBodies.push(JSON.stringify(invoice));
  return invoice;
};
const transmitted = (id: string) => until(id, (invoice) => invoice.state === 'transmitted');
const events = async (id: string) =>
  (await t.database.prisma.invoiceStateChange.findMany({ where: { invoiceId: id }, orderBy: { id: 'asc' } })).map((change) => change.event);
const jobOf = (id: string) => t.database.prisma.invoiceTransmissionJob.findUniqueOrThrow({ where: { invoiceId: id } });

/** The file the fake SdI received for a transmitted invoice, checked to be the only copy. */
function onlyCopyOf(invoice: any) {
  const copies = sdi.received.filter((file) => file.identifier === invoice.fiscal.authority_identifier);
  expect(copies).toHaveLength(1);
  expect(sdi.received.filter((file) => file.fileName === copies[0]!.fileName)).toHaveLength(1);
  return copies[0]!;
}

describe('configuring the SDICoop channel', () => {
  it('refuses a key that is not the certificate\'s, naming client_private_key, and stores nothing', async () => {
    const error = expectError(await call('PUT', channelUrl(), sdiCoopBody({ client_private_key: pki.foreignClient.keyPem })), 422, 'invoice_channel_private_key_mismatch');
    expect(error.details).toMatchObject({ field: 'client_private_key', driver: 'sdicoop' });
    expect(expectError(await call('PUT', channelUrl(), sdiCoopBody({ client_private_key: 'not a key' })), 422, 'invoice_channel_private_key_invalid').details).toMatchObject({ field: 'client_private_key' });
    expect(await t.database.prisma.invoiceChannelConfig.count()).toBe(0);
  });

  it('refuses an expired certificate, an http endpoint and a CA that does not parse', async () => {
    const expired = await makeCertificate({ notBefore: new Date(Date.now() - 400 * DAY_MS), notAfter: new Date(Date.now() - DAY_MS) });
    const refused = expectError(await call('PUT', channelUrl(), sdiCoopBody({ client_certificate: expired.pem, client_private_key: expired.keyPem })), 422, 'invoice_channel_certificate_expired');
    expect(refused.details).toMatchObject({ field: 'client_certificate', valid_until: expired.notAfter.toISOString() });
    const http = sdi.url.replace(/^https:/, 'http:');
    expect(expectError(await call('PUT', channelUrl(), sdiCoopBody({ endpoint: http })), 422, 'invoice_channel_endpoint_not_https').details).toMatchObject({ field: 'endpoint' });
    const ca = expectError(await call('PUT', channelUrl(), sdiCoopBody({ ca_certificates: [pki.ca.pem, 'garbage'] })), 422, 'invoice_channel_ca_certificate_invalid');
    expect(ca.details).toMatchObject({ field: 'ca_certificates', index: 1 });
    expect(expectError(await call('PUT', channelUrl(), sdiCoopBody({ client_certificate: 'garbage' })), 422, 'invoice_channel_certificate_invalid').details).toMatchObject({ field: 'client_certificate' });
    expectError(await call('PUT', channelUrl(), sdiCoopBody({ ca_certificates: [] })), 400);
    expect(await t.database.prisma.invoiceChannelConfig.count()).toBe(0);
  });

  it('stores the channel: the certificate shown by subject, serial, fingerprint and validity, the key sealed, the notification URL to register', async () => {
    const response = await call('PUT', channelUrl(), sdiCoopBody());
    expect(response.statusCode, response.body).toBe(200);
    const channel = json(response);
    expect(channel).toEqual({
      object: 'invoice_channel',
      organization_id: fx.itOrganizationId,
      jurisdiction: 'IT',
      driver: 'sdicoop',
      config_id: expect.stringMatching(/^ichc_[0-9A-Za-z]{20}$/),
      settings: {
        endpoint: sdi.url,
        client_certificate: {
          subject: 'C=IT, O=SDICoop test, CN=SDI-01234567890',
          serial_number: expect.stringMatching(/^[0-9A-F]+$/),
          sha256_fingerprint: expect.stringMatching(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/),
          valid_until: expect.any(String),
        },
        notification_url: `${PUBLIC_BASE_URL}/sdicoop/${channel.config_id}/trasmissione-fatture`,
      },
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(json(await call('GET', channelUrl()))).toEqual(channel);
    const [stored] = await t.database.prisma.invoiceChannelConfig.findMany();
    expect(stored!.secretsSealed).toMatch(/^v1:/);
    expect(JSON.stringify(stored)).not.toContain(pki.client.keyPem.split('\n')[1]);
    notificationPath = new URL(channel.settings.notification_url).pathname;

    // The same channel again (a renewed certificate keeps its subject) keeps its configuration and URL.
    const again = json(await call('PUT', channelUrl(), sdiCoopBody()));
    expect(again.config_id).toBe(channel.config_id);
    expect(again.settings.notification_url).toBe(channel.settings.notification_url);
  });

  it('keeps the push route out of the OpenAPI document', async () => {
    const document = json(await t.app.inject({ method: 'GET', url: '/openapi-json' }));
    expect(Object.keys(document.paths).filter((path) => path.includes('sdicoop'))).toEqual([]);
  });
});

describe('the push route', () => {
  it('answers a SOAP Client fault, 404, for a URL that names no SDICoop configuration', async () => {
    const invoice = await submitted(itInvoice());
    const sent = await transmitted(invoice.id);
    const response = await deliverPush(sdi.outcomeRequest(sent.fiscal.authority_identifier), '/sdicoop/ichc_00000000000000000000/trasmissione-fatture');
    expect(response.statusCode).toBe(404);
    expect(response.headers['content-type']).toMatch(/^text\/xml/);
    expect(response.body).toMatch(/<faultcode>[^<]*Client<\/faultcode>/);
    // The real push delivers it, leaving the worker to the next tests.
    expect((await deliverPush(sdi.outcomeRequest(sent.fiscal.authority_identifier))).statusCode).toBe(202);
    await until(invoice.id, (current) => current.state === 'delivered');
  });

  it('answers a Client fault to a request it cannot read, storing nothing', async () => {
    const before = await t.database.prisma.sdiNotification.count();
    const response = await deliverPush({ headers: { 'content-type': 'text/xml; charset=UTF-8', soapaction: '""' }, body: Buffer.from('<not-soap/>'), fileName: '' });
    expect(response.statusCode).toBe(500);
    expect(response.body).toMatch(/<faultcode>[^<]*Client<\/faultcode>/);
    expect(response.body).toContain('SOAP_UNREADABLE');
    // Only SOAP bodies are read (another media type is the API's 400 naming Content-Type and what the route takes), and only up to 1 MiB.
    const notSoap = await deliverPush({ headers: { 'content-type': 'application/json', soapaction: '""' }, body: Buffer.from('{}'), fileName: '' });
    expect(expectError(notSoap, 400, 'invalid_request')).toMatchObject({ message: 'Content-Type must be text/xml or multipart/related', details: { header: 'Content-Type' } });
    expect((await deliverPush({ headers: { 'content-type': 'text/xml', soapaction: '""' }, body: Buffer.alloc(1024 * 1024 + 1, 0x20), fileName: '' })).statusCode).toBe(413);
    expect(await t.database.prisma.sdiNotification.count()).toBe(before);
  });

  it('answers a Server fault when the notification cannot be stored, and takes it when the SdI pushes it again', async () => {
    const invoice = await submitted(itInvoice());
    const sent = await transmitted(invoice.id);
    const push = sdi.outcomeRequest(sent.fiscal.authority_identifier);
    await t.database.prisma.$executeRawUnsafe('ALTER TABLE sdi_notifications RENAME TO sdi_notifications_away');
    try {
      const refused = await deliverPush(push);
      expect(refused.statusCode).toBe(500);
      expect(refused.body).toMatch(/<faultcode>[^<]*Server<\/faultcode>/);
    } finally {
      await t.database.prisma.$executeRawUnsafe('ALTER TABLE sdi_notifications_away RENAME TO sdi_notifications');
    }
    expect((await deliverPush(push)).statusCode).toBe(202);
    await until(invoice.id, (current) => current.state === 'delivered');
  });
});

describe('a B2B invoice over SDICoop (plain XML)', () => {
  it('reaches the SdI once over mutual TLS; RC delivers it; the same push again changes nothing', async () => {
    const invoice = await submitted(itInvoice());
    const sent = await transmitted(invoice.id);
    const copy = onlyCopyOf(sent);
    expect(copy.fileName.endsWith('.xml')).toBe(true);
    expect(sdi.requests.at(-1)!.clientCommonName).toBe('SDI-01234567890');
    expect(sent.fiscal.jurisdiction_data).toMatchObject({ channel: 'sdicoop', format: 'FPR12' });
    const document = await t.app.inject({ method: 'GET', url: `/v1/invoices/${invoice.id}/document`, headers: fx.it });
    expect(copy.document.equals(document.rawPayload)).toBe(true);

    const rc = sdi.outcomeRequest(copy.identifier);
    expect(await deliverPush(rc)).toMatchObject({ statusCode: 202, body: '' });
    const delivered = await until(invoice.id, (current) => current.state === 'delivered');
    expect(delivered.fiscal).toMatchObject({ delivery_status: 'delivered', fiscal_errors: [] });

    const stored = await t.database.prisma.sdiNotification.count();
    expect(await deliverPush(rc)).toMatchObject({ statusCode: 202, body: '' });
    expect(await t.database.prisma.sdiNotification.count()).toBe(stored);
    expect(await events(invoice.id)).toEqual(['created', 'submitted', 'received_by_authority', 'delivered']);
    expect((await t.database.prisma.invoice.findUniqueOrThrow({ where: { id: invoice.id } })).channelNotificationIds).toEqual([rc.fileName]);
    expect((await jobOf(invoice.id)).status).toBe('done');
  });

  it('NS: rejected_by_authority with the SdI codes of its error list', async () => {
    const invoice = await submitted(itInvoice());
    const sent = await transmitted(invoice.id);
    const errors = [
      { code: '00305', description: '1.4.1.1.2 <IdCodice> non valido' },
      { code: '00311', description: '1.1.4 <CodiceDestinatario> non valido' },
    ];
    expect((await deliverPush(sdi.pushRequest(sent.fiscal.authority_identifier, { type: 'NS', errors }, { encoding: 'inline' }))).statusCode).toBe(202);
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
  });

  it('MC: undeliverable, and nothing follows for a B2B invoice', async () => {
    const invoice = await submitted(itInvoice());
    const sent = await transmitted(invoice.id);
    await deliverPush(sdi.pushRequest(sent.fiscal.authority_identifier, { type: 'MC', description: 'Casella PEC piena' }));
    const undeliverable = await until(invoice.id, (current) => current.state !== 'transmitted');
    expect(undeliverable).toMatchObject({ state: 'undeliverable', fiscal: { delivery_status: 'undeliverable' } });
    expect((await jobOf(invoice.id)).status).toBe('done');
  });
});

describe('a file whose answer was lost', () => {
  it('is not sent again once the SdI has spoken about it: its notification is the receipt', async () => {
    sdi.setFault({ kind: 'lost_answer' });
    const invoice = await submitted(itInvoice());
    const failed = await until(invoice.id, (current) => current.fiscal.transmission_status === 'failed');
    expect(failed.state).toBe('submitted');
    const copy = sdi.received.at(-1)!;
    expect((await deliverPush(sdi.outcomeRequest(copy.identifier))).statusCode).toBe(202);

    const delivered = await until(invoice.id, (current) => current.state === 'delivered');
    expect(delivered.fiscal.authority_identifier).toBe(copy.identifier);
    onlyCopyOf(delivered);
  });

  it("sent again before any notification came: the second copy's NS 00002 does not decide, the first copy's RC does", async () => {
    sdi.setFault({ kind: 'lost_answer' });
    const invoice = await submitted(itInvoice());
    await until(invoice.id, (current) => current.fiscal.transmission_status === 'failed');
    const first = sdi.received.at(-1)!;
    const sent = await transmitted(invoice.id);
    const second = sdi.received.at(-1)!;
    expect(second.fileName).toBe(first.fileName);
    expect(sent.fiscal.authority_identifier).toBe(second.identifier);

    expect((await deliverPush(sdi.outcomeRequest(second.identifier))).statusCode).toBe(202);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await getInvoice(t.app, fx.it, invoice.id)).state).toBe('transmitted');
    expect((await deliverPush(sdi.outcomeRequest(first.identifier))).statusCode).toBe(202);
    await until(invoice.id, (current) => current.state === 'delivered');
    expect(await events(invoice.id)).toEqual(['created', 'submitted', 'received_by_authority', 'delivered']);
  });
});

describe("a public administration's invoice (FPA12, signed) over SDICoop", () => {
  const pa = () => itInvoice({ routing: { codice_destinatario: 'UFABCD' } });

  beforeAll(() => uploadItalianCertificate(t, fx));

  it('is sent as the CAdES-signed .p7m; RC delivers it, then NE EC01 accepts it, each notification applied once', async () => {
    const invoice = await submitted(pa());
    const sent = await transmitted(invoice.id);
    const copy = onlyCopyOf(sent);
    expect(copy.fileName.endsWith('.xml.p7m')).toBe(true);
    expect(copy.outcome).toEqual({ type: 'RC' });
    const rc = sdi.outcomeRequest(copy.identifier);
    await deliverPush(rc);
    await until(invoice.id, (current) => current.state === 'delivered');
    // Delivered to an administration: the worker keeps asking for its answer.
    expect((await jobOf(invoice.id)).status).not.toBe('done');
    const ne = sdi.pushRequest(copy.identifier, { type: 'NE', esito: 'EC01' });
    await deliverPush(ne);
    const accepted = await until(invoice.id, (current) => current.state !== 'delivered');
    expect(accepted).toMatchObject({ state: 'accepted', fiscal: { delivery_status: 'accepted' } });
    expect(await events(invoice.id)).toEqual(['created', 'submitted', 'received_by_authority', 'delivered', 'recipient_accepted']);
    expect((await t.database.prisma.invoice.findUniqueOrThrow({ where: { id: invoice.id } })).channelNotificationIds).toEqual([rc.fileName, ne.fileName]);
    expect((await jobOf(invoice.id)).status).toBe('done');
  });

  it('NE EC02: stays delivered, refused, with the reason', async () => {
    const invoice = await submitted(pa());
    const sent = await transmitted(invoice.id);
    await deliverPush(sdi.outcomeRequest(sent.fiscal.authority_identifier));
    await deliverPush(sdi.pushRequest(sent.fiscal.authority_identifier, { type: 'NE', esito: 'EC02', description: 'Importo errato' }));
    const refused = await until(invoice.id, (current) => current.fiscal.delivery_status === 'refused');
    expect(refused).toMatchObject({ state: 'delivered', fiscal: { fiscal_errors: [{ code: 'EC02', message: 'Importo errato' }] } });
    expect(await events(invoice.id)).toEqual(['created', 'submitted', 'received_by_authority', 'delivered', 'recipient_refused']);
  });

  it('DT: accepted when the administration let its 15 days pass', async () => {
    const invoice = await submitted(pa());
    const sent = await transmitted(invoice.id);
    await deliverPush(sdi.outcomeRequest(sent.fiscal.authority_identifier));
    await deliverPush(sdi.pushRequest(sent.fiscal.authority_identifier, { type: 'DT' }));
    const accepted = await until(invoice.id, (current) => current.state === 'accepted');
    expect(accepted.fiscal.delivery_status).toBe('accepted');
    expect(await events(invoice.id)).toEqual(['created', 'submitted', 'received_by_authority', 'delivered', 'deadline_passed']);
  });
});

describe('the private key', () => {
  it('appears in no response, no log line and no event', async () => {
    const keyLines = pki.client.keyPem.split('\n').filter((line) => line && !line.startsWith('-----'));
    expect(logLines.length).toBeGreaterThan(0);
    expect(responseBodies.length).toBeGreaterThan(0);
    for (const text of [...responseBodies, ...logLines]) for (const line of keyLines) expect(text).not.toContain(line);
    const stored = await t.database.prisma.event.findMany();
    expect(stored.length).toBeGreaterThan(0);
    for (const line of keyLines) expect(JSON.stringify(stored)).not.toContain(line);
  });
});
