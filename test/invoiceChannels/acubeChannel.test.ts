// What each of A-Cube's failures means for a file handed over (src/einvoicing/sdi/acube/acubeChannel.ts),
// against the fake A-Cube without the app: its validation's 400 or 422 to POST /invoices refuses the
// file (`rejected`, with its violations), every other failure leaves the file to be sent again
// (`unreachable`). A violation never carries the password.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fatturaPaFormat } from '../../src/einvoicing/fatturapa/index.js';
import type { InvoiceChannel, TransmittedFile } from '../../src/einvoicing/invoiceChannel.js';
import { acubeChannel } from '../../src/einvoicing/sdi/acube/acubeChannel.js';
import { AcubeClient } from '../../src/einvoicing/sdi/acube/acubeClient.js';
import { invoice } from '../einvoicing/fatturapaFixtures.js';
import { ACUBE_EMAIL, ACUBE_PASSWORD, FakeAcube, type AcubeFault } from '../support/fakeAcube.js';

let acube: FakeAcube;
let channel: InvoiceChannel;
let sequence = 0;

beforeAll(async () => {
  acube = await FakeAcube.start();
  const client = new AcubeClient({ apiUrl: acube.baseUrl, loginUrl: acube.baseUrl, email: ACUBE_EMAIL, password: ACUBE_PASSWORD }, 1500);
  channel = acubeChannel(client, 100);
});
afterEach(() => acube.clearFaults());
afterAll(() => acube.close());

/** A FatturaPA file of its own number, so no earlier test's copy answers for it. */
function nextFile(): TransmittedFile {
  sequence += 1;
  const built = fatturaPaFormat.build(invoice({ invoiceNumber: `FT/2025/${sequence}`, transmissionSequence: sequence }));
  return { fileName: built.fileName, document: Buffer.from(built.xml, 'utf8') };
}

const send = (file: TransmittedFile) => channel.send(file, { invoiceId: `inv_${sequence}`, invoiceNumber: `FT/2025/${sequence}`, buyerEmail: null });
const onPost = (method: string, path: string) => method === 'POST' && path === '/invoices';

describe("A-Cube's answer to POST /invoices", () => {
  it('refuses the file on a 400 with violations: one error each, where and what', async () => {
    acube.failNext(
      { kind: 'violations', status: 400, violations: [{ propertyPath: 'content', message: 'The XML does not validate against the FatturaPA schema.' }, { propertyPath: '', message: 'Invalid invoice.' }] },
      onPost,
    );
    expect(await send(nextFile())).toEqual({
      outcome: 'rejected',
      errors: [
        { code: 'ACUBE_REJECTED', message: 'content: The XML does not validate against the FatturaPA schema.' },
        { code: 'ACUBE_REJECTED', message: 'Invalid invoice.' },
      ],
    });
  });

  it('refuses the file on a 422', async () => {
    acube.failNext({ kind: 'violations', status: 422, violations: [{ propertyPath: 'content', message: 'This value should not be blank.' }] }, onPost);
    expect(await send(nextFile())).toEqual({ outcome: 'rejected', errors: [{ code: 'ACUBE_REJECTED', message: 'content: This value should not be blank.' }] });
  });

  it('keeps the password out of a violation that echoes it', async () => {
    acube.failNext({ kind: 'violations', status: 400, violations: [{ propertyPath: 'password', message: `"${ACUBE_PASSWORD}" is not a field of an invoice.` }] }, onPost);
    const receipt = await send(nextFile());
    expect(receipt).toEqual({ outcome: 'rejected', errors: [{ code: 'ACUBE_REJECTED', message: 'password: "[redacted]" is not a field of an invoice.' }] });
  });

  const retried: [string, AcubeFault, string][] = [
    ['401, also with a fresh token', { kind: 'status', status: 401, message: 'Invalid JWT Token' }, 'ACUBE_UNAUTHORIZED'],
    ['403 (a disabled account)', { kind: 'status', status: 403, message: 'Account is disabled.' }, 'ACUBE_FORBIDDEN'],
    ['404 (a base_url that is not the API)', { kind: 'status', status: 404, message: 'Not Found' }, 'ACUBE_REJECTED'],
    ['409 (the next attempt looks the file up first)', { kind: 'status', status: 409, message: 'Conflict' }, 'ACUBE_REJECTED'],
    ['429', { kind: 'status', status: 429, retryAfter: '3', message: 'Too Many Requests' }, 'ACUBE_RATE_LIMITED'],
    ['500', { kind: 'status', status: 500, message: 'Internal Server Error' }, 'ACUBE_UNAVAILABLE'],
    ['503', { kind: 'status', status: 503, message: 'Service Unavailable' }, 'ACUBE_UNAVAILABLE'],
  ];
  it.each(retried)('leaves the file to be sent again on a %s', async (_name, fault, code) => {
    // Twice: a 401 is answered once more after the renewed login.
    acube.failNext(fault, onPost, 2);
    const file = nextFile();
    const receipt = await send(file);
    expect(receipt).toMatchObject({ outcome: 'unreachable', errors: [{ code }] });
    if (fault.kind === 'status' && fault.retryAfter) expect(receipt).toMatchObject({ retryAfterMs: 3000 });
    acube.clearFaults();
    expect(await send(file)).toMatchObject({ outcome: 'received' });
    expect(acube.received(`FT/2025/${sequence}`)).toHaveLength(1);
  });

  it('leaves the file to be sent again on a timeout', async () => {
    acube.failNext({ kind: 'hang' }, onPost);
    expect(await send(nextFile())).toMatchObject({ outcome: 'unreachable', errors: [{ code: 'ACUBE_TIMEOUT' }] });
  });

  it('does not take a 400 to the look-up before the send for a refusal of the file', async () => {
    acube.failNext({ kind: 'violations', status: 400, violations: [{ propertyPath: 'invoice_number', message: 'Unknown filter.' }] }, (method, path) => method === 'GET' && path === '/invoices');
    const file = nextFile();
    expect(await send(file)).toMatchObject({ outcome: 'unreachable', errors: [{ code: 'ACUBE_REJECTED' }] });
    expect(acube.calls.filter((c) => onPost(c.method, c.path) && c.body.equals(Buffer.from(file.document)))).toHaveLength(0);
  });
});

describe('the look-up before every send (GET /invoices, API Platform filters)', () => {
  /** A file numbered `number` (the fixture's seller and date). */
  const fileNumbered = (number: string): TransmittedFile => {
    sequence += 1;
    const built = fatturaPaFormat.build(invoice({ invoiceNumber: number, transmissionSequence: sequence }));
    return { fileName: built.fileName, document: Buffer.from(built.xml, 'utf8') };
  };
  const lookups = () => acube.calls.filter((call) => call.method === 'GET' && call.path === '/invoices');

  it("filters by the seller's partita IVA and the number, and reads the number and date from the listed payload", async () => {
    const file = fileNumbered(`LK/${Date.now()}`);
    const first = await send(file);
    expect(first).toMatchObject({ outcome: 'received' });
    // The first answer lost: the same file handed over again is found, not sent twice.
    expect(await send(file)).toEqual(first);
    const query = lookups().at(-1)!.query;
    expect(query.get('sender.business_vat_number_code')).toMatch(/^\d{11}$/);
    expect(query.get('invoice_number')).toMatch(/^LK\//);
  });

  it('does not take another invoice whose number merely contains this one (the number filter is a partial match)', async () => {
    const stem = `PM/${Date.now()}`;
    expect(await send(fileNumbered(`${stem}1`))).toMatchObject({ outcome: 'received' });
    const posts = acube.calls.filter((call) => onPost(call.method, call.path)).length;
    const shorter = await send(fileNumbered(stem));
    expect(shorter).toMatchObject({ outcome: 'received' });
    expect(acube.calls.filter((call) => onPost(call.method, call.path))).toHaveLength(posts + 1);
  });
});
