// The SDICoop channel end to end against the fake SdI: files sent over mutual TLS, the SdI's
// pushes read by the TrasmissioneFatture endpoint into the inbox, the worker's questions
// answered from it; a signature the SdI refuses; and no file sent twice when a retry follows a
// lost answer, with the NS 00002 a second copy gets never taken for the invoice's outcome.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DAY_MS } from '../../src/domain/dayLength.js';
import type { TransmissionEnvelope, TransmittedFile } from '../../src/einvoicing/invoiceChannel.js';
import { sdiCoopChannel, type SdiCoopChannel } from '../../src/einvoicing/sdi/sdiCoop/sdiCoopChannel.js';
import { makeSdiCoopPki, startFakeSdiCoop, type FakeSdiCoop, type SdiCoopPki } from '../support/fakeSdiCoop.js';
import { fatturaPaFile, MemoryInbox, startTrasmissioneFattureEndpoint } from './sdiCoopFixtures.js';

let pki: SdiCoopPki;
let sdi: FakeSdiCoop;
let inbox: MemoryInbox;
let endpoint: Awaited<ReturnType<typeof startTrasmissioneFattureEndpoint>>;
let now: Date;
let channel: SdiCoopChannel;

beforeAll(async () => {
  pki = await makeSdiCoopPki();
  sdi = await startFakeSdiCoop({ pki });
  inbox = new MemoryInbox();
  endpoint = await startTrasmissioneFattureEndpoint(inbox);
  channel = sdiCoopChannel(
    { endpoint: sdi.url, clientCertificatePem: pki.client.pem, clientKeyPem: pki.client.keyPem, caPems: [pki.ca.pem], timeoutMs: 3000, pollDelayMs: 5000 },
    inbox,
    () => now,
  );
});

afterEach(() => sdi.clearFaults());

afterAll(async () => {
  await channel.close();
  await endpoint.close();
  await sdi.close();
});

/** The worker's question about a received file, with the notification ids it has applied. */
const ask = (file: TransmittedFile, identifier: string, appliedNotificationIds: string[] = []) => channel.nextNotification(file, { identifier, receivedAt, appliedNotificationIds });
const notificationName = (type: string) => expect.stringMatching(new RegExp(`_${type}_\\d{3}\\.xml$`));

/** Sends the file through the channel; the identifier it was received under. */
async function received(file: TransmittedFile): Promise<string> {
  const receipt = await channel.send(file, ENVELOPE);
  if (receipt.outcome !== 'received') throw new Error(`not received: ${JSON.stringify(receipt)}`);
  return receipt.identifier;
}

const receivedAt = new Date('2026-12-05T08:00:00Z');
/** The SdI addresses the file by its content: the envelope is the worker's, unused here. */
const ENVELOPE: TransmissionEnvelope = { invoiceId: 'inv_1', invoiceNumber: 'A/2026/1', buyerEmail: null };
now = receivedAt;

describe('the SDICoop channel', () => {
  it('takes a signed B2B file, has no notification until the SdI pushes RC, then delivered with 15 days to acceptance', async () => {
    const file = await fatturaPaFile(1);
    const identifier = await received(file);
    expect(channel.pollDelayMs).toBe(5000);
    expect(await ask(file, identifier)).toBeNull();
    expect(await sdi.pushOutcome(endpoint.url, identifier)).toEqual({ statusCode: 202, body: '' });
    const answer = await ask(file, identifier);
    expect(answer).toEqual({ notification: { kind: 'delivered', acceptedAfterDays: 15 }, id: notificationName('RC'), more: false });
    expect(await ask(file, identifier, [answer!.id!])).toBeNull();
  });

  it('a .p7m whose signature does not hold is rejected by the SdI with NS 00102', async () => {
    const file = await fatturaPaFile(2);
    const document = Buffer.from(file.document);
    const at = document.indexOf('<FormatoTrasmissione>FPR12');
    document[at + '<FormatoTrasmissione>'.length + 3] = '3'.charCodeAt(0);
    const broken = { fileName: file.fileName, document };
    const identifier = await received(broken);
    await sdi.pushOutcome(endpoint.url, identifier);
    expect(await ask(broken, identifier)).toEqual({
      notification: { kind: 'rejected', errors: [{ code: '00102', message: 'File non integro (firma non valida)' }] },
      id: notificationName('NS'),
      more: false,
    });
  });

  it('surfaces NS 00404 with the SdI code and what a person must check', async () => {
    const file = await fatturaPaFile(3);
    sdi.scriptOutcome(file.fileName, { type: 'NS', errors: [{ code: '00404', description: 'Fattura duplicata' }] });
    const identifier = await received(file);
    await sdi.pushOutcome(endpoint.url, identifier);
    expect(await ask(file, identifier)).toEqual({
      notification: { kind: 'rejected', errors: [{ code: '00404', message: expect.stringContaining('a person must check whether that one was delivered') }] },
      id: notificationName('NS'),
      more: false,
    });
  });

  it('an unreachable SdI (EI02) gives the worker the unreachable receipt to retry, and the SdI took nothing', async () => {
    const before = sdi.received.length;
    sdi.setFault({ kind: 'errore', code: 'EI02' });
    expect(await channel.send(await fatturaPaFile(4), ENVELOPE)).toMatchObject({ outcome: 'unreachable', errors: [{ code: 'EI02' }] });
    expect(sdi.received.length).toBe(before);
  });

  it('an invoice to a public administration is not decided by MC: RC or AT follows; NE and DT are its answer later', async () => {
    const delivered = await fatturaPaFile(5, { toPublicAdministration: true });
    const first = await received(delivered);
    await sdi.push(endpoint.url, first, { type: 'MC', description: 'Recapito non riuscito' });
    expect(await ask(delivered, first)).toBeNull();
    await sdi.push(endpoint.url, first, { type: 'RC' });
    // Delivered to an administration: its NE or DT may still come, so the worker keeps asking.
    const rc = await ask(delivered, first);
    expect(rc).toEqual({ notification: { kind: 'delivered', acceptedAfterDays: null }, id: notificationName('RC'), more: true });
    expect(await ask(delivered, first, [rc!.id!])).toBeNull();
    await sdi.push(endpoint.url, first, { type: 'NE', esito: 'EC02', description: 'Importo errato' });
    const ne = await ask(delivered, first, [rc!.id!]);
    expect(ne).toEqual({ notification: { kind: 'recipient_refused', errors: [{ code: 'EC02', message: 'Importo errato' }] }, id: notificationName('NE'), more: false });
    expect(await ask(delivered, first, [rc!.id!, ne!.id!])).toBeNull();

    const unreachable = await fatturaPaFile(6, { toPublicAdministration: true });
    const second = await received(unreachable);
    await sdi.push(endpoint.url, second, { type: 'MC' });
    await sdi.push(endpoint.url, second, { type: 'AT' });
    expect(await ask(unreachable, second)).toMatchObject({ notification: { kind: 'undeliverable', errors: [{ code: 'AT' }] }, id: notificationName('AT'), more: false });
  });

  it('a B2B MC decides: undeliverable, the invoice in the reserved area', async () => {
    const file = await fatturaPaFile(7);
    const identifier = await received(file);
    await sdi.push(endpoint.url, identifier, { type: 'MC' });
    expect(await ask(file, identifier)).toMatchObject({ notification: { kind: 'undeliverable', errors: [{ code: 'MC' }] }, id: notificationName('MC'), more: false });
  });
});

describe('a retry after a lost answer', () => {
  it('does not send the file again once the SdI has said something about it', async () => {
    const file = await fatturaPaFile(10);
    sdi.setFault({ kind: 'lost_answer' });
    expect(await channel.send(file, ENVELOPE)).toMatchObject({ outcome: 'unreachable' });
    const copy = sdi.received.at(-1)!;
    expect(copy.fileName).toBe(file.fileName);
    await sdi.pushOutcome(endpoint.url, copy.identifier);

    const requests = sdi.requests.length;
    expect(await channel.send(file, ENVELOPE)).toEqual({ outcome: 'received', identifier: copy.identifier });
    expect(sdi.requests.length).toBe(requests);
    expect(sdi.received.filter(({ fileName }) => fileName === file.fileName)).toHaveLength(1);
    expect(await ask(file, copy.identifier)).toEqual({ notification: { kind: 'delivered', acceptedAfterDays: 15 }, id: notificationName('RC'), more: false });
  });

  it("sent again before any notification came, takes the first copy's outcome, not the second copy's NS 00002", async () => {
    const file = await fatturaPaFile(11);
    sdi.setFault({ kind: 'lost_answer' });
    expect(await channel.send(file, ENVELOPE)).toMatchObject({ outcome: 'unreachable' });
    const first = sdi.received.at(-1)!.identifier;
    const second = await received(file);
    expect(second).not.toBe(first);
    expect(sdi.received.at(-1)!.outcome).toEqual({ type: 'NS', errors: [{ code: '00002', description: `Nome file duplicato: ${file.fileName}` }] });

    await sdi.pushOutcome(endpoint.url, second);
    expect(await ask(file, second)).toBeNull();
    await sdi.pushOutcome(endpoint.url, first);
    expect(await ask(file, second)).toEqual({ notification: { kind: 'delivered', acceptedAfterDays: 15 }, id: notificationName('RC'), more: false });
    expect(await channel.send(file, ENVELOPE)).toEqual({ outcome: 'received', identifier: first });
  });

  it('an NS 00002 alone decides once every file the SdI had must have been notified', async () => {
    const file = await fatturaPaFile(12);
    const identifier = await received(file);
    await sdi.push(endpoint.url, identifier, { type: 'NS', errors: [{ code: '00002', description: 'Nome file duplicato' }] });
    now = new Date(receivedAt.getTime() + 5 * DAY_MS);
    expect(await ask(file, identifier)).toBeNull();
    now = new Date(receivedAt.getTime() + 6 * DAY_MS);
    expect(await ask(file, identifier)).toEqual({
      notification: { kind: 'rejected', errors: [{ code: '00002', message: 'Nome file duplicato: the SdI holds an earlier file of this name that this service has no outcome for' }] },
      id: notificationName('NS'),
      more: false,
    });
    now = receivedAt;
  });
});
