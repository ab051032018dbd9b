// A fake fiskaly SIGN DE v2 (the /api/v2 paths the driver calls) over node:http: one TSS with its
// own P-256 key that signs real TR-03151 transaction logs (the DTBS rebuilt by the test-only
// independentDtbs.ts, not the production signer), with real counters, expiring tokens and
// faults on demand. Every call is recorded.
import 'reflect-metadata';
import { createHash, generateKeyPairSync, randomBytes, randomUUID, sign, webcrypto, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as x509 from '@peculiar/x509';
import { pack } from 'tar-stream';
import { rebuildDtbs, tlv } from '../fiscal/independentDtbs.js';

export interface FiskalyCall {
  method: string;
  path: string;
  query: URLSearchParams;
  /** The request body as sent (the auth body holds the credentials). */
  body: string;
  /** What the fake answered; null when it did not answer (hang, dropped connection). */
  status: number | null;
}

/** One signed log of a transaction revision. */
export interface FiskalyLog {
  operation: 'StartTransaction' | 'FinishTransaction';
  transactionNumber: number;
  signatureCounter: number;
  logTime: number;
  processType: string;
  processData: string;
  signature: string;
}

interface Revision {
  body: string;
  answer: Record<string, unknown>;
}

interface FakeTransaction {
  id: string;
  number: number;
  clientId: string;
  state: 'ACTIVE' | 'FINISHED' | 'CANCELLED';
  timeStart: number;
  timeEnd: number | null;
  revisions: Revision[];
  logs: FiskalyLog[];
}

/** One export of the TSS, as `PUT /tss/{id}/export/{export_id}` triggered it. */
export interface FakeExport {
  id: string;
  query: URLSearchParams;
  state: 'PENDING' | 'WORKING' | 'COMPLETED' | 'ERROR';
  /** GETs of its state so far. */
  polls: number;
}

/** What the fake does with the next request(s) a fault matches. */
export type FiskalyFault =
  | { kind: 'status'; status: number; code: string; retryAfter?: string; message?: string }
  /** Reads the request and never answers. */
  | { kind: 'hang' }
  /** Handles the request, then drops the connection instead of answering. */
  | { kind: 'drop_answer' };

interface PendingFault {
  fault: FiskalyFault;
  /** Which requests it hits: `${method} ${path-part}`. */
  matches: (method: string, path: string, query: URLSearchParams) => boolean;
  times: number;
}

export const API_KEY = 'test_fiskaly_key_6f1e2d';
export const API_SECRET = 'fiskaly-secret-9b8c7a6d5e4f';

export class FakeFiskaly {
  readonly calls: FiskalyCall[] = [];
  readonly tssId = randomUUID();
  tssState = 'INITIALIZED';
  readonly publicKey: Buffer;
  readonly serialNumber: string;
  transactionCounter = 0;
  signatureCounter = 0;
  /** How long a token lives, in seconds. */
  tokenLifetimeSeconds = 3600;
  readonly clients = new Map<string, { serial: string; state: string }>();
  readonly transactions = new Map<string, FakeTransaction>();
  readonly exports = new Map<string, FakeExport>();
  /** How many polls an export stays PENDING or WORKING before it is COMPLETED. */
  exportPollsUntilCompleted = 2;
  /** Set: every export ends in this state instead of completing. */
  exportEndsIn: 'ERROR' | null = null;
  private readonly privateKey: KeyObject;
  private readonly cryptoKeys: Promise<webcrypto.CryptoKeyPair>;
  private certificates: Promise<{ leaf: string; root: string; rootKeyHash: string }> | null = null;
  private readonly tokens = new Map<string, number>();
  private faults: PendingFault[] = [];
  private readonly hanging = new Set<ServerResponse>();

  private constructor(private readonly server: Server) {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.privateKey = privateKey;
    this.cryptoKeys = Promise.all([
      webcrypto.subtle.importKey('pkcs8', privateKey.export({ format: 'der', type: 'pkcs8' }), { name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign']),
      webcrypto.subtle.importKey('spki', publicKey.export({ format: 'der', type: 'spki' }), { name: 'ECDSA', namedCurve: 'P-256' }, true, ['verify']),
    ]).then(([privateCryptoKey, publicCryptoKey]) => ({ privateKey: privateCryptoKey, publicKey: publicCryptoKey }));
    const jwk = publicKey.export({ format: 'jwk' });
    this.publicKey = Buffer.concat([Buffer.from([4]), Buffer.from(jwk.x!, 'base64url'), Buffer.from(jwk.y!, 'base64url')]);
    this.serialNumber = createHash('sha256').update(this.publicKey).digest('hex');
    server.on('request', (request, response) => void this.handle(request, response));
  }

  static async start(): Promise<FakeFiskaly> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new FakeFiskaly(server);
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Registers a client at the TSS; returns its fiskaly id. */
  addClient(serial: string, state = 'REGISTERED'): string {
    const id = randomUUID();
    this.clients.set(id, { serial, state });
    return id;
  }

  /** The next `times` requests that `matches` get `fault`. */
  failNext(fault: FiskalyFault, matches: (method: string, path: string, query: URLSearchParams) => boolean = () => true, times = 1): void {
    this.faults.push({ fault, matches, times });
  }

  clearFaults(): void {
    this.faults = [];
    for (const response of this.hanging) response.destroy();
    this.hanging.clear();
  }

  /** Every token issued so far stops working (expired mid-day). */
  expireTokens(): void {
    this.tokens.clear();
  }

  /** Transactions still ACTIVE (started, neither finished nor cancelled). */
  activeTransactions(): FakeTransaction[] {
    return [...this.transactions.values()].filter((tx) => tx.state === 'ACTIVE');
  }

  /** Calls to the transaction endpoint with the given target state. */
  transactionPuts(state: string): FiskalyCall[] {
    return this.calls.filter((call) => call.method === 'PUT' && call.path.includes('/tx/') && call.status === 200 && JSON.parse(call.body).state === state);
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
    const body = Buffer.concat(chunks).toString('utf8');
    const call: FiskalyCall = { method: request.method ?? 'GET', path: url.pathname, query: url.searchParams, body, status: null };
    this.calls.push(call);
    const pending = this.faults.find((entry) => entry.times > 0 && entry.matches(call.method, call.path, call.query));
    if (pending) {
      pending.times -= 1;
      this.faults = this.faults.filter((entry) => entry.times > 0);
      if (pending.fault.kind === 'hang') {
        this.hanging.add(response);
        return;
      }
      if (pending.fault.kind === 'status') {
        const headers: Record<string, string> = pending.fault.retryAfter ? { 'retry-after': pending.fault.retryAfter } : {};
        return this.answer(response, call, pending.fault.status, pending.fault.code, pending.fault.message ?? 'fault on demand', headers);
      }
      this.route(call, body, request.headers.authorization);
      response.destroy();
      return;
    }
    const exportFile = /^\/api\/v2\/tss\/[^/]+\/export\/([^/]+)\/file$/.exec(call.path);
    const [status, answer] = this.route(call, body, request.headers.authorization);
    if (exportFile && status === 200) {
      const archive = await this.exportArchive(this.exports.get(exportFile[1]!)!);
      call.status = 200;
      response.writeHead(200, { 'content-type': 'application/x-tar' }).end(archive);
      return;
    }
    call.status = status;
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
  }

  /**
   * The export's TAR as a TSE writes one (TR-03153): the TSS's certificate
   * (CN and file name its serial) and the root that issued it, info.csv, and
   * every log in the export's range as a DER file named after its fields.
   */
  private async exportArchive(exported: FakeExport): Promise<Buffer> {
    const { leaf, root, rootKeyHash } = await this.certificatesOf();
    const from = Number(exported.query.get('start_date') ?? 0);
    const to = Number(exported.query.get('end_date') ?? Number.MAX_SAFE_INTEGER);
    const logs = [...this.transactions.values()]
      .flatMap((tx) => tx.logs.map((log) => ({ log, client: this.clients.get(tx.clientId)!.serial })))
      .filter(({ log }) => log.logTime >= from && log.logTime <= to)
      .sort((a, b) => a.log.signatureCounter - b.log.signatureCounter);
    const archive = pack();
    const chunks: Buffer[] = [];
    archive.on('data', (chunk) => chunks.push(chunk as Buffer));
    const ended = new Promise<void>((resolve) => archive.on('end', () => resolve()));
    const mtime = new Date(0);
    archive.entry({ name: `${this.serialNumber.toUpperCase()}_X509.pem`, mtime }, leaf);
    archive.entry({ name: `${rootKeyHash}_X509.pem`, mtime }, root);
    archive.entry({ name: 'info.csv', mtime }, '"description:","fake fiskaly TSS","manufacturer:","fake","version:","2"');
    for (const { log, client } of logs) {
      const dtbs = this.dtbsOf(log, client);
      const message = tlv(0x30, Buffer.concat([dtbs, tlv(0x04, Buffer.from(log.signature, 'base64'))]));
      const operation = log.operation === 'StartTransaction' ? 'Start' : 'Finish';
      archive.entry({ name: `Unixt_${log.logTime}_Sig-${log.signatureCounter}_Log-Tra_No-${log.transactionNumber}_${operation}_Client-${client}.log`, mtime: new Date(log.logTime * 1000) }, message);
    }
    archive.finalize();
    await ended;
    return Buffer.concat(chunks);
  }

  private certificatesOf(): Promise<{ leaf: string; root: string; rootKeyHash: string }> {
    this.certificates ??= (async () => {
      x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);
      const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
      const rootKeys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
      const notBefore = new Date(Date.now() - 86_400_000);
      const notAfter = new Date(Date.now() + 365 * 86_400_000);
      const root = await x509.X509CertificateGenerator.createSelfSigned({
        serialNumber: '01',
        name: 'CN=fake fiskaly root',
        notBefore,
        notAfter,
        keys: rootKeys,
        signingAlgorithm: algorithm,
        extensions: [new x509.BasicConstraintsExtension(true, 0, true), new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign, true)],
      });
      const leaf = await x509.X509CertificateGenerator.create({
        serialNumber: '02',
        subject: `CN=${this.serialNumber}`,
        issuer: root.subject,
        notBefore,
        notAfter,
        publicKey: (await this.cryptoKeys).publicKey,
        signingKey: rootKeys.privateKey,
        signingAlgorithm: algorithm,
        extensions: [new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true)],
      });
      const rootPoint = Buffer.from(await webcrypto.subtle.exportKey('raw', rootKeys.publicKey));
      return { leaf: leaf.toString('pem'), root: root.toString('pem'), rootKeyHash: createHash('sha256').update(rootPoint).digest('hex').toUpperCase() };
    })();
    return this.certificates;
  }

  private answer(response: ServerResponse, call: FiskalyCall, status: number, code: string, message: string, headers: Record<string, string> = {}): void {
    call.status = status;
    response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(this.error(status, code, message)));
  }

  private error(status: number, code: string, message: string): Record<string, unknown> {
    return { status_code: status, error: status === 401 ? 'Unauthorized' : status === 404 ? 'Not Found' : 'Bad Request', code, message };
  }

  private route(call: FiskalyCall, body: string, authorization: string | undefined): [number, Record<string, unknown>] {
    const path = call.path.replace(/^\/api\/v2/, '');
    if (call.method === 'POST' && path === '/auth') return this.authenticate(body);
    const token = /^Bearer (.+)$/.exec(authorization ?? '')?.[1];
    const expiresAt = token ? this.tokens.get(token) : undefined;
    if (expiresAt === undefined || expiresAt <= Math.floor(Date.now() / 1000)) return [401, this.error(401, 'E_UNAUTHORIZED', 'missing or expired token')];
    const parts = path.split('/').filter(Boolean);
    if (parts[0] !== 'tss' || parts[1] !== this.tssId) return [404, this.error(404, 'E_TSS_NOT_FOUND', 'no such TSS')];
    if (parts.length === 2 && call.method === 'GET') return [200, this.tssView()];
    if (parts.length === 4 && parts[2] === 'client' && call.method === 'GET') {
      const client = this.clients.get(parts[3]!);
      if (!client) return [404, this.error(404, 'E_CLIENT_NOT_FOUND', 'no such client')];
      return [200, { serial_number: client.serial, state: client.state, tss_id: this.tssId, _id: parts[3], _type: 'CLIENT', _env: 'TEST' }];
    }
    if (parts.length === 4 && parts[2] === 'tx') {
      const revision = call.query.get('tx_revision');
      if (call.method === 'GET') return this.retrieve(parts[3]!, revision === null ? null : Number(revision));
      if (call.method === 'PUT') return this.upsert(parts[3]!, Number(revision), body);
    }
    if (parts[2] === 'export' && parts[3]) {
      if (parts.length === 4 && call.method === 'PUT') return this.triggerExport(parts[3], call.query);
      const exported = this.exports.get(parts[3]);
      if (!exported) return [404, this.error(404, 'E_EXPORT_NOT_FOUND', 'no such export')];
      if (parts.length === 4 && call.method === 'GET') return [200, this.pollExport(exported)];
      if (parts.length === 5 && parts[4] === 'file' && call.method === 'GET') {
        return exported.state === 'COMPLETED' ? [200, {}] : [400, this.error(400, 'E_EXPORT_NOT_COMPLETED', `the export is ${exported.state}`)];
      }
    }
    return [404, this.error(404, 'E_NOT_FOUND', `no route ${call.method} ${path}`)];
  }

  /** A repeated PUT of the same export id answers the export as it stands. */
  private triggerExport(id: string, query: URLSearchParams): [number, Record<string, unknown>] {
    const known = this.exports.get(id);
    if (known) return [200, this.exportView(known)];
    const exported: FakeExport = { id, query, state: 'PENDING', polls: 0 };
    this.exports.set(id, exported);
    return [200, this.exportView(exported)];
  }

  private pollExport(exported: FakeExport): Record<string, unknown> {
    exported.polls += 1;
    if (exported.state !== 'COMPLETED' && exported.state !== 'ERROR') {
      if (this.exportEndsIn) exported.state = this.exportEndsIn;
      else exported.state = exported.polls >= this.exportPollsUntilCompleted ? 'COMPLETED' : 'WORKING';
    }
    return this.exportView(exported);
  }

  private exportView(exported: FakeExport): Record<string, unknown> {
    return {
      _id: exported.id,
      _type: 'EXPORT',
      _env: 'TEST',
      tss_id: this.tssId,
      state: exported.state,
      time_request: Math.floor(Date.now() / 1000),
      ...(exported.state === 'ERROR' ? { exception: 'E_EXPORT_FAILED: the export could not be built' } : {}),
    };
  }

  private dtbsOf(log: FiskalyLog, clientSerial: string): Buffer {
    return rebuildDtbs({
      operationType: log.operation,
      clientId: clientSerial,
      processData: log.processData,
      processType: log.processType,
      transactionNumber: log.transactionNumber,
      publicKey: this.publicKey,
      algorithm: 'ecdsa-plain-SHA256',
      signatureCounter: log.signatureCounter,
      logTimeSeconds: log.logTime,
    });
  }

  private tssView(): Record<string, unknown> {
    return {
      _id: this.tssId,
      _type: 'TSS',
      _env: 'TEST',
      state: this.tssState,
      serial_number: this.serialNumber,
      public_key: this.publicKey.toString('base64'),
      certificate: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----',
      signature_algorithm: 'ecdsa-plain-SHA256',
      signature_timestamp_format: 'unixTime',
      transaction_data_encoding: 'UTF-8',
      bsi_certification_id: 'BSI-K-TR-0000-0000',
      signature_counter: String(this.signatureCounter),
      transaction_counter: String(this.transactionCounter),
    };
  }

  private retrieve(txId: string, revision: number | null): [number, Record<string, unknown>] {
    const tx = this.transactions.get(txId);
    if (!tx) return [404, this.error(404, 'E_TX_NOT_FOUND', 'no such transaction')];
    const index = revision === null ? tx.revisions.length - 1 : revision - 1;
    const stored = tx.revisions[index];
    if (!stored) return [404, this.error(404, 'E_TX_REVISION_NOT_FOUND', 'no such revision')];
    return [200, { ...stored.answer, latest_revision: tx.revisions.length }];
  }

  /** PUT of a revision: the next one is applied; an existing one with the same body is answered again (idempotent), else refused. */
  private upsert(txId: string, revision: number, body: string): [number, Record<string, unknown>] {
    if (this.tssState !== 'INITIALIZED') {
      const code = this.tssState === 'DISABLED' ? 'E_TSS_DISABLED' : 'E_TSS_NOT_INITIALIZED';
      return [400, this.error(400, code, `the TSS is ${this.tssState}`)];
    }
    const request = JSON.parse(body || '{}') as { state?: string; client_id?: string; schema?: { raw?: { process_type?: string; process_data?: string } } };
    const client = request.client_id ? this.clients.get(request.client_id) : undefined;
    if (!client) return [400, this.error(400, 'E_CLIENT_NOT_FOUND', 'no such client')];
    if (client.state !== 'REGISTERED') return [400, this.error(400, 'E_CLIENT_NOT_REGISTERED', `the client is ${client.state}`)];
    const tx = this.transactions.get(txId);
    if (tx && revision <= tx.revisions.length) {
      const stored = tx.revisions[revision - 1]!;
      if (stored.body !== body) return [409, this.error(409, 'E_TX_REVISION_CONFLICT', `revision ${revision} exists with other content`)];
      return [200, { ...stored.answer, latest_revision: tx.revisions.length }];
    }
    if (revision !== (tx ? tx.revisions.length + 1 : 1)) return [400, this.error(400, 'E_TX_REVISION', `revision ${revision} is not the next one`)];
    const now = Math.floor(Date.now() / 1000);
    if (!tx) {
      if (request.state !== 'ACTIVE') return [400, this.error(400, 'E_TX_STATE', 'a transaction starts ACTIVE')];
      this.transactionCounter += 1;
      const started: FakeTransaction = { id: txId, number: this.transactionCounter, clientId: request.client_id!, state: 'ACTIVE', timeStart: now, timeEnd: null, revisions: [], logs: [] };
      this.transactions.set(txId, started);
      return this.record(started, body, this.signLog(started, 'StartTransaction', '', '', now));
    }
    if (tx.state !== 'ACTIVE') return [400, this.error(400, 'E_TX_ALREADY_FINISHED', `the transaction is ${tx.state}`)];
    if (request.state === 'FINISHED') {
      const raw = request.schema?.raw;
      if (!raw?.process_type || raw.process_data === undefined) return [400, this.error(400, 'E_SCHEMA', 'the raw schema needs process_type and process_data')];
      tx.state = 'FINISHED';
      tx.timeEnd = now;
      return this.record(tx, body, this.signLog(tx, 'FinishTransaction', raw.process_type, Buffer.from(raw.process_data, 'base64').toString('utf8'), now));
    }
    if (request.state === 'CANCELLED') {
      tx.state = 'CANCELLED';
      tx.timeEnd = now;
      return this.record(tx, body, this.signLog(tx, 'FinishTransaction', '', '', now));
    }
    return [400, this.error(400, 'E_TX_STATE', `no transition to ${request.state}`)];
  }

  private signLog(tx: FakeTransaction, operation: FiskalyLog['operation'], processType: string, processData: string, logTime: number): FiskalyLog {
    this.signatureCounter += 1;
    const client = this.clients.get(tx.clientId)!;
    const dtbs = rebuildDtbs({
      operationType: operation,
      clientId: client.serial,
      processData,
      processType,
      transactionNumber: tx.number,
      publicKey: this.publicKey,
      algorithm: 'ecdsa-plain-SHA256',
      signatureCounter: this.signatureCounter,
      logTimeSeconds: logTime,
    });
    const signature = sign('sha256', dtbs, { key: this.privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64');
    const log: FiskalyLog = { operation, transactionNumber: tx.number, signatureCounter: this.signatureCounter, logTime, processType, processData, signature };
    tx.logs.push(log);
    return log;
  }

  private record(tx: FakeTransaction, body: string, log: FiskalyLog): [number, Record<string, unknown>] {
    const client = this.clients.get(tx.clientId)!;
    const revision = tx.revisions.length + 1;
    const raw = (JSON.parse(body) as { schema?: { raw?: unknown } }).schema?.raw;
    const answer: Record<string, unknown> = {
      _id: tx.id,
      _type: 'TRANSACTION',
      _env: 'TEST',
      number: tx.number,
      state: tx.state,
      client_id: tx.clientId,
      client_serial_number: client.serial,
      tss_id: this.tssId,
      tss_serial_number: this.serialNumber,
      time_start: tx.timeStart,
      ...(tx.timeEnd === null ? {} : { time_end: tx.timeEnd }),
      revision,
      ...(raw ? { schema: { raw } } : {}),
      log: { operation: log.operation === 'StartTransaction' ? 'START' : 'FINISH', timestamp: log.logTime, timestamp_format: 'unixTime' },
      signature: { value: log.signature, counter: String(log.signatureCounter), algorithm: 'ecdsa-plain-SHA256', public_key: this.publicKey.toString('base64') },
    };
    tx.revisions.push({ body, answer });
    return [200, { ...answer, latest_revision: revision }];
  }

  private authenticate(body: string): [number, Record<string, unknown>] {
    const { api_key: key, api_secret: secret } = JSON.parse(body || '{}') as { api_key?: string; api_secret?: string };
    if (key !== API_KEY || secret !== API_SECRET) return [401, this.error(401, 'E_UNAUTHORIZED', 'invalid api_key or api_secret')];
    const token = randomBytes(24).toString('base64url');
    const now = Math.floor(Date.now() / 1000);
    this.tokens.set(token, now + this.tokenLifetimeSeconds);
    return [200, { access_token: token, access_token_expires_in: this.tokenLifetimeSeconds, access_token_expires_at: now + this.tokenLifetimeSeconds, refresh_token: randomBytes(24).toString('base64url'), access_token_claims: { env: 'TEST' } }];
  }
}
