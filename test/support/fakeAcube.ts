// A fake A-Cube (the Italian e-invoicing API the acube driver calls, and its common login) over
// node:http on 127.0.0.1: JWTs that expire on demand, invoices received as FatturaPA XML or
// signed .p7m, the list filters the driver looks a file up with, and the SdI's notifications
// as the tests script them. Faults on demand: a status (5xx, 429 with Retry-After, 401), a
// validation refusal with its violations as A-Cube's API Platform lists them, a hang, or a hang
// after the request was handled (an answer lost). Every call is recorded.
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { signedContentOf } from '../../src/einvoicing/cades/signedContent.js';

export const ACUBE_EMAIL = 'fatture@rossi-forniture.it';
export const ACUBE_PASSWORD = 'acube-Pa55word-7f3e9d2c';

export interface AcubeCall {
  method: string;
  path: string;
  query: URLSearchParams;
  /** The request body as sent (the login's holds the credentials). */
  body: Buffer;
  contentType: string | null;
  authorization: string | null;
  /** What the fake answered; null when it did not answer. */
  status: number | null;
}

export interface FakeAcubeInvoice {
  uuid: string;
  contentType: string;
  document: Buffer;
  senderVatNumber: string;
  invoiceNumber: string;
  invoiceDate: string;
  notifications: Record<string, unknown>[];
}

export interface AcubeViolation {
  propertyPath: string;
  message: string;
}

export type AcubeFault =
  | { kind: 'status'; status: number; retryAfter?: string; message?: string }
  /** Refuses the request body as API Platform does: a ConstraintViolationList, nothing stored. */
  | { kind: 'violations'; status: 400 | 422; violations: AcubeViolation[] }
  /** Reads the request and never answers. */
  | { kind: 'hang' }
  /** Handles the request (a POST /invoices stores the file), then never answers. */
  | { kind: 'hang_after_handling' };

interface PendingFault {
  fault: AcubeFault;
  matches: (method: string, path: string) => boolean;
  times: number;
}

const tag = (xml: string, name: string, after = 0): string | null => {
  const match = new RegExp(`<(?:\\w+:)?${name}>([^<]*)</(?:\\w+:)?${name}>`).exec(xml.slice(after));
  return match ? match[1]! : null;
};

/** API Platform's JSON-LD answer to a request body its validation refuses. */
const constraintViolationList = (violations: AcubeViolation[]) => ({
  '@context': '/contexts/ConstraintViolationList',
  '@type': 'ConstraintViolationList',
  'hydra:title': 'An error occurred',
  'hydra:description': violations.map(({ propertyPath, message }) => (propertyPath ? `${propertyPath}: ${message}` : message)).join('\n'),
  violations: violations.map((violation) => ({ ...violation, code: null })),
});

export class FakeAcube {
  readonly calls: AcubeCall[] = [];
  readonly invoices = new Map<string, FakeAcubeInvoice>();
  accountDisabled = false;
  /** Tokens issued so far that still work; `expireTokens` forgets them. */
  private readonly tokens = new Set<string>();
  private faults: PendingFault[] = [];
  private readonly hanging = new Set<ServerResponse>();
  private clock = Date.now();

  private constructor(private readonly server: Server) {
    server.on('request', (request, response) => void this.handle(request, response));
  }

  static async start(): Promise<FakeAcube> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new FakeAcube(server);
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The next `times` requests that `matches` (method and path) get `fault`. */
  failNext(fault: AcubeFault, matches: (method: string, path: string) => boolean = () => true, times = 1): void {
    this.faults.push({ fault, matches, times });
  }

  clearFaults(): void {
    this.faults = [];
    for (const response of this.hanging) response.destroy();
    this.hanging.clear();
  }

  /** Every token issued so far stops working (expired, or revoked). */
  expireTokens(): void {
    this.tokens.clear();
  }

  logins(): AcubeCall[] {
    return this.calls.filter((call) => call.method === 'POST' && call.path === '/login');
  }

  /** The invoices received with this number (a file sent twice would be two). */
  received(invoiceNumber: string): FakeAcubeInvoice[] {
    return [...this.invoices.values()].filter((invoice) => invoice.invoiceNumber === invoiceNumber);
  }

  /** Adds the SdI's notification `type` to the invoice received with this number; returns its uuid. */
  notify(invoiceNumber: string, type: string, message: Record<string, unknown> = {}): string {
    const [invoice] = this.received(invoiceNumber);
    if (!invoice) throw new Error(`A-Cube received no invoice ${invoiceNumber}`);
    const uuid = randomUUID();
    // Strictly increasing times, so the order is the order of the script.
    this.clock = Math.max(this.clock + 1, Date.now());
    invoice.notifications.push({
      uuid,
      invoice_uuid: invoice.uuid,
      created_at: new Date(this.clock).toISOString(),
      type,
      message: { identificativo_sdi: '4711', nome_file: 'IT12345678903_00001.xml', ...message },
      downloaded: false,
      file_name: `${type}_${uuid}.xml`,
    });
    return uuid;
  }

  async close(): Promise<void> {
    this.clearFaults();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://fake');
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const call: AcubeCall = {
      method: request.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      body: Buffer.concat(chunks),
      contentType: request.headers['content-type'] ?? null,
      authorization: request.headers.authorization ?? null,
      status: null,
    };
    this.calls.push(call);
    const pending = this.faults.find((entry) => entry.times > 0 && entry.matches(call.method, call.path));
    if (pending) {
      pending.times -= 1;
      this.faults = this.faults.filter((entry) => entry.times > 0);
      const { fault } = pending;
      if (fault.kind === 'status') {
        call.status = fault.status;
        const headers: Record<string, string> = { 'content-type': 'application/json', ...(fault.retryAfter ? { 'retry-after': fault.retryAfter } : {}) };
        response.writeHead(fault.status, headers).end(JSON.stringify({ code: fault.status, message: fault.message ?? 'fault on demand' }));
        return;
      }
      if (fault.kind === 'violations') {
        call.status = fault.status;
        response.writeHead(fault.status, { 'content-type': 'application/ld+json' }).end(JSON.stringify(constraintViolationList(fault.violations)));
        return;
      }
      if (fault.kind === 'hang_after_handling') this.route(call);
      this.hanging.add(response);
      return;
    }
    const [status, answer] = this.route(call);
    call.status = status;
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
  }

  /** An invoice as GET /invoices lists it: its number and date only inside the FatturaPA payload (JSON in a string). */
  private listed(invoice: FakeAcubeInvoice) {
    const payload = { fattura_elettronica_body: [{ dati_generali: { dati_generali_documento: { numero: invoice.invoiceNumber, data: invoice.invoiceDate } } }] };
    return { uuid: invoice.uuid, marking: 'sent', sender: { business_vat_number_code: invoice.senderVatNumber }, payload: JSON.stringify(payload) };
  }

  private route(call: AcubeCall): [number, unknown] {
    if (call.method === 'POST' && call.path === '/login') return this.login(call);
    const token = /^Bearer (.+)$/.exec(call.authorization ?? '')?.[1];
    if (!token || !this.tokens.has(token)) return [401, { code: 401, message: 'Expired JWT Token' }];
    if (call.method === 'POST' && call.path === '/invoices') return this.receive(call);
    if (call.method === 'GET' && call.path === '/invoices') {
      // API Platform's filters: the sender's partita IVA exact, the number a partial match.
      const sender = call.query.get('sender.business_vat_number_code');
      const number = call.query.get('invoice_number');
      const found = [...this.invoices.values()].filter((invoice) => (!sender || invoice.senderVatNumber === sender) && (!number || invoice.invoiceNumber.includes(number)));
      return [200, { 'hydra:member': found.map((invoice) => this.listed(invoice)), 'hydra:totalItems': found.length }];
    }
    const notifications = /^\/invoices\/([^/]+)\/notifications$/.exec(call.path);
    if (call.method === 'GET' && notifications) {
      const invoice = this.invoices.get(notifications[1]!);
      return invoice ? [200, invoice.notifications] : [404, { code: 404, message: 'Not Found' }];
    }
    return [404, { code: 404, message: 'Not Found' }];
  }

  private login(call: AcubeCall): [number, unknown] {
    const { email, password } = JSON.parse(call.body.toString('utf8') || '{}') as { email?: string; password?: string };
    if (email !== ACUBE_EMAIL || password !== ACUBE_PASSWORD) return [401, { code: 401, message: 'Invalid credentials.' }];
    if (this.accountDisabled) return [403, { code: 403, message: 'Account is disabled.' }];
    const claims = Buffer.from(JSON.stringify({ iat: Math.floor(Date.now() / 1000), exp: Math.floor(Date.now() / 1000) + 86_400, username: email })).toString('base64url');
    const token = `eyJhbGciOiJSUzI1NiJ9.${claims}.${randomBytes(16).toString('base64url')}`;
    this.tokens.add(token);
    return [200, { token }];
  }

  private receive(call: AcubeCall): [number, unknown] {
    const contentType = call.contentType ?? '';
    if (contentType !== 'application/xml' && contentType !== 'application/pkcs7-mime') return [415, { code: 415, message: `unsupported ${contentType}` }];
    const xml = (contentType === 'application/pkcs7-mime' ? signedContentOf(call.body) : call.body).toString('utf8');
    const seller = xml.indexOf('CedentePrestatore');
    const general = xml.indexOf('DatiGeneraliDocumento');
    const senderVatNumber = tag(xml, 'IdCodice', seller);
    const invoiceNumber = tag(xml, 'Numero', general);
    const invoiceDate = tag(xml, 'Data', general);
    if (seller < 0 || general < 0 || !senderVatNumber || !invoiceNumber || !invoiceDate) return [400, { code: 400, message: 'Invalid FatturaPA document' }];
    const uuid = randomUUID();
    this.invoices.set(uuid, { uuid, contentType, document: call.body, senderVatNumber, invoiceNumber, invoiceDate, notifications: [] });
    return [202, { uuid }];
  }
}
