// Italian invoices signed CAdES-BES with the organization's fiscal certificate (DESIGN "Fiscal
// certificates and portal credentials"): the stored, served and transmitted file is the
// .xml.p7m, which openssl verifies and whose XML is the valid FatturaPA; the chain hash covers
// it. FPA12 needs a certificate that signs; certificates that are all expired or revoked block
// submission; in both cases nothing is numbered. The sandbox SdI verifies each signature.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHAIN_START, chainHash } from '../../src/domain/invoices/chainHash.js';
import { createTestApp, expectError, json, type TestApp } from '../support/testApp.js';
import {
  expectValidFatturaPa,
  invoiceAction,
  invoicingFixture,
  itInvoice,
  mustCreateInvoice,
  postInvoice,
  uploadItalianCertificate,
  waitForInvoice,
  type InvoicingFixture,
} from '../support/invoices.js';
import { opensslVerifiedContent } from '../support/opensslCms.js';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ EXPORT_POLL_MS: '50', SDI_SIMULATOR_DELAY_MS: '50' });
});
afterAll(() => t.close());

const documentOf = (fx: InvoicingFixture, id: string) => t.app.inject({ method: 'GET', url: `/v1/invoices/${id}/document`, headers: fx.it });
const paInvoice = (overrides: Record<string, unknown> = {}) => itInvoice({ routing: { codice_destinatario: 'UFABCD' }, ...overrides });

/** Nothing was numbered for the organization: no counter, no chain position. */
async function expectNothingNumbered(fx: InvoicingFixture): Promise<void> {
  expect(await t.database.prisma.invoiceCounter.count({ where: { merchantId: fx.itOrganizationId } })).toBe(0);
  const chain = await t.database.prisma.invoiceChain.findFirst({ where: { merchantId: fx.itOrganizationId } });
  expect(chain?.lastSequence ?? 0).toBe(0);
}

describe('with an active Italian certificate that has a private key', () => {
  it('signs an FPA12 invoice: the .xml.p7m is stored, served, chained and delivered; openssl recovers the valid FatturaPA', async () => {
    const fx = await invoicingFixture(t);
    const certificate = await uploadItalianCertificate(t, fx);
    const invoice = await mustCreateInvoice(t.app, fx.it, paInvoice({ submit: true }));
    expect(invoice.fiscal.jurisdiction_data).toMatchObject({
      format: 'FPA12',
      file_name: expect.stringMatching(/^IT\d{11}_[0-9A-Za-z]{5}\.xml\.p7m$/),
      signature: { format: 'CAdES-BES', fiscal_certificate_id: certificate.id },
    });

    const document = await documentOf(fx, invoice.id);
    expect(document.statusCode).toBe(200);
    expect(document.headers['content-type']).toBe('application/pkcs7-mime');
    expect(document.headers['content-disposition']).toBe(`attachment; filename="${invoice.fiscal.jurisdiction_data.file_name}"`);
    const stored = await t.database.prisma.invoice.findUniqueOrThrow({ where: { id: invoice.id } });
    expect(document.rawPayload.equals(Buffer.from(stored.document!))).toBe(true);
    expect(stored.documentFileName).toBe(invoice.fiscal.jurisdiction_data.file_name);
    expect(invoice.fiscal.chain_hash).toBe(chainHash(CHAIN_START, document.rawPayload));

    const xml = opensslVerifiedContent(document.rawPayload).toString('utf8');
    expect(xml).toContain('versione="FPA12"');
    expect(xml).toContain('<CodiceDestinatario>UFABCD</CodiceDestinatario>');
    await expectValidFatturaPa(xml);

    // The sandbox SdI reads the signed file.
    expect(await waitForInvoice(t.app, fx.it, invoice.id, (read) => read.state === 'delivered')).toMatchObject({ fiscal: { transmission_status: 'transmitted' } });
  });

  it('the sandbox SdI checks the signature as the SdI does: a certificate not valid yet when the file arrives is NS 00102', async () => {
    const fx = await invoicingFixture(t);
    await uploadItalianCertificate(t, fx, { notBefore: new Date(Date.now() + 24 * 60 * 60 * 1000), validDays: 400 });
    const invoice = await mustCreateInvoice(t.app, fx.it, paInvoice({ submit: true }));
    const rejected = await waitForInvoice(t.app, fx.it, invoice.id, (read) => read.state === 'rejected_by_authority');
    expect(rejected.fiscal.fiscal_errors).toEqual([{ code: '00102', message: expect.stringContaining('valid only from') }]);
  });

  it('signs a B2B (FPR12) invoice too; a later invoice chains onto the signed one', async () => {
    const fx = await invoicingFixture(t);
    await uploadItalianCertificate(t, fx);
    const first = await mustCreateInvoice(t.app, fx.it, itInvoice({ submit: true }));
    const second = await mustCreateInvoice(t.app, fx.it, itInvoice({ submit: true }));
    expect(second.fiscal.jurisdiction_data.file_name).toMatch(/\.xml\.p7m$/);
    const secondFile = (await documentOf(fx, second.id)).rawPayload;
    expect(second.fiscal.chain_hash).toBe(chainHash(first.fiscal.chain_hash, secondFile));
    const xml = opensslVerifiedContent(secondFile).toString('utf8');
    expect(xml).toContain('versione="FPR12"');
    await expectValidFatturaPa(xml);
  });
});

describe('without a certificate that signs', () => {
  it('an FPA12 invoice is 422 fiscal_certificate_required naming routing.codice_destinatario, also with a keyless certificate; nothing is numbered', async () => {
    const fx = await invoicingFixture(t);
    const draft = await mustCreateInvoice(t.app, fx.it, paInvoice());
    const body = expectError(await invoiceAction(t.app, fx.it, draft.id, 'submit'), 422, 'fiscal_certificate_required');
    expect(body.details!.field).toBe('routing.codice_destinatario');
    expect(expectError(await postInvoice(t.app, fx.it, paInvoice({ submit: true })), 422, 'fiscal_certificate_required').details!.field).toBe('routing.codice_destinatario');

    await uploadItalianCertificate(t, fx, { withKey: false });
    expectError(await invoiceAction(t.app, fx.it, draft.id, 'submit'), 422, 'fiscal_certificate_required');
    await expectNothingNumbered(fx);
    expect(json(await t.app.inject({ method: 'GET', url: `/v1/invoices/${draft.id}`, headers: fx.it })).state).toBe('draft');
  });

  it('a B2B invoice goes unsigned as .xml (application/xml)', async () => {
    const fx = await invoicingFixture(t);
    const invoice = await mustCreateInvoice(t.app, fx.it, itInvoice({ submit: true }));
    expect(invoice.fiscal.jurisdiction_data.file_name).toMatch(/\.xml$/);
    expect(invoice.fiscal.jurisdiction_data.signature).toBeUndefined();
    expect((await documentOf(fx, invoice.id)).headers['content-type']).toBe('application/xml');
  });
});

describe('certificates that are all expired or revoked', () => {
  it('only expired: 422 fiscal_certificate_expired, nothing numbered', async () => {
    const fx = await invoicingFixture(t);
    await uploadItalianCertificate(t, fx, { notBefore: new Date('2020-01-01Z'), notAfter: new Date('2021-01-01Z') });
    const draft = await mustCreateInvoice(t.app, fx.it, itInvoice());
    expect(expectError(await invoiceAction(t.app, fx.it, draft.id, 'submit'), 422, 'fiscal_certificate_expired').details).toMatchObject({ jurisdiction: 'IT' });
    expectError(await invoiceAction(t.app, fx.it, (await mustCreateInvoice(t.app, fx.it, paInvoice())).id, 'submit'), 422, 'fiscal_certificate_expired');
    await expectNothingNumbered(fx);
  });

  it('a revoked certificate is not active: 422 fiscal_certificate_expired; a renewed one signs', async () => {
    const fx = await invoicingFixture(t);
    const revoked = await uploadItalianCertificate(t, fx);
    const revoke = await t.app.inject({ method: 'POST', url: `/v1/organizations/${fx.itOrganizationId}/fiscal-certificates/${revoked.id}/revoke`, headers: fx.it });
    expect(revoke.statusCode).toBe(200);
    const draft = await mustCreateInvoice(t.app, fx.it, paInvoice());
    expectError(await invoiceAction(t.app, fx.it, draft.id, 'submit'), 422, 'fiscal_certificate_expired');
    await expectNothingNumbered(fx);

    const renewed = await uploadItalianCertificate(t, fx);
    const submitted = json(await invoiceAction(t.app, fx.it, draft.id, 'submit'));
    expect(submitted.fiscal.jurisdiction_data.signature.fiscal_certificate_id).toBe(renewed.id);
  });
});
