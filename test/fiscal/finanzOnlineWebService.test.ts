import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FinanzOnlineLogin, FinanzOnlineRequest, RegisteredUnit, SubmissionContext } from '../../src/fiscal/rksv/finanzOnline/authority.js';
import { parseRkdbAnswer, RKDB_NAMESPACE, SESSION_NAMESPACE } from '../../src/fiscal/rksv/finanzOnline/rkdbXml.js';
import { FinanzOnlineWebService, type FinanzOnlineWebServiceOptions } from '../../src/fiscal/rksv/finanzOnline/webService.js';
import {
  childNames,
  childOf,
  FAKE_FINANZONLINE_ACCOUNT,
  startFakeFinanzOnline,
  textAt,
  type FakeFinanzOnline,
  type FakeXmlElement,
} from '../support/fakeFinanzOnline.js';

const VENDOR_UID = 'ATU12345678';
const login: FinanzOnlineLogin = { ...FAKE_FINANZONLINE_ACCOUNT };

const certificateUnit: Extract<RegisteredUnit, { kind: 'certificate' }> = { kind: 'certificate', vdaId: 'AT1', unitType: 'HSM_DIENSTLEISTER', certificateSerialHex: '5A3F0C21' };
const closedSystem: Extract<RegisteredUnit, { kind: 'closed_system' }> = {
  kind: 'closed_system',
  identifierType: 'UID',
  identifier: 'ATU87654321',
  keyId: 'K1',
  unitType: 'SW_GGS',
  publicKey: randomBytes(91).toString('base64'),
};
const aesKey = randomBytes(32).toString('base64');
const outageSince = new Date('2024-05-02T08:00:00.000Z');
const recoveredAt = new Date('2024-05-02T11:30:00.000Z');

/** A start receipt's machine-readable code: 13 fields after a leading `_`, `signature` last. */
function receiptCode(signature = randomBytes(64).toString('base64')): string {
  const amounts = ['0,00', '0,00', '0,00', '0,00', '0,00'];
  const fields = ['R1-AT1', 'KASSE-01', 'ST-1', '2024-05-02T08:15:00', ...amounts, randomBytes(8).toString('base64'), '5A3F0C21', randomBytes(8).toString('base64'), signature];
  return `_${fields.join('_')}`;
}
const FAILED_UNIT_SIGNATURE = Buffer.from('Sicherheitseinrichtung ausgefallen', 'utf8').toString('base64');

let fake: FakeFinanzOnline;
let packageNumber = 0;

beforeEach(async () => {
  fake = await startFakeFinanzOnline();
});

afterEach(async () => {
  await fake.close();
});

function client(options: Partial<FinanzOnlineWebServiceOptions> = {}): FinanzOnlineWebService {
  return new FinanzOnlineWebService({ baseUrl: fake.url, vendorUid: VENDOR_UID, transmission: 'T', timeoutMs: 2000, ...options });
}

function context(signal: AbortSignal = new AbortController().signal): SubmissionContext {
  packageNumber += 1;
  return { packageNumber, simulation: 'ok', signal };
}

const logins = () => fake.requests.filter((request) => request.action === 'login');
const rkdbRequests = () => fake.requests.filter((request) => request.endpoint === 'rkdb');

/** An element as [name, text] or, with children, [name, children]: order and values in one comparable value. */
type Shape = [string, string | Shape[]];
const shapeOf = (element: FakeXmlElement): Shape => [element.name, element.children.length ? element.children.map(shapeOf) : element.text];

/** The record element of an rkdb request: the last child of rkdbRequest/rkdb. */
function recordOf(request: { parsed: FakeXmlElement | null }): FakeXmlElement {
  const content = childOf(request.parsed!, 'rkdb');
  return content.children[content.children.length - 1]!;
}

describe('FinanzOnlineWebService against the fake BMF services', () => {
  it('logs in with tid, benid, pin and herstellerid, then sends the registration in that session', async () => {
    const before = Date.now();
    const answer = await client().submit(login, { type: 'register_unit', unit: certificateUnit }, context());

    expect(answer).toEqual({ outcome: 'accepted', code: '0', message: 'Die Sicherheitseinrichtung wurde registriert.', check: null });
    const [loginRequest, rkdbRequest] = fake.requests;
    expect(loginRequest).toMatchObject({ endpoint: 'session', action: 'login', contentType: 'text/xml; charset=utf-8' });
    expect(loginRequest!.parsed).toMatchObject({ name: 'loginRequest', namespace: SESSION_NAMESPACE });
    expect(shapeOf(loginRequest!.parsed!)[1]).toEqual([
      ['tid', login.participantId],
      ['benid', login.userId],
      ['pin', login.pin],
      ['herstellerid', VENDOR_UID],
    ]);

    expect(rkdbRequest).toMatchObject({ endpoint: 'rkdb', action: 'rkdb', contentType: 'text/xml; charset=utf-8' });
    const operation = rkdbRequest!.parsed!;
    expect(operation).toMatchObject({ name: 'rkdbRequest', namespace: RKDB_NAMESPACE });
    expect(childNames(operation)).toEqual(['tid', 'benid', 'id', 'art_uebermittlung', 'rkdb']);
    expect(textAt(operation, 'tid')).toBe(login.participantId);
    expect(textAt(operation, 'benid')).toBe(login.userId);
    expect([...fake.sessions.keys()]).toEqual([textAt(operation, 'id')]);
    expect(textAt(operation, 'art_uebermittlung')).toBe('T');
    const content = childOf(operation, 'rkdb');
    expect(childNames(content)).toEqual(['paket_nr', 'ts_erstellung', 'registrierung_se']);
    expect(textAt(content, 'paket_nr')).toBe(String(packageNumber));
    const createdAt = Date.parse(textAt(content, 'ts_erstellung'));
    expect(createdAt).toBeGreaterThanOrEqual(before);
    expect(createdAt).toBeLessThanOrEqual(Date.now());
    expect(shapeOf(recordOf(rkdbRequest!))).toEqual([
      'registrierung_se',
      [
        ['satznr', '1'],
        ['art_se', 'HSM_DIENSTLEISTER'],
        ['vda_id', 'AT1'],
        ['zertifikatsseriennummer', '5A3F0C21'],
      ],
    ]);
    expect(childOf(recordOf(rkdbRequest!), 'zertifikatsseriennummer').attributes).toEqual({ hex: 'true' });
    expect(fake.registered.units.get('SE:5A3F0C21')).toMatchObject({ vdaId: 'AT1', state: 'in_operation' });
  });

  const qrCode = receiptCode();
  const requestCases: { name: string; before: FinanzOnlineRequest[]; request: FinanzOnlineRequest; record: Shape }[] = [
    {
      name: 'registrierung_ggs for a closed system, the key id as zusatz_ob',
      before: [],
      request: { type: 'register_unit', unit: closedSystem },
      record: [
        'registrierung_ggs',
        [
          ['satznr', '1'],
          ['art_ob', 'UID'],
          ['ob', 'ATU87654321'],
          ['zusatz_ob', 'K1'],
          ['art_se_ggs', 'SW_GGS'],
          ['public_key', closedSystem.publicKey],
        ],
      ],
    },
    {
      name: 'registrierung_kasse',
      before: [],
      request: { type: 'register_cash_register', cashRegisterId: 'KASSE-01', aesKey },
      record: [
        'registrierung_kasse',
        [
          ['satznr', '1'],
          ['kassenidentifikationsnummer', 'KASSE-01'],
          ['benutzerschluessel', aesKey],
        ],
      ],
    },
    {
      name: 'belegpruefung with the code only, not the public key',
      before: [],
      request: { type: 'check_receipt', qrCode, publicKey: 'MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE' },
      record: [
        'belegpruefung',
        [
          ['satznr', '1'],
          ['beleg', qrCode],
        ],
      ],
    },
    {
      name: 'ausfall_se with reason 2 and its beginning',
      before: [{ type: 'register_unit', unit: certificateUnit }],
      request: { type: 'report_unit_outage', unit: certificateUnit, since: outageSince },
      record: [
        'ausfall_se',
        [
          ['satznr', '1'],
          ['zertifikatsseriennummer', '5A3F0C21'],
          ['ausfall', [['begruendung', '2'], ['beginn_ausfall', outageSince.toISOString()]]],
        ],
      ],
    },
    {
      name: 'ausfall_ggs with reason 2',
      before: [{ type: 'register_unit', unit: closedSystem }],
      request: { type: 'report_unit_outage', unit: closedSystem, since: outageSince },
      record: [
        'ausfall_ggs',
        [
          ['satznr', '1'],
          ['art_ob', 'UID'],
          ['ob', 'ATU87654321'],
          ['zusatz_ob', 'K1'],
          ['ausfall', [['begruendung', '2'], ['beginn_ausfall', outageSince.toISOString()]]],
        ],
      ],
    },
    {
      name: 'wiederinbetriebnahme_se with the end of the outage',
      before: [
        { type: 'register_unit', unit: certificateUnit },
        { type: 'report_unit_outage', unit: certificateUnit, since: outageSince },
      ],
      request: { type: 'report_unit_recovery', unit: certificateUnit, at: recoveredAt },
      record: [
        'wiederinbetriebnahme_se',
        [
          ['satznr', '1'],
          ['zertifikatsseriennummer', '5A3F0C21'],
          ['ende_ausfall', recoveredAt.toISOString()],
        ],
      ],
    },
    {
      name: 'wiederinbetriebnahme_ggs',
      before: [
        { type: 'register_unit', unit: closedSystem },
        { type: 'report_unit_outage', unit: closedSystem, since: outageSince },
      ],
      request: { type: 'report_unit_recovery', unit: closedSystem, at: recoveredAt },
      record: [
        'wiederinbetriebnahme_ggs',
        [
          ['satznr', '1'],
          ['art_ob', 'UID'],
          ['ob', 'ATU87654321'],
          ['zusatz_ob', 'K1'],
          ['ende_ausfall', recoveredAt.toISOString()],
        ],
      ],
    },
    {
      name: 'ausfall_kasse with ausserbetriebnahme reason 6',
      before: [{ type: 'register_cash_register', cashRegisterId: 'KASSE-01', aesKey }],
      request: { type: 'decommission_cash_register', cashRegisterId: 'KASSE-01' },
      record: [
        'ausfall_kasse',
        [
          ['satznr', '1'],
          ['kassenidentifikationsnummer', 'KASSE-01'],
          ['ausserbetriebnahme', [['begruendung', '6']]],
        ],
      ],
    },
    {
      name: 'ausfall_se with ausserbetriebnahme reason 6',
      before: [{ type: 'register_unit', unit: certificateUnit }],
      request: { type: 'decommission_unit', unit: certificateUnit },
      record: [
        'ausfall_se',
        [
          ['satznr', '1'],
          ['zertifikatsseriennummer', '5A3F0C21'],
          ['ausserbetriebnahme', [['begruendung', '6']]],
        ],
      ],
    },
    {
      name: 'ausfall_ggs with ausserbetriebnahme reason 6',
      before: [{ type: 'register_unit', unit: closedSystem }],
      request: { type: 'decommission_unit', unit: closedSystem },
      record: [
        'ausfall_ggs',
        [
          ['satznr', '1'],
          ['art_ob', 'UID'],
          ['ob', 'ATU87654321'],
          ['zusatz_ob', 'K1'],
          ['ausserbetriebnahme', [['begruendung', '6']]],
        ],
      ],
    },
  ];

  it.each(requestCases)('sends $name', async ({ before, request, record }) => {
    const service = client();
    for (const earlier of before) expect((await service.submit(login, earlier, context())).code).toBe('0');

    const answer = await service.submit(login, request, context());

    expect(answer).toMatchObject({ outcome: 'accepted', code: '0' });
    const sent = rkdbRequests().at(-1)!;
    expect(childNames(sent.parsed!)).toEqual(['tid', 'benid', 'id', 'art_uebermittlung', 'rkdb']);
    expect(childNames(childOf(sent.parsed!, 'rkdb')).slice(0, 2)).toEqual(['paket_nr', 'ts_erstellung']);
    expect(shapeOf(recordOf(sent))).toEqual(record);
  });

  it('escapes what it puts into the XML', async () => {
    const cashRegisterId = 'KASSE <1> & "2"';
    await client().submit(login, { type: 'register_cash_register', cashRegisterId, aesKey }, context());

    expect(textAt(recordOf(rkdbRequests()[0]!), 'kassenidentifikationsnummer')).toBe(cashRegisterId);
    expect(rkdbRequests()[0]!.body).toContain('KASSE &lt;1&gt; &amp; &quot;2&quot;');
  });

  it('logs in once for two calls of the same user', async () => {
    const service = client();
    await service.submit(login, { type: 'register_unit', unit: certificateUnit }, context());
    await service.submit(login, { type: 'register_cash_register', cashRegisterId: 'KASSE-01', aesKey }, context());

    expect(logins()).toHaveLength(1);
    const [first, second] = rkdbRequests();
    expect(textAt(second!.parsed!, 'id')).toBe(textAt(first!.parsed!, 'id'));
  });

  it('logs in again once when the session expired and repeats the request', async () => {
    const service = client();
    await service.submit(login, { type: 'register_unit', unit: certificateUnit }, context());
    fake.expireSessions();

    const answer = await service.submit(login, { type: 'register_cash_register', cashRegisterId: 'KASSE-01', aesKey }, context());

    expect(answer).toMatchObject({ outcome: 'accepted', code: '0' });
    expect(logins()).toHaveLength(2);
    const [, refused, repeated] = rkdbRequests();
    expect(textAt(repeated!.parsed!, 'id')).not.toBe(textAt(refused!.parsed!, 'id'));
    expect(textAt(repeated!.parsed!, 'id')).toBe([...fake.sessions.keys()][0]);
    expect(fake.registered.cashRegisters.has('KASSE-01')).toBe(true);
  });

  it('gives up as unavailable when the new session is refused as well', async () => {
    fake.setFault({ kind: 'session_expired' }, { times: Infinity });

    const answer = await client().submit(login, { type: 'register_unit', unit: certificateUnit }, context());

    expect(answer).toMatchObject({ outcome: 'unavailable', code: '-1', message: 'Die Session ist ungültig oder abgelaufen.' });
    expect(logins()).toHaveLength(2);
    expect(rkdbRequests()).toHaveLength(2);
  });

  it('tries again after an HTTP 503 and succeeds', async () => {
    fake.setFault({ kind: 'http', status: 503 });

    const answer = await client().submit(login, { type: 'register_unit', unit: certificateUnit }, context());

    expect(answer).toMatchObject({ outcome: 'accepted', code: '0' });
    expect(logins()).toHaveLength(2);
    expect(rkdbRequests()).toHaveLength(1);
  });

  it('answers unavailable HTTP_503 after three tries', async () => {
    fake.setFault({ kind: 'http', status: 503 }, { times: Infinity });

    const answer = await client().submit(login, { type: 'register_unit', unit: certificateUnit }, context());

    expect(answer).toEqual({ outcome: 'unavailable', code: 'HTTP_503', message: 'FinanzOnline answered HTTP 503' });
    expect(fake.requests).toHaveLength(3);
  });

  it('tries again after a reset connection, and answers UNREACHABLE when it stays so', async () => {
    fake.setFault({ kind: 'reset' }, { endpoint: 'rkdb' });
    expect(await client().submit(login, { type: 'register_unit', unit: certificateUnit }, context())).toMatchObject({ outcome: 'accepted' });
    expect(rkdbRequests()).toHaveLength(2);

    fake.setFault({ kind: 'reset' }, { times: Infinity });
    const answer = await client().submit(login, { type: 'register_unit', unit: closedSystem }, context());
    expect(answer).toMatchObject({ outcome: 'unavailable', code: 'UNREACHABLE' });
  });

  it('answers UNREACHABLE when nothing listens', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));

    const answer = await client({ baseUrl: `http://127.0.0.1:${port}/fonws/ws` }).submit(login, { type: 'register_unit', unit: certificateUnit }, context());

    expect(answer).toMatchObject({ outcome: 'unavailable', code: 'UNREACHABLE' });
    expect(answer.message).toContain('ECONNREFUSED');
  });

  it('answers a SOAP Fault as unavailable without trying again', async () => {
    fake.setFault({ kind: 'soap_fault', message: 'Interner Fehler bei der Verarbeitung' }, { endpoint: 'rkdb' });

    const answer = await client().submit(login, { type: 'register_unit', unit: certificateUnit }, context());

    expect(answer).toEqual({ outcome: 'unavailable', code: 'SOAP_FAULT', message: 'FinanzOnline answered a SOAP Fault: Interner Fehler bei der Verarbeitung' });
    expect(rkdbRequests()).toHaveLength(1);
  });

  it('answers an unreadable body as MALFORMED', async () => {
    fake.setFault({ kind: 'http', status: 200 }, { endpoint: 'rkdb' });

    const answer = await client().submit(login, { type: 'register_unit', unit: certificateUnit }, context());

    expect(answer).toMatchObject({ outcome: 'unavailable', code: 'MALFORMED' });
  });

  it('answers TIMEOUT within timeoutMs when FinanzOnline hangs', async () => {
    fake.setFault({ kind: 'hang' }, { endpoint: 'rkdb' });
    const started = Date.now();

    const answer = await client({ timeoutMs: 300 }).submit(login, { type: 'register_unit', unit: certificateUnit }, context());

    expect(answer).toEqual({ outcome: 'unavailable', code: 'TIMEOUT', message: 'FinanzOnline did not answer in time' });
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(600);
  });

  it("answers TIMEOUT when the caller's signal aborts", async () => {
    fake.setFault({ kind: 'hang' }, { times: Infinity });
    const started = Date.now();

    const answer = await client({ timeoutMs: 5000 }).submit(login, { type: 'register_unit', unit: certificateUnit }, context(AbortSignal.timeout(100)));

    expect(answer).toMatchObject({ outcome: 'unavailable', code: 'TIMEOUT' });
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('answers login_refused for invalid credentials and never says the PIN', async () => {
    fake.setFault({ kind: 'login_refused', rc: -4, message: `Die Zugangsdaten (PIN ${login.pin}) sind ungültig.` });

    const answer = await client().submit(login, { type: 'register_unit', unit: certificateUnit }, context());

    expect(answer).toEqual({ outcome: 'login_refused', code: '-4', message: 'Die Zugangsdaten (PIN [redacted]) sind ungültig.' });
    expect(JSON.stringify(answer)).not.toContain(login.pin);
    expect(rkdbRequests()).toHaveLength(0);
  });

  it('answers login_refused -4 for a wrong PIN', async () => {
    const wrongPin = { ...login, pin: 'Falsche-PIN-0000' };

    const answer = await client().submit(wrongPin, { type: 'register_unit', unit: certificateUnit }, context());

    expect(answer).toEqual({ outcome: 'login_refused', code: '-4', message: 'Die Zugangsdaten sind ungültig.' });
    expect(fake.sessions.size).toBe(0);
  });

  it.each([-5, -6, -7, -8] as const)('answers login_refused for login rc %i', async (rc) => {
    fake.setFault({ kind: 'login_refused', rc, message: 'Der Benutzer ist gesperrt.' });

    const answer = await client().submit(login, { type: 'register_unit', unit: certificateUnit }, context());

    expect(answer).toEqual({ outcome: 'login_refused', code: String(rc), message: 'Der Benutzer ist gesperrt.' });
  });

  it('answers maintenance (-2) at login or rkdb as unavailable', async () => {
    fake.setFault({ kind: 'maintenance' }, { endpoint: 'session' });
    expect(await client().submit(login, { type: 'register_unit', unit: certificateUnit }, context())).toEqual({
      outcome: 'unavailable',
      code: '-2',
      message: 'Wartungsarbeiten, bitte später erneut versuchen.',
    });

    fake.setFault({ kind: 'maintenance' });
    expect(await client().submit(login, { type: 'register_unit', unit: certificateUnit }, context())).toMatchObject({ outcome: 'unavailable', code: '-2' });
  });

  it('answers rkdb rc -3 as unavailable and -4 as login_refused', async () => {
    const service = client();
    fake.setFault({ kind: 'business', rc: '-3', message: 'Technischer Fehler.' });
    expect(await service.submit(login, { type: 'register_unit', unit: certificateUnit }, context())).toMatchObject({ outcome: 'unavailable', code: '-3' });

    fake.setFault({ kind: 'business', rc: '-4', message: 'Der Teilnehmer ist für diese Funktion nicht berechtigt.' });
    expect(await service.submit(login, { type: 'register_unit', unit: certificateUnit }, context())).toEqual({
      outcome: 'login_refused',
      code: '-4',
      message: 'Der Teilnehmer ist für diese Funktion nicht berechtigt.',
    });
  });

  it('answers a business code as rejected with its code and message, without trying again', async () => {
    fake.setFault({ kind: 'business', rc: '4', message: '  Zur angegebenen Seriennummer wurde beim VDA kein Zertifikat gefunden.  ' });

    const answer = await client().submit(login, { type: 'register_unit', unit: certificateUnit }, context());

    expect(answer).toEqual({ outcome: 'rejected', code: '4', message: 'Zur angegebenen Seriennummer wurde beim VDA kein Zertifikat gefunden.' });
    expect(rkdbRequests()).toHaveLength(1);
  });

  it('cuts a long message to 300 characters', async () => {
    fake.setFault({ kind: 'business', rc: '28', message: 'x'.repeat(500) });

    const answer = await client().submit(login, { type: 'register_unit', unit: closedSystem }, context());

    expect(answer).toMatchObject({ outcome: 'rejected', code: '28' });
    expect(answer.message).toHaveLength(300);
  });

  it('answers reports about an unknown cash register or unit as rejected B32/B33', async () => {
    const service = client();
    expect(await service.submit(login, { type: 'decommission_cash_register', cashRegisterId: 'KASSE-99' }, context())).toMatchObject({
      outcome: 'rejected',
      code: 'B32',
    });
    expect(await service.submit(login, { type: 'report_unit_outage', unit: certificateUnit, since: outageSince }, context())).toMatchObject({
      outcome: 'rejected',
      code: 'B33',
    });
  });

  it('rejects the test-only trust service AT9 in production transmissions (999)', async () => {
    const testUnit: RegisteredUnit = { ...certificateUnit, vdaId: 'AT9' };

    const answer = await client({ transmission: 'P' }).submit(login, { type: 'register_unit', unit: testUnit }, context());

    expect(answer).toMatchObject({ outcome: 'rejected', code: '999' });
    expect(textAt(rkdbRequests()[0]!.parsed!, 'art_uebermittlung')).toBe('P');
  });

  it('accepts a repeat of what was already done (B1, B10, B28, B13)', async () => {
    const service = client();
    const requests: FinanzOnlineRequest[] = [
      { type: 'register_cash_register', cashRegisterId: 'KASSE-01', aesKey },
      { type: 'register_unit', unit: certificateUnit },
      { type: 'register_unit', unit: closedSystem },
      { type: 'report_unit_outage', unit: certificateUnit, since: outageSince },
    ];
    for (const request of requests) expect(await service.submit(login, request, context())).toMatchObject({ outcome: 'accepted', code: '0' });

    const repeats = [];
    for (const request of requests) repeats.push(await service.submit(login, request, context()));

    expect(repeats.map(({ outcome, code }) => [outcome, code])).toEqual([
      ['accepted', 'B1'],
      ['accepted', 'B10'],
      ['accepted', 'B28'],
      ['accepted', 'B13'],
    ]);
    expect(repeats[0]).toMatchObject({ message: 'Die Registrierkasse ist bereits registriert.', check: null });
  });

  it('answers a passing belegpruefung with every verification, nested ones flattened', async () => {
    const answer = await client().submit(login, { type: 'check_receipt', qrCode: receiptCode(), publicKey: closedSystem.publicKey }, context());

    expect(answer).toEqual({
      outcome: 'accepted',
      code: '0',
      message: 'Die Belegprüfung wurde durchgeführt.',
      check: {
        passed: true,
        results: [
          { id: 'RKSV_FORMAT', name: 'Format des maschinenlesbaren Codes', state: 'PASS', message: null },
          { id: 'RKSV_SIGNATURE', name: 'Signaturprüfung', state: 'PASS', message: null },
          { id: 'RKSV_SIGNATURE_VALUE', name: 'Signaturwert', state: 'PASS', message: null },
          { id: 'RKSV_CERTIFICATE_CHAIN', name: 'Zertifikatskette', state: 'NOT_EXECUTED', message: null },
        ],
      },
    });
  });

  it('answers a failing belegpruefung as accepted with a check that did not pass', async () => {
    const answer = await client().submit(login, { type: 'check_receipt', qrCode: receiptCode(FAILED_UNIT_SIGNATURE), publicKey: '' }, context());

    expect(answer).toMatchObject({ outcome: 'accepted', code: '0' });
    const check = answer.outcome === 'accepted' ? answer.check : null;
    expect(check?.passed).toBe(false);
    expect(check?.results.filter((result) => result.state === 'FAIL').map((result) => result.id)).toEqual(['RKSV_SIGNATURE', 'RKSV_SIGNATURE_VALUE']);
    expect(check?.results[1]?.message).toBe('Die Sicherheitseinrichtung war ausgefallen.');
  });

  it('answers a faulty receipt code as rejected 43', async () => {
    const twelveFields = receiptCode().split('_').slice(0, 13).join('_');

    const answer = await client().submit(login, { type: 'check_receipt', qrCode: twelveFields, publicKey: '' }, context());

    expect(answer).toEqual({ outcome: 'rejected', code: '43', message: 'Der Beleg ist fehlerhaft.' });
  });

  it('answers NO_CREDENTIAL without a request when no login is stored', async () => {
    const answer = await client().submit(null, { type: 'register_unit', unit: certificateUnit }, context());

    expect(answer).toMatchObject({ outcome: 'login_refused', code: 'NO_CREDENTIAL' });
    expect(fake.requests).toHaveLength(0);
  });

  it('logs its sessions out', async () => {
    const service = client();
    await service.submit(login, { type: 'register_unit', unit: certificateUnit }, context());
    const sessionId = [...fake.sessions.keys()][0]!;

    await service.close();

    expect(fake.sessions.size).toBe(0);
    const logout = fake.requests.at(-1)!;
    expect(logout).toMatchObject({ endpoint: 'session', action: 'logout' });
    expect(logout.parsed).toMatchObject({ name: 'logoutRequest', namespace: SESSION_NAMESPACE });
    expect(shapeOf(logout.parsed!)[1]).toEqual([
      ['tid', login.participantId],
      ['benid', login.userId],
      ['id', sessionId],
    ]);
    await service.submit(login, { type: 'register_cash_register', cashRegisterId: 'KASSE-01', aesKey }, context());
    expect(logins()).toHaveLength(2);
  });
});

describe('parseRkdbAnswer', () => {
  it('reads answers without prefixes and judges every message of every result', () => {
    const xml =
      '<Envelope xmlns="http://schemas.xmlsoap.org/soap/envelope/"><Body><rkdbResponse xmlns="https://finanzonline.bmf.gv.at/rkdb">' +
      '<paket_nr>7</paket_nr><ts_erstellung>2024-05-02T08:00:00Z</ts_erstellung>' +
      '<result><satznr>1</satznr><rkdbMessage><rc>0</rc><msg>ok</msg></rkdbMessage><rkdbMessage><rc>B10</rc><msg>schon da</msg></rkdbMessage></result>' +
      '</rkdbResponse></Body></Envelope>';

    expect(parseRkdbAnswer(xml)).toEqual({
      kind: 'answer',
      answer: {
        messages: [
          { rc: '0', message: 'ok' },
          { rc: 'B10', message: 'schon da' },
        ],
        verifications: null,
      },
    });
  });

  it('calls an answer without result malformed', () => {
    const xml = '<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><rkdbResponse><paket_nr>7</paket_nr></rkdbResponse></s:Body></s:Envelope>';

    expect(parseRkdbAnswer(xml)).toEqual({ kind: 'malformed', reason: 'rkdbResponse has no result' });
  });
});
