// A fake of the SdI's SDICoop Trasmissione side: SdIRiceviFile over HTTPS on 127.0.0.1 that
// requires a client certificate signed by its test CA (mutual TLS), numbering the files it takes
// (IdentificativoSdI), checking a .p7m's CAdES signature with the service's verifier, rejecting
// a second file of the same name with NS 00002 as the SdI does, and answering with its faults on
// demand; and the SdI's pushes to the transmitter's TrasmissioneFatture service: notification
// files signed with XML-DSig as the SdI signs them, valid against MessaggiTypes_v1.1.xsd, sent
// in MTOM SOAP requests or inline. Every RiceviFile request is recorded.
import 'reflect-metadata';
import { createHash, randomBytes, webcrypto } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import * as x509 from '@peculiar/x509';
import { XMLParser } from 'fast-xml-parser';
import { request } from 'undici';
import { SignedXml } from 'xml-crypto';
import { cadesFault } from '../../src/einvoicing/cades/verifyCades.js';
import { makeCertificate, type TestCertificate } from './certificates.js';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

const SOAP_NAMESPACE = 'http://schemas.xmlsoap.org/soap/envelope/';
const TYPES_NAMESPACE = 'http://www.fatturapa.gov.it/sdi/ws/trasmissione/v1.0/types';
const MESSAGES_NAMESPACE = 'http://www.fatturapa.gov.it/sdi/messaggi/v1.0';
const RICEVI_FILE_ACTION = 'http://www.fatturapa.it/SdIRiceviFile/RiceviFile';
const DAY_MS = 24 * 60 * 60 * 1000;

// ---------------------------------------------------------------------------------------------
// The test PKI: a CA for the SdI's server and the channel's clients, and one no one trusts.

/** A certificate a test CA issued, PEM, with its key (PKCS#8 PEM). */
export interface IssuedCertificate {
  pem: string;
  keyPem: string;
}

export interface SdiCoopPki {
  /** The CA that signs the fake's server certificate and the accredited channels' client certificates. */
  ca: IssuedCertificate;
  /** The fake's server certificate, for 127.0.0.1. */
  server: IssuedCertificate;
  /** An accredited channel's client certificate. */
  client: IssuedCertificate;
  /** A client certificate from a CA the fake does not know. */
  foreignClient: IssuedCertificate;
  /** The CA of `foreignClient`. */
  foreignCa: IssuedCertificate;
}

const EC = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };

const pemOf = (label: string, der: ArrayBuffer) =>
  `-----BEGIN ${label}-----\n${Buffer.from(der).toString('base64').replace(/.{64}/g, '$&\n').replace(/\n$/, '')}\n-----END ${label}-----\n`;

const serial = () => randomBytes(8).toString('hex').replace(/^[89a-f]/, '1');

interface Authority {
  certificate: x509.X509Certificate;
  keys: webcrypto.CryptoKeyPair;
}

async function makeAuthority(name: string): Promise<Authority> {
  const keys = await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify']);
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: `C=IT, O=${name}, CN=${name} CA`,
    notBefore: new Date(Date.now() - DAY_MS),
    notAfter: new Date(Date.now() + 365 * DAY_MS),
    signingAlgorithm: EC,
    keys,
    extensions: [new x509.BasicConstraintsExtension(true, undefined, true), new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true)],
  });
  return { certificate, keys };
}

async function issue(authority: Authority, commonName: string, usage: 'server' | 'client'): Promise<IssuedCertificate> {
  const keys = await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify']);
  const certificate = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: `C=IT, O=SDICoop test, CN=${commonName}`,
    issuer: authority.certificate.subject,
    notBefore: new Date(Date.now() - DAY_MS),
    notAfter: new Date(Date.now() + 365 * DAY_MS),
    signingAlgorithm: EC,
    publicKey: keys.publicKey,
    signingKey: authority.keys.privateKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([usage === 'server' ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth]),
      ...(usage === 'server' ? [new x509.SubjectAlternativeNameExtension([{ type: 'ip', value: '127.0.0.1' }])] : []),
    ],
  });
  return { pem: certificate.toString('pem'), keyPem: pemOf('PRIVATE KEY', await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)) };
}

const issuedAuthority = async (authority: Authority): Promise<IssuedCertificate> => ({
  pem: authority.certificate.toString('pem'),
  keyPem: pemOf('PRIVATE KEY', await webcrypto.subtle.exportKey('pkcs8', authority.keys.privateKey)),
});

/** A fresh test PKI for the fake and its clients. */
export async function makeSdiCoopPki(): Promise<SdiCoopPki> {
  const sdi = await makeAuthority('SdI test');
  const foreign = await makeAuthority('Elsewhere');
  return {
    ca: await issuedAuthority(sdi),
    server: await issue(sdi, '127.0.0.1', 'server'),
    client: await issue(sdi, 'SDI-01234567890', 'client'),
    foreignClient: await issue(foreign, 'SDI-01234567890', 'client'),
    foreignCa: await issuedAuthority(foreign),
  };
}

// ---------------------------------------------------------------------------------------------
// Notification files.

export type FakeNotificationType = 'RC' | 'NS' | 'MC' | 'NE' | 'DT' | 'AT';

/** A notification about a file the fake received. */
export type FakeNotificationSpec =
  | { type: 'RC' }
  | { type: 'NS'; errors: { code: string; description: string }[] }
  | { type: 'MC'; description?: string }
  | { type: 'NE'; esito: 'EC01' | 'EC02'; description?: string }
  | { type: 'DT'; description?: string }
  | { type: 'AT' };

/** Each type's root element and SOAP operation (its element in the Body is the operation with a lower-case initial). */
const NOTIFICATIONS: Record<FakeNotificationType, { root: string; operation: string }> = {
  RC: { root: 'RicevutaConsegna', operation: 'RicevutaConsegna' },
  NS: { root: 'NotificaScarto', operation: 'NotificaScarto' },
  MC: { root: 'NotificaMancataConsegna', operation: 'NotificaMancataConsegna' },
  NE: { root: 'NotificaEsito', operation: 'NotificaEsito' },
  DT: { root: 'NotificaDecorrenzaTermini', operation: 'NotificaDecorrenzaTermini' },
  AT: { root: 'AttestazioneTrasmissioneFattura', operation: 'AttestazioneTrasmissioneFattura' },
};

const escaped = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const dateTime = (at: Date) => at.toISOString().replace(/\.\d{3}Z$/, 'Z');
const element = (name: string, text: string) => `<${name}>${escaped(text)}</${name}>`;

/** A file the fake received, and what it decided about it on receipt. */
export interface FakeReceivedFile {
  identifier: string;
  fileName: string;
  document: Buffer;
  receivedAt: Date;
  /** RC, or the NS the checks on receipt gave (00002 for a repeated name, 00102/00100 for a signature). */
  outcome: FakeNotificationSpec;
}

const RECIPIENT = { code: 'ABC1234', description: 'Rossi Forniture Srl' };

/** The notification's XML content (everything but the signature), in the sequence MessaggiTypes_v1.1.xsd gives. */
function notificationBody(file: FakeReceivedFile, spec: FakeNotificationSpec, messageId: string, at: Date): string {
  const common = element('IdentificativoSdI', file.identifier) + element('NomeFile', file.fileName);
  const received = element('DataOraRicezione', dateTime(file.receivedAt));
  const destinatario = `<Destinatario>${element('Codice', RECIPIENT.code)}${element('Descrizione', RECIPIENT.description)}</Destinatario>`;
  const id = element('MessageId', messageId);
  switch (spec.type) {
    case 'RC':
      return common + received + element('DataOraConsegna', dateTime(at)) + destinatario + id;
    case 'NS':
      return `${common}${received}<ListaErrori>${spec.errors.map((error) => `<Errore>${element('Codice', error.code)}${element('Descrizione', error.description)}</Errore>`).join('')}</ListaErrori>${id}`;
    case 'MC':
      return common + received + (spec.description ? element('Descrizione', spec.description) : '') + id;
    case 'NE': {
      const esito = `<EsitoCommittente versione="1.0">${element('IdentificativoSdI', file.identifier)}${element('Esito', spec.esito)}${spec.description ? element('Descrizione', spec.description) : ''}</EsitoCommittente>`;
      return common + esito + id;
    }
    case 'DT':
      return common + (spec.description ? element('Descrizione', spec.description) : '') + id;
    case 'AT':
      return common + received + destinatario + id + element('HashFileOriginale', createHash('sha256').update(file.document).digest('hex'));
  }
}

// ---------------------------------------------------------------------------------------------
// The fake.

/**
 * What the fake does instead of its normal answer to RiceviFile:
 * - `errore`: rispostaSdIRiceviFile with that Errore (EI01 is also the answer to an empty file);
 * - `http`: that status with an HTML page, as a front end does;
 * - `soap_fault`: HTTP 500 with a soapenv:Server Fault;
 * - `hang`: reads the request and never answers;
 * - `lost_answer`: takes the file as usual (numbered, recorded) and drops the connection before answering.
 */
export type FakeSdiCoopFault =
  | { kind: 'errore'; code: 'EI01' | 'EI02' | 'EI03' }
  | { kind: 'http'; status: number }
  | { kind: 'soap_fault'; reason: string }
  | { kind: 'hang' }
  | { kind: 'lost_answer' };

export interface FakeSdiCoopRequest {
  /** The CN of the client certificate the TLS handshake verified. */
  clientCommonName: string | null;
  soapAction: string;
  contentType: string;
  body: string;
}

export interface FakeSdiCoop {
  /** The SdIRiceviFile endpoint: https://127.0.0.1:PORT/ricevi_file. */
  url: string;
  requests: FakeSdiCoopRequest[];
  /** The codes of the TLS handshakes the fake refused (a client without a certificate its CA signed). */
  tlsRefusals: string[];
  /** The files the fake took, in order. */
  received: FakeReceivedFile[];
  setFault(fault: FakeSdiCoopFault, times?: number): void;
  /** Drops pending faults and ends hanging requests. */
  clearFaults(): void;
  /** The outcome a file of this name gets on receipt (instead of RC), when its checks pass. */
  scriptOutcome(fileName: string, outcome: FakeNotificationSpec): void;
  /** A notification file about a received file, signed, and the name the SdI gives it. */
  notificationFile(identifier: string, spec: FakeNotificationSpec): { fileName: string; xml: string };
  /** The HTTP request that pushes a notification (a new notification file each time), for a test to send as it likes. */
  pushRequest(identifier: string, spec: FakeNotificationSpec, options?: { encoding?: 'mtom' | 'inline' }): FakePushRequest;
  /** The request that pushes the outcome the fake decided when it received the file. */
  outcomeRequest(identifier: string, options?: { encoding?: 'mtom' | 'inline' }): FakePushRequest;
  /** Pushes a notification to a TrasmissioneFatture endpoint; the endpoint's answer. */
  push(url: string, identifier: string, spec: FakeNotificationSpec, options?: { encoding?: 'mtom' | 'inline' }): Promise<{ statusCode: number; body: string }>;
  /** Pushes the outcome the fake decided when it received the file. */
  pushOutcome(url: string, identifier: string, options?: { encoding?: 'mtom' | 'inline' }): Promise<{ statusCode: number; body: string }>;
  close(): Promise<void>;
}

/** A push of the SdI to a TrasmissioneFatture service, as sent over HTTP. */
export interface FakePushRequest {
  headers: { 'content-type': string; soapaction: string };
  body: Buffer;
  /** The notification's file name (NomeFile of the fileSdI). */
  fileName: string;
}

export interface FakeSdiCoopOptions {
  pki: SdiCoopPki;
  /** How the answers to RiceviFile are encoded: MTOM (multipart/related, the default) or plain text/xml. */
  answerEncoding?: 'mtom' | 'plain';
  /** The first IdentificativoSdI it gives. */
  firstIdentifier?: number;
}

const parser = new XMLParser({ removeNSPrefix: true, ignoreAttributes: true, parseTagValue: false, trimValues: true });

const envelope = (body: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="${SOAP_NAMESPACE}"><soapenv:Body>${body}</soapenv:Body></soapenv:Envelope>`;

/** A SOAP message with MTOM: multipart/related, the envelope first, each binary in a part of its own. */
function mtomMessage(envelopeXml: string, attachments: { contentId: string; bytes: Buffer }[]): { contentType: string; body: Buffer } {
  const boundary = `MIMEBoundary_${randomBytes(12).toString('hex')}`;
  const start = `0.${randomBytes(8).toString('hex')}@apache.org`;
  const part = (headers: string[], bytes: Buffer) => Buffer.concat([Buffer.from(`--${boundary}\r\n${headers.join('\r\n')}\r\n\r\n`), bytes, Buffer.from('\r\n')]);
  const body = Buffer.concat([
    part(['Content-Type: application/xop+xml; charset=UTF-8; type="text/xml"', 'Content-Transfer-Encoding: binary', `Content-ID: <${start}>`], Buffer.from(envelopeXml)),
    ...attachments.map(({ contentId, bytes }) => part(['Content-Type: application/octet-stream', 'Content-Transfer-Encoding: binary', `Content-ID: <${contentId}>`], bytes)),
    Buffer.from(`--${boundary}--\r\n`),
  ]);
  return { contentType: `multipart/related; boundary="${boundary}"; type="application/xop+xml"; start="<${start}>"; start-info="text/xml"`, body };
}

export async function startFakeSdiCoop(options: FakeSdiCoopOptions): Promise<FakeSdiCoop> {
  const { pki } = options;
  const signer: TestCertificate = await makeCertificate({ keyType: 'rsa', subject: [{ C: ['IT'] }, { O: ['Agenzia delle Entrate'] }, { CN: ['Sistema di Interscambio (test)'] }] });
  const requests: FakeSdiCoopRequest[] = [];
  const received: FakeReceivedFile[] = [];
  const scripted = new Map<string, FakeNotificationSpec>();
  const sent = new Map<string, number>();
  const faults: { fault: FakeSdiCoopFault; left: number }[] = [];
  const hanging = new Set<Socket>();
  let nextIdentifier = options.firstIdentifier ?? 4_000_001;
  let nextMessageId = 1;

  const takeFault = (): FakeSdiCoopFault | null => {
    const pending = faults[0];
    if (!pending) return null;
    pending.left -= 1;
    if (pending.left <= 0) faults.shift();
    return pending.fault;
  };

  async function outcomeOnReceipt(fileName: string, document: Buffer, receivedAt: Date): Promise<FakeNotificationSpec> {
    if (received.some((file) => file.fileName === fileName)) {
      return { type: 'NS', errors: [{ code: '00002', description: `Nome file duplicato: ${fileName}` }] };
    }
    if (fileName.endsWith('.p7m')) {
      const fault = await cadesFault(document, receivedAt);
      if (fault?.fault === 'signature_invalid') return { type: 'NS', errors: [{ code: '00102', description: 'File non integro (firma non valida)' }] };
      if (fault?.fault === 'certificate_expired') return { type: 'NS', errors: [{ code: '00100', description: 'Certificato di firma scaduto' }] };
    }
    return scripted.get(fileName) ?? { type: 'RC' };
  }

  const answerXml = (identifier: string, receivedAt: Date, errore?: string) =>
    envelope(
      `<ns2:rispostaSdIRiceviFile xmlns:ns2="${TYPES_NAMESPACE}"><IdentificativoSdI>${identifier}</IdentificativoSdI><DataOraRicezione>${dateTime(receivedAt)}</DataOraRicezione>${errore ? `<Errore>${errore}</Errore>` : ''}</ns2:rispostaSdIRiceviFile>`,
    );

  const server: Server = createServer({ key: pki.server.keyPem, cert: pki.server.pem, ca: [pki.ca.pem], requestCert: true, rejectUnauthorized: true }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const peer = (req.socket as TLSSocket).getPeerCertificate();
        requests.push({
          clientCommonName: typeof peer?.subject?.CN === 'string' ? peer.subject.CN : null,
          soapAction: String(req.headers.soapaction ?? '').replace(/^"|"$/g, ''),
          contentType: String(req.headers['content-type'] ?? ''),
          body,
        });
        const answer = (status: number, xml: string) => {
          if (options.answerEncoding === 'plain' || status !== 200) {
            res.writeHead(status, { 'content-type': 'text/xml; charset=UTF-8' }).end(xml);
            return;
          }
          const message = mtomMessage(xml, []);
          res.writeHead(status, { 'content-type': message.contentType }).end(message.body);
        };
        const fault = takeFault();
        if (fault?.kind === 'hang') {
          hanging.add(req.socket);
          return;
        }
        if (fault?.kind === 'http') {
          res.writeHead(fault.status, { 'content-type': 'text/html' }).end(`<html><body><h1>${fault.status}</h1></body></html>`);
          return;
        }
        if (fault?.kind === 'soap_fault') {
          answer(500, envelope(`<soapenv:Fault><faultcode>soapenv:Server</faultcode><faultstring>${escaped(fault.reason)}</faultstring></soapenv:Fault>`));
          return;
        }
        const riceviFile = (parser.parse(body) as { Envelope?: { Body?: { fileSdIAccoglienza?: { NomeFile?: string; File?: string } } } }).Envelope?.Body?.fileSdIAccoglienza;
        if (!riceviFile?.NomeFile || riceviFile.File === undefined || requests.at(-1)!.soapAction !== RICEVI_FILE_ACTION) {
          answer(500, envelope('<soapenv:Fault><faultcode>soapenv:Client</faultcode><faultstring>not a RiceviFile request</faultstring></soapenv:Fault>'));
          return;
        }
        const receivedAt = new Date();
        const document = Buffer.from(riceviFile.File, 'base64');
        if (fault?.kind === 'errore' || document.length === 0) {
          answer(200, answerXml('0', receivedAt, fault?.kind === 'errore' ? fault.code : 'EI01'));
          return;
        }
        const identifier = String(nextIdentifier++);
        received.push({ identifier, fileName: riceviFile.NomeFile, document, receivedAt, outcome: await outcomeOnReceipt(riceviFile.NomeFile, document, receivedAt) });
        if (fault?.kind === 'lost_answer') {
          req.socket.destroy();
          return;
        }
        answer(200, answerXml(identifier, receivedAt));
      })();
    });
  });
  const tlsRefusals: string[] = [];
  server.on('tlsClientError', (error: Error & { code?: string }) => tlsRefusals.push(error.code ?? error.message));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const fileOf = (identifier: string): FakeReceivedFile => {
    const file = received.find((candidate) => candidate.identifier === identifier);
    if (!file) throw new Error(`the fake received no file ${identifier}`);
    return file;
  };

  const notificationFile = (identifier: string, spec: FakeNotificationSpec): { fileName: string; xml: string } => {
    const file = fileOf(identifier);
    const count = (sent.get(`${identifier}_${spec.type}`) ?? 0) + 1;
    sent.set(`${identifier}_${spec.type}`, count);
    const fileName = `${file.fileName.replace(/\.xml(\.p7m)?$/, '')}_${spec.type}_${String(count).padStart(3, '0')}.xml`;
    const messageId = String(nextMessageId++);
    const { root } = NOTIFICATIONS[spec.type];
    const unsigned = `<?xml version="1.0" encoding="UTF-8"?><types:${root} xmlns:types="${MESSAGES_NAMESPACE}" versione="1.0">${notificationBody(file, spec, messageId, new Date())}</types:${root}>`;
    const signature = new SignedXml({
      privateKey: signer.keyPem,
      publicCert: signer.pem,
      signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
      canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
    });
    signature.addReference({
      xpath: '/*',
      uri: '',
      isEmptyUri: true,
      transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/2001/10/xml-exc-c14n#'],
      digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
    });
    signature.computeSignature(unsigned, { prefix: 'ds', location: { reference: '/*', action: 'append' } });
    return { fileName, xml: signature.getSignedXml() };
  };

  const pushRequest: FakeSdiCoop['pushRequest'] = (identifier, spec, pushOptions = {}) => {
    const { fileName, xml } = notificationFile(identifier, spec);
    const { operation } = NOTIFICATIONS[spec.type];
    const element = `${operation[0].toLowerCase()}${operation.slice(1)}`;
    const contentId = `1.${randomBytes(8).toString('hex')}@apache.org`;
    const file =
      pushOptions.encoding === 'inline'
        ? Buffer.from(xml).toString('base64')
        : `<xop:Include xmlns:xop="http://www.w3.org/2004/08/xop/include" href="cid:${encodeURIComponent(contentId)}"/>`;
    const xmlEnvelope = envelope(`<ns2:${element} xmlns:ns2="${TYPES_NAMESPACE}"><IdentificativoSdI>${identifier}</IdentificativoSdI><NomeFile>${fileName}</NomeFile><File>${file}</File></ns2:${element}>`);
    const message = pushOptions.encoding === 'inline' ? { contentType: 'text/xml; charset=UTF-8', body: Buffer.from(xmlEnvelope) } : mtomMessage(xmlEnvelope, [{ contentId, bytes: Buffer.from(xml) }]);
    return { headers: { 'content-type': message.contentType, soapaction: `"http://www.fatturapa.it/TrasmissioneFatture/${operation}"` }, body: message.body, fileName };
  };

  const push: FakeSdiCoop['push'] = async (url, identifier, spec, pushOptions) => {
    const { headers, body } = pushRequest(identifier, spec, pushOptions);
    const response = await request(url, { method: 'POST', headers, body });
    return { statusCode: response.statusCode, body: await response.body.text() };
  };

  return {
    url: `https://127.0.0.1:${port}/ricevi_file`,
    requests,
    tlsRefusals,
    received,
    setFault: (fault, times = 1) => void faults.push({ fault, left: times }),
    clearFaults: () => {
      faults.length = 0;
      for (const socket of hanging) socket.destroy();
      hanging.clear();
    },
    scriptOutcome: (fileName, outcome) => void scripted.set(fileName, outcome),
    notificationFile,
    pushRequest,
    outcomeRequest: (identifier, pushOptions) => pushRequest(identifier, fileOf(identifier).outcome, pushOptions),
    push,
    pushOutcome: (url, identifier, pushOptions) => push(url, identifier, fileOf(identifier).outcome, pushOptions),
    close: async () => {
      for (const socket of hanging) socket.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
