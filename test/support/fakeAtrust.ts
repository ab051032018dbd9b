// A fake A-Trust a.sign RK online (the RegistrierkasseMobile v2 paths the driver calls) over
// node:http: one account with its own P-256 key and a real X.509 certificate (issued by a fake
// CA with @peculiar/x509) that signs receipts really, with faults on demand. Every call is
// recorded, bodies included, so tests can see what the driver sent.
import 'reflect-metadata';
import { randomBytes, sign, webcrypto, type KeyObject, KeyObject as NodeKeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as x509 from '@peculiar/x509';

export const ATRUST_USERNAME = 'u274918365';
export const ATRUST_PASSWORD = 'asign-pw-8c41f0e2d7b9';

export interface AtrustCall {
  method: string;
  path: string;
  /** The request body as sent (the signing body holds the password). */
  body: string;
  /** What the fake answered; null when it did not answer (hang, dropped connection). */
  status: number | null;
}

/** What the fake does with the next request(s) a fault matches. */
export type AtrustFault =
  | { kind: 'status'; status: number; message?: string }
  /** Reads the request and never answers. */
  | { kind: 'hang' }
  /** Reads the request, then drops the connection instead of answering. */
  | { kind: 'drop' };

interface PendingFault {
  fault: AtrustFault;
  matches: (method: string, endpoint: string) => boolean;
  times: number;
}

const API = '/RegistrierkasseMobile/v2/';
const JWS_HEADER = Buffer.from('{"alg":"ES256"}', 'utf8').toString('base64url');

interface Certificates {
  leaf: x509.X509Certificate;
  root: x509.X509Certificate;
  privateKey: KeyObject;
}

export class FakeAtrust {
  readonly calls: AtrustCall[] = [];
  /** The certificate serial in hex, upper case as A-Trust prints it. */
  readonly serialHex: string;
  zdaId = 'AT1';
  /** Signatures made so far. */
  signatures = 0;
  private faults: PendingFault[] = [];
  private readonly hanging = new Set<ServerResponse>();

  private constructor(
    private readonly server: Server,
    private readonly certificates: Certificates,
  ) {
    this.serialHex = certificates.leaf.serialNumber.toUpperCase();
    server.on('request', (request, response) => void this.handle(request, response));
  }

  static async start(): Promise<FakeAtrust> {
    const certificates = await issueCertificates();
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new FakeAtrust(server, certificates);
  }

  /** The host only: the driver appends /RegistrierkasseMobile/v2 itself. */
  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Standard base64 of the account's DER certificate. */
  get certificateBase64(): string {
    return Buffer.from(this.certificates.leaf.rawData).toString('base64');
  }

  get rootBase64(): string {
    return Buffer.from(this.certificates.root.rawData).toString('base64');
  }

  /** Base64 DER SubjectPublicKeyInfo of the certificate's key. */
  get publicKeyBase64(): string {
    return Buffer.from(this.certificates.leaf.publicKey.rawData).toString('base64');
  }

  /** The next `times` requests that `matches` (method, endpoint after the username) get `fault`. */
  failNext(fault: AtrustFault, matches: (method: string, endpoint: string) => boolean = () => true, times = 1): void {
    this.faults.push({ fault, matches, times });
  }

  clearFaults(): void {
    this.faults = [];
    for (const response of this.hanging) response.destroy();
    this.hanging.clear();
  }

  async close(): Promise<void> {
    this.clearFaults();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const path = new URL(request.url ?? '/', 'http://fake').pathname;
    const call: AtrustCall = { method: request.method ?? 'GET', path, body, status: null };
    this.calls.push(call);
    const match = path.startsWith(API) ? /^([^/]+)\/(.+)$/.exec(path.slice(API.length)) : null;
    const [username, endpoint] = match ? [decodeURIComponent(match[1]!), match[2]!] : ['', ''];
    const pending = this.faults.find((entry) => entry.times > 0 && entry.matches(call.method, endpoint));
    if (pending) {
      pending.times -= 1;
      this.faults = this.faults.filter((entry) => entry.times > 0);
      if (pending.fault.kind === 'hang') {
        this.hanging.add(response);
        return;
      }
      if (pending.fault.kind === 'drop') {
        response.destroy();
        return;
      }
      return this.answer(response, call, pending.fault.status, { message: pending.fault.message ?? 'fault on demand' });
    }
    if (!match || username !== ATRUST_USERNAME) return this.answer(response, call, 404, { message: 'unknown account' });
    const [status, answer] = this.route(call.method, endpoint, body);
    return this.answer(response, call, status, answer);
  }

  private route(method: string, endpoint: string, body: string): [number, unknown] {
    if (method === 'GET' && endpoint === 'Certificate') {
      return [
        200,
        {
          Signaturzertifikat: this.certificateBase64,
          Zertifizierungsstellen: [this.rootBase64],
          Zertifikatsseriennummer: BigInt(`0x${this.serialHex}`).toString(),
          ZertifikatsseriennummerHex: this.serialHex,
          alg: 'ES256',
        },
      ];
    }
    if (method === 'GET' && endpoint === 'ZDA') return [200, { zdaid: this.zdaId }];
    if (method === 'POST' && (endpoint === 'Sign/JWS' || endpoint === 'Sign')) {
      let request: { password?: unknown; jws_payload?: unknown; to_be_signed?: unknown };
      try {
        request = JSON.parse(body) as typeof request;
      } catch {
        return [400, { message: 'body is not JSON' }];
      }
      if (request.password !== ATRUST_PASSWORD) return [401, { message: 'wrong password' }];
      if (endpoint === 'Sign') {
        if (typeof request.to_be_signed !== 'string') return [400, { message: 'to_be_signed missing' }];
        return [200, { signature: this.signature(Buffer.from(request.to_be_signed, 'base64')) }];
      }
      if (typeof request.jws_payload !== 'string') return [400, { message: 'jws_payload missing' }];
      const input = `${JWS_HEADER}.${Buffer.from(request.jws_payload, 'utf8').toString('base64url')}`;
      return [200, { result: `${input}.${this.signature(Buffer.from(input, 'ascii'))}` }];
    }
    return [404, { message: `no endpoint ${method} ${endpoint}` }];
  }

  /** ES256 as JWS wants it: raw R‖S, base64url. */
  private signature(input: Buffer): string {
    this.signatures += 1;
    return sign('sha256', input, { key: this.certificates.privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url');
  }

  private answer(response: ServerResponse, call: AtrustCall, status: number, body: unknown): void {
    call.status = status;
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  }
}

/** A fake A-Trust CA and the account's certificate, for a P-256 key made here; the serial is random, as a CA's are. */
async function issueCertificates(): Promise<Certificates> {
  x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);
  const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const rootKeys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
  const accountKeys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
  const notBefore = new Date(Date.now() - 86_400_000);
  const notAfter = new Date(Date.now() + 5 * 365 * 86_400_000);
  const root = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: 'CN=fake a-sign-Premium-Test-Sig, O=Fake A-Trust, C=AT',
    notBefore,
    notAfter,
    keys: rootKeys,
    signingAlgorithm: algorithm,
    extensions: [new x509.BasicConstraintsExtension(true, 0, true), new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign, true)],
  });
  // Eight random bytes, the first nibble fixed so the serial is positive and has no leading zero byte.
  const serial = `4${randomBytes(8).toString('hex').slice(1)}`;
  const leaf = await x509.X509CertificateGenerator.create({
    serialNumber: serial,
    subject: 'CN=UID: ATU12345678, C=AT',
    issuer: root.subject,
    notBefore,
    notAfter,
    publicKey: accountKeys.publicKey,
    signingKey: rootKeys.privateKey,
    signingAlgorithm: algorithm,
    extensions: [new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.nonRepudiation, true)],
  });
  return { leaf, root, privateKey: NodeKeyObject.from(accountKeys.privateKey) };
}
