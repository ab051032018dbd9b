// The SdI's pushes to the transmitter's TrasmissioneFatture service: the fake's notification
// files against the official MessaggiTypes_v1.1.xsd, every type read (MTOM and inline) and mapped
// to the invoice's notification, the requests refused with the reason, and the answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { channelNotificationOf } from '../../src/einvoicing/sdi/sdiCoop/channelNotificationOf.js';
import { readTrasmissioneFattureRequest, trasmissioneFattureAnswer } from '../../src/einvoicing/sdi/sdiCoop/trasmissioneFatture.js';
import { RiceviFileClient } from '../../src/einvoicing/sdi/sdiCoop/riceviFileClient.js';
import { makeSdiCoopPki, startFakeSdiCoop, type FakeNotificationSpec, type FakeSdiCoop, type SdiCoopPki } from '../support/fakeSdiCoop.js';
import { messaggiSchemaErrors } from './messaggiXsd.js';
import { fatturaPaFile, MemoryInbox, startTrasmissioneFattureEndpoint } from './sdiCoopFixtures.js';

let pki: SdiCoopPki;
let sdi: FakeSdiCoop;
let client: RiceviFileClient;
let endpoint: Awaited<ReturnType<typeof startTrasmissioneFattureEndpoint>>;
const inbox = new MemoryInbox();

/** A file the fake received: its identifier and name. */
async function sent(sequence: number, options: { toPublicAdministration?: boolean; signed?: boolean } = {}) {
  const file = await fatturaPaFile(sequence, options);
  const receipt = await client.send(file);
  if (receipt.outcome !== 'received') throw new Error(`not received: ${JSON.stringify(receipt)}`);
  return { identifier: receipt.identifier, file };
}

beforeAll(async () => {
  pki = await makeSdiCoopPki();
  sdi = await startFakeSdiCoop({ pki });
  client = new RiceviFileClient({ endpoint: sdi.url, clientCertificatePem: pki.client.pem, clientKeyPem: pki.client.keyPem, caPems: [pki.ca.pem], timeoutMs: 3000 });
  endpoint = await startTrasmissioneFattureEndpoint(inbox);
});

afterAll(async () => {
  await client.close();
  await endpoint.close();
  await sdi.close();
});

const SPECS: Record<string, FakeNotificationSpec> = {
  RC: { type: 'RC' },
  NS: { type: 'NS', errors: [{ code: '00305', description: '1.4.1.1.2 <IdCodice> non valido' }, { code: '00404', description: 'Fattura duplicata' }] },
  MC: { type: 'MC', description: 'Recapito non riuscito' },
  NE_EC01: { type: 'NE', esito: 'EC01' },
  NE_EC02: { type: 'NE', esito: 'EC02', description: 'Importo errato' },
  DT: { type: 'DT', description: 'Decorsi i termini' },
  AT: { type: 'AT' },
};

describe('the notification files', () => {
  it('of every type are valid against MessaggiTypes_v1.1.xsd, signed as the SdI signs them', async () => {
    const { identifier } = await sent(1, { toPublicAdministration: true });
    const files = Object.values(SPECS).map((spec) => sdi.notificationFile(identifier, spec));
    expect(await messaggiSchemaErrors(...files.map(({ xml }) => xml))).toEqual([]);
    for (const { xml } of files) expect(xml).toMatch(/<ds:Signature xmlns:ds="http:\/\/www\.w3\.org\/2000\/09\/xmldsig#">/);
    expect(files.map(({ fileName }) => fileName.replace(/^IT\d{11}_00001_/, ''))).toEqual(['RC_001.xml', 'NS_001.xml', 'MC_001.xml', 'NE_001.xml', 'NE_002.xml', 'DT_001.xml', 'AT_001.xml']);
  });

  it('an invalid one is caught by the schema check', async () => {
    const { identifier } = await sent(2);
    const { xml } = sdi.notificationFile(identifier, { type: 'RC' });
    expect(await messaggiSchemaErrors(xml.replace(/<MessageId>/, '<Extra>1</Extra><MessageId>'))).not.toEqual([]);
  });
});

describe('readTrasmissioneFattureRequest', () => {
  it('reads every operation, MTOM and inline, into identifier, file name and notification, and maps it', async () => {
    const b2b = await sent(3);
    const pa = await sent(4, { toPublicAdministration: true });
    const cases: { name: string; target: typeof b2b; format: string; spec: FakeNotificationSpec; encoding: 'mtom' | 'inline'; expected: unknown }[] = [
      { name: 'RC B2B', target: b2b, format: 'FPR12', spec: SPECS.RC, encoding: 'mtom', expected: { kind: 'delivered', acceptedAfterDays: 15 } },
      { name: 'RC PA', target: pa, format: 'FPA12', spec: SPECS.RC, encoding: 'inline', expected: { kind: 'delivered', acceptedAfterDays: null } },
      {
        name: 'NS',
        target: b2b,
        format: 'FPR12',
        spec: SPECS.NS,
        encoding: 'inline',
        expected: {
          kind: 'rejected',
          errors: [
            { code: '00305', message: '1.4.1.1.2 <IdCodice> non valido' },
            { code: '00404', message: expect.stringMatching(/^Fattura duplicata: the SdI already holds this invoice from an earlier file; a person must check/) },
          ],
        },
      },
      { name: 'MC', target: b2b, format: 'FPR12', spec: SPECS.MC, encoding: 'mtom', expected: { kind: 'undeliverable', errors: [{ code: 'MC', message: 'Recapito non riuscito' }] } },
      { name: 'NE EC01', target: pa, format: 'FPA12', spec: SPECS.NE_EC01, encoding: 'mtom', expected: { kind: 'recipient_accepted' } },
      { name: 'NE EC02', target: pa, format: 'FPA12', spec: SPECS.NE_EC02, encoding: 'mtom', expected: { kind: 'recipient_refused', errors: [{ code: 'EC02', message: 'Importo errato' }] } },
      { name: 'DT', target: pa, format: 'FPA12', spec: SPECS.DT, encoding: 'mtom', expected: { kind: 'deadline_passed' } },
      { name: 'AT', target: pa, format: 'FPA12', spec: SPECS.AT, encoding: 'mtom', expected: { kind: 'undeliverable', errors: [{ code: 'AT', message: expect.stringContaining('counts as transmitted') }] } },
    ];
    for (const { name, target, format, spec, encoding, expected } of cases) {
      const answer = await sdi.push(endpoint.url, target.identifier, spec, { encoding });
      expect(answer, name).toEqual({ statusCode: 202, body: '' });
      const reading = endpoint.readings.at(-1)!;
      if (reading.outcome !== 'read') throw new Error(`${name}: ${JSON.stringify(reading)}`);
      expect(reading.identifier, name).toBe(target.identifier);
      expect(reading.fileName, name).toMatch(new RegExp(`^${target.file.fileName.replace(/\.xml\.p7m$/, '')}_${spec.type}_\\d{3}\\.xml$`));
      expect(reading.notification, name).toMatchObject({ type: spec.type, identifier: target.identifier, invoiceFileName: target.file.fileName });
      expect(channelNotificationOf(reading.notification, format), name).toEqual(expected);
    }
  });

  it('reads a B2B NS (RicevutaScarto) and MC (RicevutaImpossibilitaRecapito) by their roots', () => {
    const file = (root: string, inner: string) =>
      `<?xml version="1.0" encoding="UTF-8"?><ns3:${root} xmlns:ns3="http://ivaservizi.agenziaentrate.gov.it/docs/xsd/fattura/messaggi/v1.0" versione="1.0"><IdentificativoSdI>77</IdentificativoSdI><NomeFile>IT01234567890_00009.xml</NomeFile>${inner}</ns3:${root}>`;
    const request = (element: string, xml: string) => ({
      contentType: 'text/xml',
      soapAction: undefined,
      body: Buffer.from(
        `<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><t:${element} xmlns:t="http://www.fatturapa.gov.it/sdi/ws/trasmissione/v1.0/types"><IdentificativoSdI>77</IdentificativoSdI><NomeFile>IT01234567890_00009_NS_001.xml</NomeFile><File>${Buffer.from(xml).toString('base64')}</File></t:${element}></s:Body></s:Envelope>`,
      ),
    });
    expect(readTrasmissioneFattureRequest(request('notificaScarto', file('RicevutaScarto', '<ListaErrori><Errore><Codice>00311</Codice><Descrizione>CodiceDestinatario non valido</Descrizione></Errore></ListaErrori>')))).toMatchObject({
      outcome: 'read',
      notification: { type: 'NS', errors: [{ code: '00311', description: 'CodiceDestinatario non valido' }] },
    });
    expect(readTrasmissioneFattureRequest(request('notificaMancataConsegna', file('RicevutaImpossibilitaRecapito', '')))).toMatchObject({ outcome: 'read', notification: { type: 'MC', description: null } });
  });

  it('refuses, with the defect named, what is not a notification of the SdI, and the answer is a SOAP Fault', async () => {
    const { identifier } = await sent(5);
    const { xml } = sdi.notificationFile(identifier, { type: 'RC' });
    const envelope = (element: string, id: string, file: string) =>
      `<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><t:${element} xmlns:t="http://www.fatturapa.gov.it/sdi/ws/trasmissione/v1.0/types"><IdentificativoSdI>${id}</IdentificativoSdI><NomeFile>IT01234567890_00005_RC_009.xml</NomeFile><File>${file}</File></t:${element}></s:Body></s:Envelope>`;
    const read = (body: string, soapAction?: string) => readTrasmissioneFattureRequest({ contentType: 'text/xml; charset=utf-8', soapAction, body: Buffer.from(body) });
    const base64 = Buffer.from(xml).toString('base64');
    expect(read('not xml')).toMatchObject({ outcome: 'unreadable', error: { code: 'SOAP_UNREADABLE' } });
    expect(read(envelope('riceviFatture', identifier, base64))).toMatchObject({ outcome: 'unreadable', error: { code: 'UNKNOWN_OPERATION' } });
    expect(read(envelope('ricevutaConsegna', identifier, base64), '"http://www.fatturapa.it/TrasmissioneFatture/NotificaScarto"')).toMatchObject({
      outcome: 'unreadable',
      error: { code: 'SOAP_ACTION_MISMATCH' },
    });
    expect(read(envelope('ricevutaConsegna', 'x1', base64))).toMatchObject({ outcome: 'unreadable', error: { code: 'FILE_SDI_INVALID' } });
    expect(read(envelope('ricevutaConsegna', identifier, '%%%'))).toMatchObject({ outcome: 'unreadable', error: { code: 'NOTIFICATION_UNREADABLE', message: expect.stringContaining('not base64') } });
    expect(read(envelope('notificaScarto', identifier, base64))).toMatchObject({
      outcome: 'unreadable',
      error: { code: 'NOTIFICATION_UNREADABLE', message: expect.stringContaining('must be NotificaScarto or RicevutaScarto, not RicevutaConsegna') },
    });
    expect(read(envelope('ricevutaConsegna', '123', base64))).toMatchObject({ outcome: 'unreadable', error: { code: 'IDENTIFIER_MISMATCH' } });
    expect(read(envelope('ricevutaConsegna', identifier, base64), 'http://www.fatturapa.it/TrasmissioneFatture/RicevutaConsegna')).toMatchObject({ outcome: 'read', identifier });

    const pushedBefore = endpoint.readings.length;
    const httpAnswer = await fetch(endpoint.url, { method: 'POST', headers: { 'content-type': 'text/xml' }, body: envelope('riceviFatture', identifier, base64) });
    expect(httpAnswer.status).toBe(500);
    expect(await httpAnswer.text()).toMatch(/<soapenv:Fault><faultcode>soapenv:Client<\/faultcode><faultstring>\{http:\/\/www\.fatturapa\.gov\.it\/sdi\/ws\/trasmissione\/v1\.0\/types\}riceviFatture is no TrasmissioneFatture operation<\/faultstring>/);
    expect(endpoint.readings.length).toBe(pushedBefore + 1);
  });

  it('refuses an MTOM request whose xop:Include names a part it does not carry, or that names no boundary', async () => {
    const { identifier } = await sent(6);
    const { xml } = sdi.notificationFile(identifier, { type: 'RC' });
    const boundary = 'MIMEBoundary_test';
    const envelope = `<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><t:ricevutaConsegna xmlns:t="http://www.fatturapa.gov.it/sdi/ws/trasmissione/v1.0/types"><IdentificativoSdI>${identifier}</IdentificativoSdI><NomeFile>IT01234567890_00006_RC_001.xml</NomeFile><File><xop:Include xmlns:xop="http://www.w3.org/2004/08/xop/include" href="cid:file%40test"/></File></t:ricevutaConsegna></s:Body></s:Envelope>`;
    const mtom = (attachmentId: string) =>
      Buffer.from(
        `--${boundary}\r\nContent-Type: application/xop+xml; type="text/xml"\r\nContent-ID: <root;1@test>\r\n\r\n${envelope}\r\n--${boundary}\r\nContent-ID: <${attachmentId}>\r\n\r\n${xml}\r\n--${boundary}--\r\n`,
      );
    const contentType = `multipart/related; type="application/xop+xml"; start="<root;1@test>"; boundary="${boundary}"`;
    expect(readTrasmissioneFattureRequest({ contentType, soapAction: undefined, body: mtom('file@test') })).toMatchObject({ outcome: 'read', identifier, notification: { type: 'RC' } });
    expect(readTrasmissioneFattureRequest({ contentType, soapAction: undefined, body: mtom('other@test') })).toMatchObject({
      outcome: 'unreadable',
      error: { code: 'NOTIFICATION_UNREADABLE', message: expect.stringContaining('names an MTOM part the message does not have (cid:file%40test)') },
    });
    expect(readTrasmissioneFattureRequest({ contentType: 'multipart/related; type="application/xop+xml"', soapAction: undefined, body: mtom('file@test') })).toMatchObject({
      outcome: 'unreadable',
      error: { code: 'SOAP_UNREADABLE', message: 'not a SOAP 1.1 message: the multipart/related message names no boundary' },
    });
  });

  it('answers 202 with nothing for a notification taken, a Server Fault when the receiver could not keep it', () => {
    expect(trasmissioneFattureAnswer({ taken: true })).toEqual({ statusCode: 202, headers: {}, body: '' });
    const fault = trasmissioneFattureAnswer({ taken: false, fault: 'Server', reason: 'storage <unavailable>' });
    expect(fault).toMatchObject({ statusCode: 500, headers: { 'content-type': 'text/xml; charset=utf-8' } });
    expect(fault.body).toContain('<faultcode>soapenv:Server</faultcode><faultstring>storage &lt;unavailable&gt;</faultstring>');
  });
});
