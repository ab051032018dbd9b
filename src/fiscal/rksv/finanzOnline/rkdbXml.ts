import { XMLParser } from 'fast-xml-parser';
import type { FinanzOnlineLogin, FinanzOnlineRequest, RegisteredUnit } from './authority.js';

/**
 * The SOAP 1.1 messages of the BMF's session and Registrierkassen web
 * services (document/literal): envelopes built from the port's requests, and
 * answers read back. Pure: no I/O, no clock.
 */

export const SESSION_NAMESPACE = 'https://finanzonline.bmf.gv.at/fon/ws/session';
export const RKDB_NAMESPACE = 'https://finanzonline.bmf.gv.at/rkdb';
const SOAP_ENVELOPE_NAMESPACE = 'http://schemas.xmlsoap.org/soap/envelope/';

/** art_uebermittlung: T test, P production. */
export type Transmission = 'T' | 'P';

/** ausfall/begruendung: a unit cannot sign. */
const OUTAGE_REASON_SIGNING_IMPOSSIBLE = 2;
/** ausserbetriebnahme/begruendung: a planned decommission. */
const DECOMMISSION_REASON_PLANNED = 6;
/** One record per request, so it is always record 1 and the BMF answers synchronously. */
const RECORD_NUMBER = '1';

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/** Text or an attribute value as XML may carry it. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => XML_ESCAPES[character]!);
}

/** An element with text content. */
function leaf(name: string, text: string | number, attributes: Record<string, string> = {}): string {
  const attributeText = Object.entries(attributes)
    .map(([attribute, value]) => ` ${attribute}="${escapeXml(value)}"`)
    .join('');
  return `<${name}${attributeText}>${escapeXml(String(text))}</${name}>`;
}

/** An element whose children are already XML; `namespace` makes it (and, unprefixed, its descendants) qualified. */
function parent(name: string, children: string[], namespace?: string): string {
  const declaration = namespace ? ` xmlns="${escapeXml(namespace)}"` : '';
  return `<${name}${declaration}>${children.join('')}</${name}>`;
}

/** The operation element in a SOAP 1.1 envelope; both schemas qualify their local elements, hence the default namespace. */
function envelope(operation: string): string {
  return (
    '<?xml version="1.0" encoding="UTF-8"?>' +
    `<soapenv:Envelope xmlns:soapenv="${SOAP_ENVELOPE_NAMESPACE}"><soapenv:Body>${operation}</soapenv:Body></soapenv:Envelope>`
  );
}

/** The session service's `login` (SOAPAction `login`). `vendorUid` is herstellerid, the software vendor's UID. */
export function loginEnvelope(login: FinanzOnlineLogin, vendorUid: string): string {
  return envelope(
    parent(
      'loginRequest',
      [leaf('tid', login.participantId), leaf('benid', login.userId), leaf('pin', login.pin), leaf('herstellerid', vendorUid)],
      SESSION_NAMESPACE,
    ),
  );
}

/** The session service's `logout` (SOAPAction `logout`). */
export function logoutEnvelope(login: Pick<FinanzOnlineLogin, 'participantId' | 'userId'>, sessionId: string): string {
  return envelope(parent('logoutRequest', [leaf('tid', login.participantId), leaf('benid', login.userId), leaf('id', sessionId)], SESSION_NAMESPACE));
}

export interface RkdbEnvelopeInput {
  login: Pick<FinanzOnlineLogin, 'participantId' | 'userId'>;
  sessionId: string;
  transmission: Transmission;
  /** paket_nr, 1..999999999. */
  packageNumber: number;
  /** ts_erstellung. */
  createdAt: Date;
  request: FinanzOnlineRequest;
}

/** The Registrierkassen service's one operation (SOAPAction `rkdb`) carrying one record. */
export function rkdbEnvelope(input: RkdbEnvelopeInput): string {
  const record = recordOf(input.request);
  return envelope(
    parent(
      'rkdbRequest',
      [
        leaf('tid', input.login.participantId),
        leaf('benid', input.login.userId),
        leaf('id', input.sessionId),
        leaf('art_uebermittlung', input.transmission),
        parent('rkdb', [leaf('paket_nr', input.packageNumber), leaf('ts_erstellung', input.createdAt.toISOString()), record]),
      ],
      RKDB_NAMESPACE,
    ),
  );
}

/** The certificate serial, which we always give in hex. */
const certificateSerial = (serialHex: string): string => leaf('zertifikatsseriennummer', serialHex, { hex: 'true' });

/** A closed system's Ordnungsbegriff: art_ob, ob and the key id as zusatz_ob. */
function ordnungsbegriff(unit: Extract<RegisteredUnit, { kind: 'closed_system' }>): string[] {
  return [leaf('art_ob', unit.identifierType), leaf('ob', unit.identifier), leaf('zusatz_ob', unit.keyId)];
}

/** The record's children that name the unit after satznr: the serial for a trust service's unit, the Ordnungsbegriff for a closed system. */
const unitIdentity = (unit: RegisteredUnit): string[] =>
  unit.kind === 'certificate' ? [certificateSerial(unit.certificateSerialHex)] : ordnungsbegriff(unit);

const unitRecordName = (unit: RegisteredUnit, prefix: 'ausfall' | 'wiederinbetriebnahme'): string =>
  `${prefix}_${unit.kind === 'certificate' ? 'se' : 'ggs'}`;

const decommission = (): string => parent('ausserbetriebnahme', [leaf('begruendung', DECOMMISSION_REASON_PLANNED)]);

function recordOf(request: FinanzOnlineRequest): string {
  const recordNumber = leaf('satznr', RECORD_NUMBER);
  switch (request.type) {
    case 'register_unit': {
      const { unit } = request;
      if (unit.kind === 'certificate') {
        return parent('registrierung_se', [recordNumber, leaf('art_se', unit.unitType), leaf('vda_id', unit.vdaId), certificateSerial(unit.certificateSerialHex)]);
      }
      return parent('registrierung_ggs', [recordNumber, ...ordnungsbegriff(unit), leaf('art_se_ggs', unit.unitType), leaf('public_key', unit.publicKey)]);
    }
    case 'register_cash_register':
      return parent('registrierung_kasse', [recordNumber, leaf('kassenidentifikationsnummer', request.cashRegisterId), leaf('benutzerschluessel', request.aesKey)]);
    case 'check_receipt':
      // The BMF finds the public key itself; request.publicKey is for the sandbox only.
      return parent('belegpruefung', [recordNumber, leaf('beleg', request.qrCode)]);
    case 'report_unit_outage':
      return parent(unitRecordName(request.unit, 'ausfall'), [
        recordNumber,
        ...unitIdentity(request.unit),
        parent('ausfall', [leaf('begruendung', OUTAGE_REASON_SIGNING_IMPOSSIBLE), leaf('beginn_ausfall', request.since.toISOString())]),
      ]);
    case 'report_unit_recovery':
      return parent(unitRecordName(request.unit, 'wiederinbetriebnahme'), [recordNumber, ...unitIdentity(request.unit), leaf('ende_ausfall', request.at.toISOString())]);
    case 'decommission_cash_register':
      return parent('ausfall_kasse', [recordNumber, leaf('kassenidentifikationsnummer', request.cashRegisterId), decommission()]);
    case 'decommission_unit':
      return parent(unitRecordName(request.unit, 'ausfall'), [recordNumber, ...unitIdentity(request.unit), decommission()]);
  }
}

/** A SOAP answer read: the operation's answer, a SOAP Fault, or something that is neither. */
export type SoapReading<T> =
  | { kind: 'answer'; answer: T }
  | { kind: 'fault'; faultCode: string; faultString: string }
  | { kind: 'malformed'; reason: string };

export interface LoginAnswer {
  rc: number;
  /** The session id; null when the login was refused. */
  sessionId: string | null;
  message: string;
}

export type VerificationState = 'PASS' | 'FAIL' | 'NOT_EXECUTED';

export interface Verification {
  id: string;
  name: string;
  state: VerificationState;
  /** verificationResultDetailedMessage. */
  message: string | null;
}

export interface RkdbAnswer {
  /** Every rkdbMessage of every result, in order. */
  messages: { rc: string; message: string }[];
  /** belegpruefung: each verification, nested lists flattened after their parent; null when the answer has no verificationResultList. */
  verifications: Verification[] | null;
}

/** Elements that may repeat; the parser makes them arrays even when they occur once. */
const REPEATING_ELEMENTS = new Set(['result', 'rkdbMessage', 'verificationResult']);

// The BMF's prefixes vary (ns2:, ns5:, none), so they are dropped; values stay text ("0", "B1", leading zeros).
const parser = new XMLParser({
  removeNSPrefix: true,
  ignoreAttributes: true,
  parseTagValue: false,
  trimValues: true,
  isArray: (tagName) => REPEATING_ELEMENTS.has(tagName),
});

type XmlRecord = Record<string, unknown>;

const isRecord = (value: unknown): value is XmlRecord => typeof value === 'object' && value !== null && !Array.isArray(value);

/** An element's text: a text-only element parses to a string, an empty one to ''. */
const textOf = (value: unknown): string | null => (typeof value === 'string' ? value : null);

const recordsOf = (value: unknown): XmlRecord[] => (Array.isArray(value) ? value.filter(isRecord) : []);

/** The SOAP body's operation element, or why there is none. */
function readBody(xml: string, operation: string): SoapReading<XmlRecord> {
  let document: unknown;
  try {
    document = parser.parse(xml, true);
  } catch {
    return { kind: 'malformed', reason: 'the answer is not XML' };
  }
  const soapEnvelope = isRecord(document) ? document.Envelope : undefined;
  const body = isRecord(soapEnvelope) ? soapEnvelope.Body : undefined;
  if (!isRecord(body)) return { kind: 'malformed', reason: 'the answer has no SOAP Envelope/Body' };
  if (isRecord(body.Fault)) {
    return { kind: 'fault', faultCode: textOf(body.Fault.faultcode) ?? '', faultString: textOf(body.Fault.faultstring) ?? '' };
  }
  const answer = body[operation];
  if (!isRecord(answer)) return { kind: 'malformed', reason: `the answer has no ${operation}` };
  return { kind: 'answer', answer };
}

/** The session rc, an int. */
function sessionRcOf(answer: XmlRecord): number | null {
  const rc = textOf(answer.rc);
  return rc !== null && /^-?\d+$/.test(rc) ? Number(rc) : null;
}

/** A SOAP Fault in any answer (the BMF sends them with HTTP 500); null when the body is none. */
export function soapFaultOf(xml: string): { faultCode: string; faultString: string } | null {
  const reading = readBody(xml, 'Fault');
  return reading.kind === 'fault' ? { faultCode: reading.faultCode, faultString: reading.faultString } : null;
}

export function parseLoginAnswer(xml: string): SoapReading<LoginAnswer> {
  const reading = readBody(xml, 'loginResponse');
  if (reading.kind !== 'answer') return reading;
  const rc = sessionRcOf(reading.answer);
  if (rc === null) return { kind: 'malformed', reason: 'loginResponse has no numeric rc' };
  const sessionId = textOf(reading.answer.id);
  if (rc === 0 && !sessionId) return { kind: 'malformed', reason: 'loginResponse has rc 0 but no session id' };
  return { kind: 'answer', answer: { rc, sessionId: rc === 0 ? sessionId : null, message: textOf(reading.answer.msg) ?? '' } };
}

const VERIFICATION_STATES: readonly string[] = ['PASS', 'FAIL', 'NOT_EXECUTED'] satisfies VerificationState[];

/** A verificationResultList's entries and their nested lists, depth first; null when an entry lacks its id, name or a known state. */
function flattenVerifications(list: XmlRecord): Verification[] | null {
  const flattened: Verification[] = [];
  for (const result of recordsOf(list.verificationResult)) {
    const id = textOf(result.verificationId);
    const name = textOf(result.verificationName);
    const state = textOf(result.verificationState);
    if (id === null || name === null || state === null || !VERIFICATION_STATES.includes(state)) return null;
    flattened.push({ id, name, state: state as VerificationState, message: textOf(result.verificationResultDetailedMessage) || null });
    if (isRecord(result.verificationResultList)) {
      const nested = flattenVerifications(result.verificationResultList);
      if (nested === null) return null;
      flattened.push(...nested);
    }
  }
  return flattened;
}

export function parseRkdbAnswer(xml: string): SoapReading<RkdbAnswer> {
  const reading = readBody(xml, 'rkdbResponse');
  if (reading.kind !== 'answer') return reading;
  const results = recordsOf(reading.answer.result);
  if (results.length === 0) return { kind: 'malformed', reason: 'rkdbResponse has no result' };
  const messages: RkdbAnswer['messages'] = [];
  let verifications: Verification[] | null = null;
  for (const result of results) {
    const resultMessages = recordsOf(result.rkdbMessage);
    if (resultMessages.length === 0) return { kind: 'malformed', reason: 'an rkdbResponse result has no rkdbMessage' };
    for (const message of resultMessages) {
      const rc = textOf(message.rc);
      if (!rc) return { kind: 'malformed', reason: 'an rkdbMessage has no rc' };
      messages.push({ rc, message: textOf(message.msg) ?? '' });
    }
    if (isRecord(result.verificationResultList)) {
      const flattened = flattenVerifications(result.verificationResultList);
      if (flattened === null) return { kind: 'malformed', reason: 'a verificationResult lacks its id, name or state' };
      verifications = [...(verifications ?? []), ...flattened];
    }
  }
  return { kind: 'answer', answer: { messages, verifications } };
}
