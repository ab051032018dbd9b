// SdIRiceviFile over mutual TLS against the fake SdI: the identifier for a signed file, the TLS
// refusals, and every fault as the unreachable receipt the transmission worker retries.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { signedContentOf } from '../../src/einvoicing/cades/signedContent.js';
import { RiceviFileClient } from '../../src/einvoicing/sdi/sdiCoop/riceviFileClient.js';
import type { SdiCoopSettings } from '../../src/einvoicing/sdi/sdiCoop/sdiCoopSettings.js';
import { makeSdiCoopPki, startFakeSdiCoop, type FakeSdiCoop, type SdiCoopPki } from '../support/fakeSdiCoop.js';
import { fatturaPaFile } from './sdiCoopFixtures.js';

let pki: SdiCoopPki;
let sdi: FakeSdiCoop;
const clients: RiceviFileClient[] = [];

const settingsFor = (overrides: Partial<SdiCoopSettings> = {}): SdiCoopSettings => ({
  endpoint: sdi.url,
  clientCertificatePem: pki.client.pem,
  clientKeyPem: pki.client.keyPem,
  caPems: [pki.ca.pem],
  timeoutMs: 3000,
  pollDelayMs: 1000,
  ...overrides,
});

const clientWith = (overrides: Partial<SdiCoopSettings> = {}) => {
  const client = new RiceviFileClient(settingsFor(overrides));
  clients.push(client);
  return client;
};

beforeAll(async () => {
  pki = await makeSdiCoopPki();
  sdi = await startFakeSdiCoop({ pki });
});

afterEach(() => sdi.clearFaults());

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await sdi.close();
});

describe('RiceviFile over mutual TLS', () => {
  it('sends a signed file base64 in fileSdIAccoglienza and answers the IdentificativoSdI the SdI gave it', async () => {
    const file = await fatturaPaFile(1);
    expect(file.fileName).toMatch(/^IT\d{11}_00001\.xml\.p7m$/);
    const receipt = await clientWith().send(file);
    const taken = sdi.received.at(-1)!;
    expect(receipt).toEqual({ outcome: 'received', identifier: taken.identifier });
    expect(taken).toMatchObject({ fileName: file.fileName, outcome: { type: 'RC' } });
    expect(taken.document.equals(Buffer.from(file.document))).toBe(true);
    expect(signedContentOf(taken.document).toString('utf8')).toContain('<FormatoTrasmissione>FPR12</FormatoTrasmissione>');
    const request = sdi.requests.at(-1)!;
    expect(request).toMatchObject({ clientCommonName: 'SDI-01234567890', soapAction: 'http://www.fatturapa.it/SdIRiceviFile/RiceviFile' });
    expect(request.contentType).toMatch(/^text\/xml/);
    expect(request.body).toContain('<types:fileSdIAccoglienza xmlns:types="http://www.fatturapa.gov.it/sdi/ws/trasmissione/v1.0/types">');
  });

  it('numbers the files in increasing order and reads a plain text/xml answer as well as an MTOM one', async () => {
    const plain = await startFakeSdiCoop({ pki, answerEncoding: 'plain', firstIdentifier: 900 });
    try {
      const client = clientWith({ endpoint: plain.url });
      const first = await client.send(await fatturaPaFile(2));
      const second = await client.send(await fatturaPaFile(3));
      expect([first, second]).toEqual([
        { outcome: 'received', identifier: '900' },
        { outcome: 'received', identifier: '901' },
      ]);
    } finally {
      await plain.close();
    }
  });

  // TLS 1.3: the server refuses the client certificate after the client's side of the handshake, so the client sees the connection closed.
  const refusedByTls = { outcome: 'unreachable', errors: [{ code: 'SDI_CONNECTION_CLOSED', message: expect.stringContaining("refused the channel's client certificate") }] };

  it('is refused at the TLS layer without a client certificate, and answers unreachable', async () => {
    const before = { requests: sdi.requests.length, refusals: sdi.tlsRefusals.length };
    const receipt = await clientWith({ clientCertificatePem: '', clientKeyPem: '' }).send(await fatturaPaFile(4));
    expect(receipt).toEqual(refusedByTls);
    expect(sdi.requests.length).toBe(before.requests);
    expect(sdi.tlsRefusals.slice(before.refusals)).toEqual([expect.stringMatching(/PEER_DID_NOT_RETURN_A_CERTIFICATE|CERTIFICATE_REQUIRED/)]);
  });

  it('is refused at the TLS layer with a certificate from another CA, naming no key', async () => {
    const before = { requests: sdi.requests.length, refusals: sdi.tlsRefusals.length };
    const receipt = await clientWith({ clientCertificatePem: pki.foreignClient.pem, clientKeyPem: pki.foreignClient.keyPem }).send(await fatturaPaFile(5));
    expect(receipt).toEqual(refusedByTls);
    expect(sdi.requests.length).toBe(before.requests);
    expect(sdi.tlsRefusals.slice(before.refusals)).toHaveLength(1);
    const text = JSON.stringify(receipt);
    expect(text).not.toContain('PRIVATE KEY');
    expect(text).not.toContain(pki.foreignClient.keyPem.split('\n')[1]);
  });

  it('refuses a server whose certificate the configured CA did not sign, saying it was the handshake', async () => {
    const before = sdi.requests.length;
    const receipt = await clientWith({ caPems: [pki.foreignCa.pem] }).send(await fatturaPaFile(6));
    expect(receipt).toEqual({ outcome: 'unreachable', errors: [{ code: 'SDI_TLS_FAILED', message: expect.stringMatching(/^The TLS handshake with the SdI failed \((SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE)\): its server certificate does not verify against the configured CA$/) }] });
    expect(sdi.requests.length).toBe(before);
  });

  it('says the configured certificate and key cannot be used, naming neither', async () => {
    const garbage = '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n';
    for (const clientKeyPem of [garbage, pki.foreignClient.keyPem]) {
      const receipt = await clientWith({ clientKeyPem }).send(await fatturaPaFile(13));
      expect(receipt).toEqual({ outcome: 'unreachable', errors: [{ code: 'SDI_CLIENT_CERTIFICATE_UNUSABLE', message: expect.stringMatching(/^The channel's client certificate and key cannot be used for TLS \(ERR_OSSL_\w+\)/) }] });
      expect(JSON.stringify(receipt)).not.toContain('PRIVATE KEY');
    }
  });

  it('an SdI that refuses connections is unreachable with the code', async () => {
    const receipt = await clientWith({ endpoint: 'https://127.0.0.1:1/ricevi_file' }).send(await fatturaPaFile(14));
    expect(receipt).toEqual({ outcome: 'unreachable', errors: [{ code: 'SDI_UNREACHABLE', message: 'The SdI cannot be reached (ECONNREFUSED)' }] });
  });
});

describe('RiceviFile faults', () => {
  it('EI02 is unreachable with the SdI code, to be retried', async () => {
    sdi.setFault({ kind: 'errore', code: 'EI02' });
    expect(await clientWith().send(await fatturaPaFile(7))).toEqual({
      outcome: 'unreachable',
      errors: [{ code: 'EI02', message: expect.stringContaining('servizio momentaneamente non disponibile') }],
    });
  });

  it('EI03 and EI01 are unreachable with the SdI code, saying a person must act', async () => {
    sdi.setFault({ kind: 'errore', code: 'EI03' });
    expect(await clientWith().send(await fatturaPaFile(8))).toEqual({
      outcome: 'unreachable',
      errors: [{ code: 'EI03', message: expect.stringMatching(/utente non abilitato.*a person must check the SDICoop accreditation/) }],
    });
    const empty = await clientWith().send({ fileName: 'IT01234567890_0000Z.xml', document: new Uint8Array() });
    expect(empty).toEqual({ outcome: 'unreachable', errors: [{ code: 'EI01', message: expect.stringMatching(/file allegato vuoto.*a person must check/) }] });
  });

  it('HTTP 5xx and a SOAP Fault are unreachable with their status and reason', async () => {
    sdi.setFault({ kind: 'http', status: 503 });
    expect(await clientWith().send(await fatturaPaFile(9))).toEqual({ outcome: 'unreachable', errors: [{ code: 'SDI_HTTP_503', message: 'The SdI answered RiceviFile with HTTP 503' }] });
    sdi.setFault({ kind: 'soap_fault', reason: 'Internal Error' });
    expect(await clientWith().send(await fatturaPaFile(10))).toEqual({
      outcome: 'unreachable',
      errors: [{ code: 'SDI_SOAP_FAULT', message: 'The SdI answered RiceviFile with a SOAP Fault (HTTP 500): Internal Error' }],
    });
  });

  it('a hanging SdI is unreachable after the timeout', async () => {
    sdi.setFault({ kind: 'hang' });
    const started = Date.now();
    const receipt = await clientWith({ timeoutMs: 300 }).send(await fatturaPaFile(11));
    expect(receipt).toEqual({ outcome: 'unreachable', errors: [{ code: 'SDI_TIMEOUT', message: expect.stringContaining('whether it received the file is unknown') }] });
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('a connection dropped before the answer is unreachable, though the SdI took the file', async () => {
    sdi.setFault({ kind: 'lost_answer' });
    const file = await fatturaPaFile(12);
    const receipt = await clientWith().send(file);
    expect(receipt).toMatchObject({ outcome: 'unreachable', errors: [{ code: 'SDI_CONNECTION_CLOSED', message: expect.stringContaining('whether it received the file is unknown') }] });
    expect(sdi.received.at(-1)!.fileName).toBe(file.fileName);
  });

  it('a file name the SdI does not take is not sent', async () => {
    const before = sdi.requests.length;
    const receipt = await clientWith().send({ fileName: 'IT0123-45.xml', document: Buffer.from('<x/>') });
    expect(receipt).toMatchObject({ outcome: 'unreachable', errors: [{ code: 'SDI_FILE_NAME_INVALID' }] });
    expect(sdi.requests.length).toBe(before);
  });
});
