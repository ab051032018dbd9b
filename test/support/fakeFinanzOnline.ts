// A fake of the BMF's FinanzOnline session and Registrierkassen (rkdb) web services over node:http
// on 127.0.0.1: SOAP 1.1 in and out, accounts checked at login, session ids issued and expired,
// units and cash registers kept so that repeats and reports about unknown ones answer as the BMF
// does, belegpruefung with a verificationResultList, and the services' faults on demand. Every
// request is recorded with its body and its operation element parsed (order and namespaces kept).
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { XMLParser } from 'fast-xml-parser';

const SESSION_NAMESPACE = 'https://finanzonline.bmf.gv.at/fon/ws/session';
const RKDB_NAMESPACE = 'https://finanzonline.bmf.gv.at/rkdb';
const SOAP_NAMESPACE = 'http://schemas.xmlsoap.org/soap/envelope/';
const BASE_PATH = '/fonws/ws';

/** A FinanzOnline web service user the fake knows. */
export interface FakeFinanzOnlineAccount {
  participantId: string;
  userId: string;
  pin: string;
}

/** The one account the fake knows unless told others. */
export const FAKE_FINANZONLINE_ACCOUNT: FakeFinanzOnlineAccount = {
  participantId: 'FON4711ABCD',
  userId: 'wsuser01',
  pin: 'Geheim-PIN-9f3c1a',
};

/** An element of a request as the fake read it: local name, namespace URI resolved from the in-scope declarations. */
export interface FakeXmlElement {
  name: string;
  namespace: string | null;
  /** Attributes other than namespace declarations, by their name as written. */
  attributes: Record<string, string>;
  children: FakeXmlElement[];
  /** The element's own text, trimmed. */
  text: string;
}

export type FakeEndpoint = 'session' | 'rkdb';

export interface FakeFinanzOnlineRequest {
  /** null for a path that is neither service. */
  endpoint: FakeEndpoint | null;
  /** The SOAPAction header, quotes removed. */
  action: string;
  contentType: string;
  body: string;
  /** The operation element in the SOAP Body (loginRequest, rkdbRequest, ...); null when the body is not a SOAP envelope. */
  parsed: FakeXmlElement | null;
}

/**
 * What the fake does instead of its normal answer:
 * - `http`: answers that status with an HTML page (503 as the BMF's front end does in maintenance windows);
 * - `soap_fault`: HTTP 500 with a soap:Server Fault;
 * - `hang`: reads the request and never answers;
 * - `reset`: reads the request and resets the connection;
 * - `login_refused`: a login answers that rc (-4 credentials invalid unless told), with `message` as msg;
 * - `maintenance`: rc -2 (a login's rc, or an rkdb rkdbMessage);
 * - `business`: the next rkdb request answers this business rc and msg, changing nothing;
 * - `session_expired`: an rkdb request answers rc -1, as for an expired session.
 */
export type FakeFinanzOnlineFault =
  | { kind: 'http'; status: number }
  | { kind: 'soap_fault'; message?: string }
  | { kind: 'hang' }
  | { kind: 'reset' }
  | { kind: 'login_refused'; rc?: -4 | -5 | -6 | -7 | -8; message?: string }
  | { kind: 'maintenance' }
  | { kind: 'business'; rc: string; message: string }
  | { kind: 'session_expired' };

export interface FakeFaultOptions {
  /** How many matching requests get the fault; Infinity until clearFaults(). Default 1. */
  times?: number;
  /**
   * Which service's requests it hits. Defaults: login_refused hits logins only; business and
   * session_expired hit rkdb; maintenance hits rkdb; http, soap_fault, hang and reset hit both.
   */
  endpoint?: FakeEndpoint | 'any';
}

/** A signature unit FinanzOnline holds. */
export interface FakeRegisteredUnit {
  kind: 'se' | 'ggs';
  /** registrierung_se: vda_id. */
  vdaId: string | null;
  /** SE:<serial upper case> or GGS:<art_ob>:<ob>:<zusatz_ob>. */
  key: string;
  state: 'in_operation' | 'outage' | 'decommissioned';
}

export interface FakeRegisteredCashRegister {
  cashRegisterId: string;
  aesKey: string;
  state: 'in_operation' | 'decommissioned';
}

export interface FakeFinanzOnline {
  /** The base URL the client takes: http://127.0.0.1:PORT/fonws/ws. */
  url: string;
  requests: FakeFinanzOnlineRequest[];
  /** Live session ids and whose they are. */
  sessions: Map<string, { participantId: string; userId: string }>;
  registered: { units: Map<string, FakeRegisteredUnit>; cashRegisters: Map<string, FakeRegisteredCashRegister> };
  setFault(fault: FakeFinanzOnlineFault, options?: FakeFaultOptions): void;
  /** Drops pending faults and ends hanging requests. */
  clearFaults(): void;
  /** Every session id now answers rc -1, as after the BMF's session timeout. */
  expireSessions(): void;
  close(): Promise<void>;
}

export interface FakeFinanzOnlineOptions {
  accounts?: FakeFinanzOnlineAccount[];
}

/** The child of `element` named `name` (then the next name, ...); throws when there is none, to make a test's failure clear. */
export function childOf(element: FakeXmlElement, ...names: string[]): FakeXmlElement {
  return names.reduce((current, name) => {
    const found = current.children.find((candidate) => candidate.name === name);
    if (!found) throw new Error(`<${current.name}> has no <${name}> (children: ${childNames(current).join(', ')})`);
    return found;
  }, element);
}

export const childNames = (element: FakeXmlElement): string[] => element.children.map((child) => child.name);

/** The text of the child `names` leads to. */
export const textAt = (element: FakeXmlElement, ...names: string[]): string => childOf(element, ...names).text;

// Order-preserving, prefixes kept: namespaces are resolved below from the declarations.
const requestParser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
});

type OrderedNode = Record<string, unknown> & { ':@'?: Record<string, string> };

function elementsOf(nodes: OrderedNode[], scope: Record<string, string>): FakeXmlElement[] {
  const elements: FakeXmlElement[] = [];
  for (const node of nodes) {
    const tag = Object.keys(node).find((key) => key !== ':@' && key !== '#text' && !key.startsWith('?'));
    if (!tag) continue;
    const rawAttributes = node[':@'] ?? {};
    const inScope = { ...scope };
    const attributes: Record<string, string> = {};
    for (const [attribute, value] of Object.entries(rawAttributes)) {
      if (attribute === 'xmlns') inScope[''] = value;
      else if (attribute.startsWith('xmlns:')) inScope[attribute.slice('xmlns:'.length)] = value;
      else attributes[attribute] = value;
    }
    const [prefix, name] = tag.includes(':') ? tag.split(':', 2) : ['', tag];
    const content = node[tag] as OrderedNode[];
    const text = content
      .map((child) => child['#text'])
      .filter((value) => value !== undefined)
      .join('');
    elements.push({ name: name!, namespace: inScope[prefix!] ?? null, attributes, children: elementsOf(content, inScope), text: String(text).trim() });
  }
  return elements;
}

/** The operation element inside soap:Envelope/soap:Body, or null. */
function operationOf(body: string): FakeXmlElement | null {
  let nodes: OrderedNode[];
  try {
    nodes = requestParser.parse(body, true) as OrderedNode[];
  } catch {
    return null;
  }
  const [envelope] = elementsOf(nodes, {});
  if (!envelope || envelope.name !== 'Envelope' || envelope.namespace !== SOAP_NAMESPACE) return null;
  const soapBody = envelope.children.find((child) => child.name === 'Body' && child.namespace === SOAP_NAMESPACE);
  return soapBody?.children[0] ?? null;
}

const escape = (text: string): string =>
  text.replace(/[&<>"]/g, (character) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[character]!);

const soapEnvelope = (content: string): string =>
  `<?xml version="1.0" encoding="UTF-8"?><soap:Envelope xmlns:soap="${SOAP_NAMESPACE}"><soap:Body>${content}</soap:Body></soap:Envelope>`;

const soapFault = (faultCode: 'Client' | 'Server', faultString: string): string =>
  soapEnvelope(`<soap:Fault><faultcode>soap:${faultCode}</faultcode><faultstring>${escape(faultString)}</faultstring></soap:Fault>`);

/** The session service answers with prefix ns2. */
function sessionAnswer(operation: 'loginResponse' | 'logoutResponse', fields: [string, string | number][]): string {
  const children = fields.map(([name, value]) => `<ns2:${name}>${escape(String(value))}</ns2:${name}>`).join('');
  return soapEnvelope(`<ns2:${operation} xmlns:ns2="${SESSION_NAMESPACE}">${children}</ns2:${operation}>`);
}

interface FakeVerification {
  id: string;
  name: string;
  state: 'PASS' | 'FAIL' | 'NOT_EXECUTED';
  detail?: string;
  nested?: FakeVerification[];
}

/** A verificationResultList, unprefixed in a default namespace as the BMF nests it. */
function verificationList(verifications: FakeVerification[]): string {
  const entries = verifications.map((verification) => {
    const detail = verification.detail ? `<verificationResultDetailedMessage>${escape(verification.detail)}</verificationResultDetailedMessage>` : '';
    const nested = verification.nested ? verificationList(verification.nested) : '';
    return (
      `<verificationResult><verificationId>${verification.id}</verificationId><version>1.0</version>` +
      `<verificationName>${escape(verification.name)}</verificationName><verificationState>${verification.state}</verificationState>` +
      `${detail}<verificationTimestamp>${new Date().toISOString()}</verificationTimestamp>${nested}</verificationResult>`
    );
  });
  return `<verificationResultList xmlns="${RKDB_NAMESPACE}">${entries.join('')}</verificationResultList>`;
}

/** The rkdb service answers with prefix ns5. */
function rkdbAnswer(packageNumber: string, transmission: string, rc: string, message: string, verifications?: FakeVerification[]): string {
  const list = verifications ? verificationList(verifications) : '';
  return soapEnvelope(
    `<ns5:rkdbResponse xmlns:ns5="${RKDB_NAMESPACE}"><ns5:paket_nr>${escape(packageNumber)}</ns5:paket_nr>` +
      `<ns5:art_uebermittlung>${escape(transmission)}</ns5:art_uebermittlung><ns5:ts_erstellung>${new Date().toISOString()}</ns5:ts_erstellung>` +
      `<ns5:result><ns5:satznr>1</ns5:satznr><ns5:rkdbMessage><ns5:rc>${escape(rc)}</ns5:rc><ns5:msg>${escape(message)}</ns5:msg></ns5:rkdbMessage>${list}</ns5:result>` +
      `</ns5:rkdbResponse>`,
  );
}

/** The signature a unit that failed puts on its receipts: base64 of "Sicherheitseinrichtung ausgefallen". */
const FAILED_UNIT_SIGNATURE = Buffer.from('Sicherheitseinrichtung ausgefallen', 'utf8').toString('base64');

const RECORD_KINDS = new Set([
  'registrierung_se',
  'registrierung_ggs',
  'registrierung_kasse',
  'ausfall_se',
  'ausfall_ggs',
  'ausfall_kasse',
  'wiederinbetriebnahme_se',
  'wiederinbetriebnahme_ggs',
  'belegpruefung',
]);

interface PendingFault {
  fault: FakeFinanzOnlineFault;
  endpoint: FakeEndpoint | 'any';
  remaining: number;
}

const defaultEndpointOf = (fault: FakeFinanzOnlineFault): FakeEndpoint | 'any' =>
  fault.kind === 'login_refused' ? 'session' : fault.kind === 'business' || fault.kind === 'session_expired' || fault.kind === 'maintenance' ? 'rkdb' : 'any';

/** What one request is answered: an HTTP status and a body. */
interface Reply {
  status: number;
  body: string;
}

const ok = (body: string): Reply => ({ status: 200, body });
const clientFault = (why: string): Reply => ({ status: 500, body: soapFault('Client', why) });

export async function startFakeFinanzOnline(options: FakeFinanzOnlineOptions = {}): Promise<FakeFinanzOnline> {
  const accounts = options.accounts ?? [FAKE_FINANZONLINE_ACCOUNT];
  const requests: FakeFinanzOnlineRequest[] = [];
  const sessions = new Map<string, { participantId: string; userId: string }>();
  const units = new Map<string, FakeRegisteredUnit>();
  const cashRegisters = new Map<string, FakeRegisteredCashRegister>();
  let faults: PendingFault[] = [];
  const hanging = new Set<ServerResponse>();

  /** The first pending fault for this request, counted down; login_refused spares logouts. */
  function takeFault(endpoint: FakeEndpoint, action: string): FakeFinanzOnlineFault | null {
    const pending = faults.find(
      (entry) =>
        (entry.endpoint === 'any' || entry.endpoint === endpoint) && (entry.fault.kind !== 'login_refused' || action === 'login'),
    );
    if (!pending) return null;
    pending.remaining -= 1;
    faults = faults.filter((entry) => entry.remaining > 0);
    return pending.fault;
  }

  function session(operation: FakeXmlElement, action: string, fault: FakeFinanzOnlineFault | null): Reply {
    const names = childNames(operation);
    if (action === 'login' && operation.name === 'loginRequest') {
      if (names.join() !== 'tid,benid,pin,herstellerid') return clientFault(`loginRequest: unexpected children ${names.join(', ')}`);
      const [tid, benid, pin, vendor] = operation.children.map((child) => child.text);
      if (!/^[0-9A-Za-z]{8,12}$/.test(tid!) || benid!.length < 5 || benid!.length > 12 || pin!.length < 5 || pin!.length > 128) {
        return clientFault('loginRequest: tid, benid or pin does not match the schema');
      }
      if (!/^[0-9A-Za-z]{10,24}$/.test(vendor!)) return clientFault('loginRequest: herstellerid does not match the schema');
      if (fault?.kind === 'maintenance') return ok(sessionAnswer('loginResponse', [['rc', -2], ['msg', 'Wartungsarbeiten, bitte später erneut versuchen.']]));
      if (fault?.kind === 'login_refused') {
        return ok(sessionAnswer('loginResponse', [['rc', fault.rc ?? -4], ['msg', fault.message ?? 'Die Zugangsdaten sind ungültig.']]));
      }
      const account = accounts.find((candidate) => candidate.participantId === tid && candidate.userId === benid && candidate.pin === pin);
      if (!account) return ok(sessionAnswer('loginResponse', [['rc', -4], ['msg', 'Die Zugangsdaten sind ungültig.']]));
      const sessionId = randomBytes(12).toString('base64url');
      sessions.set(sessionId, { participantId: account.participantId, userId: account.userId });
      return ok(sessionAnswer('loginResponse', [['id', sessionId], ['rc', 0]]));
    }
    if (action === 'logout' && operation.name === 'logoutRequest') {
      if (names.join() !== 'tid,benid,id') return clientFault(`logoutRequest: unexpected children ${names.join(', ')}`);
      const [tid, benid, id] = operation.children.map((child) => child.text);
      const owner = sessions.get(id!);
      if (!owner || owner.participantId !== tid || owner.userId !== benid) {
        return ok(sessionAnswer('logoutResponse', [['rc', -1], ['msg', 'Die Session ist ungültig oder abgelaufen.']]));
      }
      sessions.delete(id!);
      return ok(sessionAnswer('logoutResponse', [['rc', 0], ['msg', '']]));
    }
    return clientFault(`SOAPAction "${action}" does not match ${operation.name}`);
  }

  function rkdb(operation: FakeXmlElement, action: string, fault: FakeFinanzOnlineFault | null): Reply {
    if (action !== 'rkdb' || operation.name !== 'rkdbRequest') return clientFault(`SOAPAction "${action}" does not match ${operation.name}`);
    const names = childNames(operation).filter((name) => name !== 'erzwinge_asynchron');
    if (names.slice(0, 4).join() !== 'tid,benid,id,art_uebermittlung' || names.length !== 5 || names[4] !== 'rkdb') {
      return clientFault(`rkdbRequest: unexpected children ${names.join(', ')}`);
    }
    const transmission = textAt(operation, 'art_uebermittlung');
    if (transmission !== 'T' && transmission !== 'P') return clientFault('rkdbRequest: art_uebermittlung must be T or P');
    const content = childOf(operation, 'rkdb');
    const contentNames = childNames(content).filter((name) => name !== 'fastnr');
    if (contentNames.length !== 3 || contentNames[0] !== 'paket_nr' || contentNames[1] !== 'ts_erstellung' || !RECORD_KINDS.has(contentNames[2]!)) {
      return clientFault(`rkdb: unexpected children ${contentNames.join(', ')}`);
    }
    const packageNumber = textAt(content, 'paket_nr');
    if (!/^[1-9]\d{0,8}$/.test(packageNumber)) return clientFault('rkdb: paket_nr must be 1..999999999');
    if (Number.isNaN(Date.parse(textAt(content, 'ts_erstellung')))) return clientFault('rkdb: ts_erstellung is not a dateTime');
    const answer = (rc: string, message: string, verifications?: FakeVerification[]): Reply =>
      ok(rkdbAnswer(packageNumber, transmission, rc, message, verifications));

    if (fault?.kind === 'maintenance') return answer('-2', 'Wartungsarbeiten, bitte später erneut versuchen.');
    const owner = sessions.get(textAt(operation, 'id'));
    if (fault?.kind === 'session_expired' || !owner || owner.participantId !== textAt(operation, 'tid') || owner.userId !== textAt(operation, 'benid')) {
      return answer('-1', 'Die Session ist ungültig oder abgelaufen.');
    }
    if (fault?.kind === 'business') return answer(fault.rc, fault.message);
    const record = content.children.find((child) => RECORD_KINDS.has(child.name))!;
    return recordAnswer(record, transmission, answer);
  }

  function recordAnswer(record: FakeXmlElement, transmission: string, answer: (rc: string, message: string, verifications?: FakeVerification[]) => Reply): Reply {
    if (textAt(record, 'satznr') !== '1') return clientFault('the fake takes one record with satznr 1');
    const seKey = () => `SE:${textAt(record, 'zertifikatsseriennummer').toUpperCase()}`;
    const ggsKey = () => `GGS:${textAt(record, 'art_ob')}:${textAt(record, 'ob')}:${record.children.find((child) => child.name === 'zusatz_ob')?.text ?? ''}`;
    const unknownUnit = () => answer('B33', 'Die Sicherheitseinrichtung ist nicht registriert.');
    const alreadySet = () => answer('B13', 'Der angegebene Status ist bereits gesetzt.');

    /** ausfall_*: an outage, or a decommission, of what `key` names. */
    const outage = (entry: { state: string } | undefined, unknown: () => Reply): Reply => {
      if (!entry) return unknown();
      const next = record.children.some((child) => child.name === 'ausserbetriebnahme') ? 'decommissioned' : 'outage';
      if (entry.state === next || entry.state === 'decommissioned') return alreadySet();
      entry.state = next;
      return answer('0', 'Die Meldung wurde verarbeitet.');
    };

    switch (record.name) {
      case 'registrierung_se': {
        if (childOf(record, 'zertifikatsseriennummer').attributes.hex !== 'true') return clientFault('the fake takes hex serials only');
        const vdaId = textAt(record, 'vda_id');
        if (vdaId === 'AT9' && transmission !== 'T') return answer('999', 'Die VDA-ID AT9 ist nur für Testübermittlungen zulässig.');
        if (units.has(seKey())) return answer('B10', 'Eine Sicherheitseinrichtung mit diesem VDA und dieser Seriennummer ist bereits gespeichert.');
        units.set(seKey(), { kind: 'se', vdaId, key: seKey(), state: 'in_operation' });
        return answer('0', 'Die Sicherheitseinrichtung wurde registriert.');
      }
      case 'registrierung_ggs': {
        if (units.has(ggsKey())) return answer('B28', 'Der öffentliche Schlüssel ist bereits vorhanden.');
        units.set(ggsKey(), { kind: 'ggs', vdaId: null, key: ggsKey(), state: 'in_operation' });
        return answer('0', 'Die Sicherheitseinrichtung wurde registriert.');
      }
      case 'registrierung_kasse': {
        const cashRegisterId = textAt(record, 'kassenidentifikationsnummer');
        if (cashRegisters.has(cashRegisterId)) return answer('B1', 'Die Registrierkasse ist bereits registriert.');
        cashRegisters.set(cashRegisterId, { cashRegisterId, aesKey: textAt(record, 'benutzerschluessel'), state: 'in_operation' });
        return answer('0', 'Die Registrierkasse wurde registriert.');
      }
      case 'ausfall_se':
        return outage(units.get(seKey()), unknownUnit);
      case 'ausfall_ggs':
        return outage(units.get(ggsKey()), unknownUnit);
      case 'ausfall_kasse':
        return outage(cashRegisters.get(textAt(record, 'kassenidentifikationsnummer')), () =>
          answer('B32', 'Die Registrierkasse ist nicht registriert.'),
        );
      case 'wiederinbetriebnahme_se':
      case 'wiederinbetriebnahme_ggs': {
        const unit = units.get(record.name === 'wiederinbetriebnahme_se' ? seKey() : ggsKey());
        if (!unit) return unknownUnit();
        if (unit.state !== 'outage') return alreadySet();
        unit.state = 'in_operation';
        return answer('0', 'Die Wiederinbetriebnahme wurde verarbeitet.');
      }
      default:
        return receiptCheck(textAt(record, 'beleg'), answer);
    }
  }

  /** belegpruefung: 13 `_`-separated fields after a leading `_` pass; a failed unit's signature fails; anything else is rc 43. */
  function receiptCheck(code: string, answer: (rc: string, message: string, verifications?: FakeVerification[]) => Reply): Reply {
    if (code.length < 100 || code.length > 1000) return clientFault('belegpruefung: beleg must be 100 to 1000 characters');
    const fields = code.split('_');
    if (fields.length !== 14 || fields[0] !== '') return answer('43', 'Der Beleg ist fehlerhaft.');
    const signatureFailed = fields[13] === FAILED_UNIT_SIGNATURE;
    return answer('0', 'Die Belegprüfung wurde durchgeführt.', [
      { id: 'RKSV_FORMAT', name: 'Format des maschinenlesbaren Codes', state: 'PASS' },
      {
        id: 'RKSV_SIGNATURE',
        name: 'Signaturprüfung',
        state: signatureFailed ? 'FAIL' : 'PASS',
        ...(signatureFailed ? { detail: 'Die Sicherheitseinrichtung war ausgefallen.' } : {}),
        nested: [
          { id: 'RKSV_SIGNATURE_VALUE', name: 'Signaturwert', state: signatureFailed ? 'FAIL' : 'PASS' },
          { id: 'RKSV_CERTIFICATE_CHAIN', name: 'Zertifikatskette', state: 'NOT_EXECUTED' },
        ],
      },
    ]);
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const path = new URL(request.url ?? '/', 'http://fake').pathname;
    const endpoint: FakeEndpoint | null = path === `${BASE_PATH}/session` ? 'session' : path === `${BASE_PATH}/rkdb` ? 'rkdb' : null;
    const action = String(request.headers.soapaction ?? '').replace(/^"(.*)"$/, '$1');
    const contentType = String(request.headers['content-type'] ?? '');
    const operation = operationOf(body);
    requests.push({ endpoint, action, contentType, body, parsed: operation });
    const send = ({ status, body: answer }: Reply, type = 'text/xml;charset=utf-8') => {
      response.writeHead(status, { 'content-type': type });
      response.end(answer);
    };
    if (!endpoint || request.method !== 'POST') return send({ status: 404, body: '<html><body>Not Found</body></html>' }, 'text/html');

    const fault = takeFault(endpoint, action);
    if (fault?.kind === 'hang') {
      hanging.add(response);
      return;
    }
    if (fault?.kind === 'reset') {
      request.socket.resetAndDestroy();
      return;
    }
    if (fault?.kind === 'http') return send({ status: fault.status, body: `<html><body>HTTP ${fault.status}</body></html>` }, 'text/html');
    if (fault?.kind === 'soap_fault') return send({ status: 500, body: soapFault('Server', fault.message ?? 'Interner Fehler') });

    if (!contentType.startsWith('text/xml')) return send(clientFault(`unsupported content type ${contentType}`));
    const expectedNamespace = endpoint === 'session' ? SESSION_NAMESPACE : RKDB_NAMESPACE;
    if (!operation) return send(clientFault('the body is not a SOAP 1.1 envelope'));
    const outside = [operation, ...operation.children].find((element) => element.namespace !== expectedNamespace);
    if (outside) return send(clientFault(`<${outside.name}> is not in ${expectedNamespace}`));
    return send(endpoint === 'session' ? session(operation, action, fault) : rkdb(operation, action, fault));
  }

  const server = createServer((request, response) => void handle(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const clearFaults = () => {
    faults = [];
    for (const response of hanging) response.destroy();
    hanging.clear();
  };

  return {
    url: `http://127.0.0.1:${port}${BASE_PATH}`,
    requests,
    sessions,
    registered: { units, cashRegisters },
    setFault(fault, faultOptions = {}) {
      faults.push({ fault, endpoint: faultOptions.endpoint ?? defaultEndpointOf(fault), remaining: faultOptions.times ?? 1 });
    },
    clearFaults,
    expireSessions: () => sessions.clear(),
    async close() {
      clearFaults();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
