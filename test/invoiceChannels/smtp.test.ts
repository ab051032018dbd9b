// German invoices e-mailed to their buyer (src/einvoicing/email), end to end against a fake mail
// server: the organization configures its smtp channel (the login is checked first), submits,
// and the XRechnung reaches the buyer's address (BT-49) attached byte for byte; the server's
// 250 makes the invoice transmitted, a 550 undeliverable, a 451 or a lost answer is retried.
// Without a channel a German invoice is transmitted at submission, as before. The password
// shows nowhere: responses, log, events.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { smtpDriver } from '../../src/einvoicing/email/smtpDriver.js';
import { xrechnungFormat } from '../../src/einvoicing/xrechnung/index.js';
import { createTestApp, expectError, json, type TestApp } from '../support/testApp.js';
import { FakeSmtp, SMTP_PASSWORD, SMTP_USERNAME, type ReceivedMail } from '../support/fakeSmtp.js';
import { deInvoice, getInvoice, invoicingFixture, mustCreateInvoice, postInvoice, waitForInvoice, type InvoicingFixture } from '../support/invoices.js';
import { germanInvoice } from '../support/xrechnungInvoices.js';

const FROM = 'rechnung@mueller-werkzeuge.de';

let t: TestApp;
let fx: InvoicingFixture;
let smtp: FakeSmtp;
const logLines: string[] = [];
const responseBodies: string[] = [];

beforeAll(async () => {
  smtp = await FakeSmtp.start();
  t = await createTestApp(
    { LOG_LEVEL: 'trace', EXPORT_POLL_MS: '50', INVOICE_CHANNEL_POLL_MS: '100', INVOICE_CHANNEL_TIMEOUT_MS: '1500' },
    { logStream: { write: (line) => void logLines.push(line) } },
  );
  fx = await invoicingFixture(t);
});
afterEach(() => smtp.clearFaults());
afterAll(async () => {
  await t.close();
  await smtp.close();
});

const channelUrl = () => `/v1/organizations/${fx.deOrganizationId}/invoice-channels/DE`;

async function call(method: 'GET' | 'PUT' | 'DELETE', url: string, payload?: object) {
  const response = await t.app.inject({ method, url, headers: fx.de, ...(payload ? { payload } : {}) });
  responseBodies.push(response.body);
  return response;
}

const smtpBody = (overrides: Record<string, unknown> = {}) => ({
  driver: 'smtp',
  host: '127.0.0.1',
  port: smtp.port,
  security: 'none',
  username: SMTP_USERNAME,
  password: SMTP_PASSWORD,
  from: FROM,
  ...overrides,
});

async function submitted(payload: object = deInvoice()): Promise<any> {
  const invoice = await mustCreateInvoice(t.app, fx.de, { ...payload, submit: true });
  responseBodies.push(JSON.stringify(invoice));
  return invoice;
}

const until = async (id: string, done: (invoice: any) => boolean) => {
  const invoice = await waitForInvoice(t.app, fx.de, id, done);
  responseBodies.push(JSON.stringify(invoice));
  return invoice;
};
const events = async (id: string) =>
  (await t.database.prisma.invoiceStateChange.findMany({ where: { invoiceId: id }, orderBy: { id: 'asc' } })).map((change) => change.event);
const storedDocument = async (id: string) => Buffer.from((await t.database.prisma.invoice.findUniqueOrThrow({ where: { id } })).document!);
const mailsTo = (address: string) => smtp.received.filter((mail) => mail.recipients.includes(address));

/** A header of the raw message, unfolded. */
const headerOf = (mail: ReceivedMail, name: string): string | null => {
  const head = mail.raw.toString('utf8').split('\r\n\r\n')[0]!.replace(/\r\n[ \t]+/g, ' ');
  return new RegExp(`^${name}: (.*)$`, 'im').exec(head)?.[1] ?? null;
};

/** The message's parts (multipart/mixed): each one's headers, unfolded, and its body as sent. */
function partsOf(mail: ReceivedMail): { headers: string; body: string }[] {
  const raw = mail.raw.toString('utf8');
  const boundary = /boundary="?([^";\r\n]+)"?/.exec(raw)![1]!;
  return raw
    .split(`--${boundary}`)
    .slice(1, -1)
    .map((part) => {
      const at = part.indexOf('\r\n\r\n');
      return { headers: part.slice(0, at).replace(/\r\n[ \t]+/g, ' '), body: part.slice(at + 4) };
    });
}

describe('configuring the smtp channel', () => {
  it('refuses a wrong password with 422 naming password, storing nothing', async () => {
    const error = expectError(await call('PUT', channelUrl(), smtpBody({ password: 'not-the-password' })), 422, 'invoice_channel_credentials_rejected');
    expect(error.details).toMatchObject({ field: 'password', driver: 'smtp' });
    expect(error.details!.reason).toMatch(/535/);
    expect(smtp.logins.at(-1)).toEqual({ username: SMTP_USERNAME, accepted: false });
    expectError(await call('GET', channelUrl()), 404, 'not_found');
    expect(await t.database.prisma.invoiceChannelConfig.count()).toBe(0);
  });

  it('refuses a server that cannot be reached with 422 naming host', async () => {
    const closed = await FakeSmtp.start();
    await closed.close();
    const error = expectError(await call('PUT', channelUrl(), smtpBody({ port: closed.port })), 422, 'invoice_channel_unreachable');
    expect(error.details).toMatchObject({ field: 'host', driver: 'smtp' });
    expect(await t.database.prisma.invoiceChannelConfig.count()).toBe(0);
  });

  it('refuses a STARTTLS whose certificate does not verify with 422 naming security', async () => {
    // The fake offers STARTTLS with smtp-server's own test certificate, which does not verify.
    const error = expectError(await call('PUT', channelUrl(), smtpBody({ security: 'starttls' })), 422, 'invoice_channel_tls_failed');
    expect(error.details).toMatchObject({ field: 'security', driver: 'smtp' });
    expect(await t.database.prisma.invoiceChannelConfig.count()).toBe(0);
  });

  it('refuses plain text in production with 422 naming security, before connecting', async () => {
    const logins = smtp.logins.length;
    const production = { environment: 'production' as const, sdiSimulatorDelayMs: 0, timeoutMs: 1000, pollMs: 1000 };
    await expect(smtpDriver.provision(smtpBody(), production)).rejects.toMatchObject({ code: 'invoice_channel_insecure', details: { field: 'security' } });
    expect(smtp.logins.length).toBe(logins);
  });

  it('refuses smtp for Italian invoices, and a body without its fields', async () => {
    const italian = await t.app.inject({ method: 'PUT', url: `/v1/organizations/${fx.itOrganizationId}/invoice-channels/IT`, headers: fx.it, payload: smtpBody() });
    expect(expectError(italian, 422, 'invoice_channel_driver_unsupported').details).toMatchObject({ field: 'driver' });
    expectError(await call('PUT', channelUrl(), { driver: 'smtp', host: '127.0.0.1' }), 400);
    expectError(await call('PUT', channelUrl(), smtpBody({ security: 'ssl' })), 400);
  });

  it('stores the account after a login: 200 with the public settings, the password sealed', async () => {
    const response = await call('PUT', channelUrl(), smtpBody());
    expect(response.statusCode).toBe(200);
    const channel = json(response);
    expect(channel).toEqual({
      object: 'invoice_channel',
      organization_id: fx.deOrganizationId,
      jurisdiction: 'DE',
      driver: 'smtp',
      config_id: expect.stringMatching(/^ichc_/),
      settings: { host: '127.0.0.1', port: smtp.port, security: 'none', username: SMTP_USERNAME, from: FROM },
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(smtp.logins.at(-1)).toEqual({ username: SMTP_USERNAME, accepted: true });
    expect(json(await call('GET', channelUrl()))).toEqual(channel);
    const [stored] = await t.database.prisma.invoiceChannelConfig.findMany();
    expect(stored!.secretsSealed).toMatch(/^v1:/);
    expect(JSON.stringify(stored)).not.toContain(SMTP_PASSWORD);
    expect(smtp.received).toHaveLength(0);
  });
});

describe('a German invoice e-mailed to its buyer', () => {
  it('stays submitted until the server took the message, then is transmitted with the XML attached unchanged', async () => {
    const invoice = await submitted();
    expect(invoice.state).toBe('submitted');
    const sent = await until(invoice.id, (current) => current.state !== 'submitted');
    expect(sent).toMatchObject({
      state: 'transmitted',
      fiscal: { transmission_status: 'transmitted', authority_identifier: `<${invoice.id}@mueller-werkzeuge.de>`, fiscal_errors: [], jurisdiction_data: { channel: 'smtp' } },
    });
    const [mail, ...others] = mailsTo('eingangsrechnungen@schmidt-bau.de').filter((m) => headerOf(m, 'Message-ID') === sent.fiscal.authority_identifier);
    expect(others).toEqual([]);
    expect(mail!.mailFrom).toBe(FROM);
    expect(headerOf(mail!, 'Subject')).toBe(`Rechnung ${invoice.invoice_number}`);
    expect(headerOf(mail!, 'From')).toBe(FROM);

    const fileName = sent.fiscal.jurisdiction_data.file_name as string;
    const parts = partsOf(mail!);
    const attachment = parts.find((part) => /Content-Disposition: attachment/i.test(part.headers))!;
    expect(attachment.headers).toContain(`filename=${fileName}`);
    expect(attachment.headers).toMatch(/Content-Type: application\/xml/i);
    expect(attachment.headers).toMatch(/Content-Transfer-Encoding: base64/i);
    const attached = Buffer.from(attachment.body.replace(/\s+/g, ''), 'base64');
    expect(attached.equals(await storedDocument(invoice.id))).toBe(true);
    const document = await t.app.inject({ method: 'GET', url: `/v1/invoices/${invoice.id}/document`, headers: fx.de });
    expect(attached.equals(document.rawPayload)).toBe(true);
    const text = parts.find((part) => /Content-Type: text\/plain/i.test(part.headers))!;
    expect(text.body).toContain(invoice.invoice_number);
    expect(text.body).toContain('Sehr geehrte Damen und Herren');

    expect(await events(invoice.id)).toEqual(['created', 'submitted', 'received_by_authority']);
    // The server's 250 is its last word: no job is left asking it.
    expect(await t.database.prisma.invoiceTransmissionJob.findFirstOrThrow({ where: { invoiceId: invoice.id } })).toMatchObject({ status: 'done' });
  });

  it('is undeliverable with the server\'s reply when it refuses the recipient for good (550), and sends nothing', async () => {
    smtp.failNext({ kind: 'refuse_recipient', code: 550, message: '5.1.1 <unbekannt@schmidt-bau.de>: Recipient address rejected: User unknown' });
    const invoice = await submitted(deInvoice({ buyer: { ...deInvoice().buyer, email: 'unbekannt@schmidt-bau.de' } }));
    const refused = await until(invoice.id, (current) => current.state !== 'submitted');
    expect(refused).toMatchObject({
      state: 'undeliverable',
      fiscal: {
        transmission_status: 'rejected',
        delivery_status: 'undeliverable',
        authority_identifier: null,
        fiscal_errors: [{ code: 'SMTP_550', message: expect.stringContaining('Recipient address rejected: User unknown') }],
      },
    });
    expect(mailsTo('unbekannt@schmidt-bau.de')).toHaveLength(0);
    expect(await events(invoice.id)).toEqual(['created', 'submitted', 'undeliverable']);
  });

  it('retries a temporary refusal (451), failed with the reason meanwhile, and sends one message in the end', async () => {
    smtp.failNext(
      { kind: 'refuse_recipient', code: 451, message: '4.7.1 <einkauf@schmidt-bau.de>: Greylisted, try again later' },
      { kind: 'refuse_recipient', code: 451, message: '4.7.1 <einkauf@schmidt-bau.de>: Greylisted, try again later' },
    );
    const invoice = await submitted(deInvoice({ buyer: { ...deInvoice().buyer, email: 'einkauf@schmidt-bau.de' } }));
    const waiting = await until(invoice.id, (current) => current.fiscal.transmission_status === 'failed');
    expect(waiting).toMatchObject({ state: 'submitted', fiscal: { fiscal_errors: [{ code: 'SMTP_451', message: expect.stringContaining('Greylisted') }] } });
    const sent = await until(invoice.id, (current) => current.state === 'transmitted');
    expect(sent.fiscal.fiscal_errors).toEqual([]);
    expect(mailsTo('einkauf@schmidt-bau.de')).toHaveLength(1);
  });

  it('sends again under the same Message-ID when the server took the message but its 250 was lost', async () => {
    smtp.failNext({ kind: 'hang_after_data' });
    const invoice = await submitted(deInvoice({ buyer: { ...deInvoice().buyer, email: 'buchhaltung@schmidt-bau.de' } }));
    const waiting = await until(invoice.id, (current) => current.fiscal.transmission_status === 'failed');
    expect(waiting.fiscal.fiscal_errors).toMatchObject([{ code: 'SMTP_UNREACHABLE' }]);
    const sent = await until(invoice.id, (current) => current.state === 'transmitted');
    // SMTP cannot tell whether the first one arrived: both carry the invoice's one Message-ID, by which the buyer's side drops the second.
    const mails = mailsTo('buchhaltung@schmidt-bau.de');
    expect(mails).toHaveLength(2);
    expect(mails.map((mail) => headerOf(mail, 'Message-ID'))).toEqual([sent.fiscal.authority_identifier, sent.fiscal.authority_identifier]);
  });

  it('sends nothing that fails the EN 16931 and XRechnung rules: refused at submit, and the format cannot build it', async () => {
    const before = smtp.received.length;
    const invoices = await t.database.prisma.invoice.count();
    const response = await postInvoice(t.app, fx.de, { ...deInvoice({ routing: {} }), submit: true });
    responseBodies.push(response.body);
    expect(expectError(response, 422, 'validation_error').details).toMatchObject({ field: 'routing.buyer_reference' });
    const unchecked = germanInvoice();
    expect(() => xrechnungFormat.build({ ...unchecked, routing: { ...unchecked.routing, buyerReference: null } })).toThrow(/cannot be an XRechnung/);
    expect(await t.database.prisma.invoice.count()).toBe(invoices);
    expect(smtp.received.length).toBe(before);
  });
});

describe('removing the channel', () => {
  it('transmits German invoices at submission again, sending nothing; one still waiting to be sent is transmitted unsent', async () => {
    smtp.failNext({ kind: 'refuse_recipient', code: 451, message: '4.3.0 Mailbox temporarily unavailable' });
    const waiting = await submitted(deInvoice({ buyer: { ...deInvoice().buyer, email: 'spaeter@schmidt-bau.de' } }));
    await until(waiting.id, (current) => current.fiscal.transmission_status === 'failed');

    const removed = await call('DELETE', channelUrl());
    expect(json(removed)).toEqual({ object: 'invoice_channel', organization_id: fx.deOrganizationId, jurisdiction: 'DE', deleted: true });
    expectError(await call('GET', channelUrl()), 404, 'not_found');
    expect(await until(waiting.id, (current) => current.state !== 'submitted')).toMatchObject({ state: 'transmitted', fiscal: { transmission_status: 'transmitted', fiscal_errors: [] } });
    expect(mailsTo('spaeter@schmidt-bau.de')).toHaveLength(0);

    const before = smtp.received.length;
    const invoice = await submitted();
    expect(invoice).toMatchObject({ state: 'transmitted', fiscal: { transmission_status: 'transmitted', authority_identifier: null } });
    expect((await getInvoice(t.app, fx.de, invoice.id)).state).toBe('transmitted');
    expect(smtp.received.length).toBe(before);
  });
});

describe('the password', () => {
  it('appears in no response, no log line and no event', async () => {
    expect(logLines.length).toBeGreaterThan(0);
    for (const body of responseBodies) expect(body).not.toContain(SMTP_PASSWORD);
    for (const line of logLines) expect(line).not.toContain(SMTP_PASSWORD);
    const stored = await t.database.prisma.event.findMany();
    expect(stored.length).toBeGreaterThan(0);
    expect(JSON.stringify(stored)).not.toContain(SMTP_PASSWORD);
    for (const mail of smtp.received) expect(mail.raw.toString('utf8')).not.toContain(SMTP_PASSWORD);
  });
});
