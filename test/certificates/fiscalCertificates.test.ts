// Fiscal certificates (contract 2.12, DESIGN "Fiscal certificates and portal credentials"):
// upload as PEM or base64 DER, with or without its key; what is read from the certificate;
// bad input named by field; duplicates, expiry and revocation; tenancy; the key sealed.
import { createHash, X509Certificate } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox } from '../../src/lib/secretBox.js';
import { makeCertificate, type TestCertificate } from '../support/certificates.js';
import { organizationKey, orgAuth, platformKey } from '../support/styleO.js';
import { createDeuSetup, createTenantWithKey, createTestApp, expectError, json, TEST_SECRETS_KEY, type TestApp } from '../support/testApp.js';

let t: TestApp;
let orgA: string;
let orgB: string;
let platform: string;
let orgAKey: string;
let stranger: { platform: string; orgId: string };
let signing: TestCertificate;

const url = (organizationId: string, suffix = '') => `/v1/organizations/${organizationId}/fiscal-certificates${suffix}`;

function upload(headers: Record<string, string>, organizationId: string, payload: object) {
  return t.app.inject({ method: 'POST', url: url(organizationId), headers, payload });
}

const asA = () => orgAuth(platform, orgA);

beforeAll(async () => {
  t = await createTestApp();
  const tenant = await createTenantWithKey(t.database, 'DEU');
  orgA = (await createDeuSetup(t.app, tenant.apiKey)).merchantId;
  orgB = (await createDeuSetup(t.app, tenant.apiKey)).merchantId;
  platform = await platformKey(t.database, tenant.tenantId);
  orgAKey = await organizationKey(t.database, tenant.tenantId, orgA);
  const other = await createTenantWithKey(t.database, 'DEU');
  stranger = { platform: await platformKey(t.database, other.tenantId), orgId: (await createDeuSetup(t.app, other.apiKey)).merchantId };
  signing = await makeCertificate({ serialNumber: '0a1b2c3d4e5f', validDays: 400 });
});
afterAll(() => t.close());

describe('upload', () => {
  it('reads a PEM certificate with its key: exactly the fields of contract 2.12', async () => {
    const response = await upload(asA(), orgA, { jurisdiction: 'IT', label: 'Firma SdI', certificate: signing.pem, private_key: signing.keyPem });
    expect(response.statusCode).toBe(201);
    const body = json(response);
    expect(Object.keys(body).sort()).toEqual(
      ['created_at', 'fingerprint', 'id', 'issuer', 'jurisdiction', 'label', 'object', 'organization_id', 'revoked_at', 'serial_number', 'status', 'subject', 'valid_from', 'valid_until'].sort(),
    );
    const node = new X509Certificate(signing.pem);
    expect(body).toMatchObject({
      object: 'fiscal_certificate',
      organization_id: orgA,
      jurisdiction: 'IT',
      label: 'Firma SdI',
      status: 'active',
      subject: 'CN=Firma fatture,O=Pasticceria Roma Srl,C=IT',
      issuer: 'CN=Firma fatture,O=Pasticceria Roma Srl,C=IT',
      serial_number: '0a1b2c3d4e5f',
      fingerprint: createHash('sha256').update(signing.der).digest('hex'),
      valid_from: new Date(node.validFrom).toISOString(),
      valid_until: new Date(node.validTo).toISOString(),
      revoked_at: null,
    });
    expect(body.id).toMatch(/^fcert_/);
    expect(body.fingerprint).toBe(node.fingerprint256.replace(/:/g, '').toLowerCase());
    expect(response.body).not.toContain('PRIVATE KEY');

    // The key is sealed: the row holds no plaintext of it, and it opens to the key sent.
    const row = await t.database.prisma.fiscalCertificate.findUniqueOrThrow({ where: { id: body.id } });
    const keyBody = signing.keyPem.replace(/-----[^-]+-----|\s/g, '');
    expect(JSON.stringify(row)).not.toContain(keyBody.slice(0, 40));
    expect(row.privateKeySealed).toMatch(/^v1:/);
    const opened = new SecretBox(TEST_SECRETS_KEY).open(row.privateKeySealed!);
    expect(opened.replace(/-----[^-]+-----|\s/g, '')).toBe(keyBody);
    expect(Buffer.from(row.certificateDer).equals(signing.der)).toBe(true);
  });

  it('reads base64 DER without a key', async () => {
    const certificate = await makeCertificate();
    const response = await upload(asA(), orgA, { jurisdiction: 'DE', certificate: certificate.derBase64 });
    expect(response.statusCode).toBe(201);
    expect(json(response)).toMatchObject({ jurisdiction: 'DE', label: null, status: 'active' });
    const row = await t.database.prisma.fiscalCertificate.findUniqueOrThrow({ where: { id: json(response).id } });
    expect(row.privateKeySealed).toBeNull();
  });

  it('writes distinguished names as RFC 4514: most specific first, special characters escaped, multi-valued RDNs with +', async () => {
    const certificate = await makeCertificate({
      subject: [
        { C: ['IT'] },
        { O: ['Rossi, Bianchi & Figli <S.r.l.>'] },
        // A value starting with '#' is given as an object: the library reads a '#' string as hex.
        { OU: [{ utf8String: '#1 "Fatture"; Roma\\Nord ' }] },
        { CN: ['Mario Rossi'], '2.5.4.5': ['TINIT-RSSMRA85T10A562S'] },
      ],
      issuer: [{ C: ['IT'] }, { O: ['ArubaPEC S.p.A.'] }, { '2.5.4.97': ['VATIT-01879020517'] }, { CN: [' Qualified CA+1'] }],
    });
    const body = json(await upload(asA(), orgA, { jurisdiction: 'IT', certificate: certificate.pem }));
    expect(body.subject).toBe('CN=Mario Rossi+serialNumber=TINIT-RSSMRA85T10A562S,OU=\\#1 \\"Fatture\\"\\; Roma\\\\Nord\\ ,O=Rossi\\, Bianchi & Figli \\<S.r.l.\\>,C=IT');
    expect(body.issuer).toBe('CN=\\ Qualified CA\\+1,organizationIdentifier=VATIT-01879020517,O=ArubaPEC S.p.A.,C=IT');
    // OpenSSL's RFC 2253 rendering of the same names agrees.
    const dir = mkdtempSync(join(tmpdir(), 'cert-'));
    writeFileSync(join(dir, 'c.pem'), certificate.pem);
    const openssl = (what: string) =>
      execFileSync('openssl', ['x509', '-in', join(dir, 'c.pem'), '-noout', what, '-nameopt', 'RFC2253'], { encoding: 'utf8' }).trim().replace(/^\w+=/, '');
    expect(body.issuer).toBe(openssl('-issuer'));
  });

  it.each([
    ['not base64 at all', 'this is not a certificate'],
    ['base64 of something else', Buffer.from('hello world, not DER').toString('base64')],
    ['a private key', 'KEY'],
    ['two certificates', 'CHAIN'],
    ['a truncated certificate', 'TRUNCATED'],
  ])('400 naming certificate for %s', async (_name, value) => {
    const other = await makeCertificate();
    const certificate =
      value === 'KEY' ? signing.keyPem : value === 'CHAIN' ? signing.pem + other.pem : value === 'TRUNCATED' ? signing.derBase64.slice(0, 200) : value;
    const error = expectError(await upload(asA(), orgA, { jurisdiction: 'IT', certificate }), 400, 'invalid_request');
    expect(error.details?.field).toBe('certificate');
  });

  it('422 naming private_key when the key is not the certificate\'s; 400 when it is no PEM key', async () => {
    const other = await makeCertificate();
    const certificate = await makeCertificate();
    const mismatch = expectError(
      await upload(asA(), orgA, { jurisdiction: 'IT', certificate: certificate.pem, private_key: other.keyPem }),
      422,
      'validation_error',
    );
    expect(mismatch.details?.field).toBe('private_key');
    const garbage = expectError(
      await upload(asA(), orgA, { jurisdiction: 'IT', certificate: certificate.pem, private_key: 'not a key' }),
      400,
      'invalid_request',
    );
    expect(garbage.details?.field).toBe('private_key');
    // Nothing was stored for the rejected uploads.
    const stored = await t.database.prisma.fiscalCertificate.count({ where: { fingerprint: createHash('sha256').update(certificate.der).digest('hex') } });
    expect(stored).toBe(0);
  });

  it('400 naming jurisdiction for one the service does not serve; 400 for unknown fields', async () => {
    const certificate = await makeCertificate();
    for (const jurisdiction of ['FR', 'it', 'ITA']) {
      const error = expectError(await upload(asA(), orgA, { jurisdiction, certificate: certificate.pem }), 400, 'invalid_request');
      expect(error.details?.field).toBe('jurisdiction');
    }
    const unknown = expectError(await upload(asA(), orgA, { jurisdiction: 'IT', certificate: certificate.pem, password: 'x' }), 400, 'invalid_request');
    expect(unknown.details?.field).toBe('password');
  });

  it('409 for a certificate the organization already has (PEM or DER alike); another organization may hold it too', async () => {
    const certificate = await makeCertificate();
    expect((await upload(asA(), orgA, { jurisdiction: 'IT', certificate: certificate.pem })).statusCode).toBe(201);
    const duplicate = expectError(await upload(asA(), orgA, { jurisdiction: 'IT', certificate: certificate.derBase64 }), 409, 'fiscal_certificate_exists');
    expect(duplicate.details?.field).toBe('certificate');
    expect((await upload(orgAuth(platform, orgB), orgB, { jurisdiction: 'IT', certificate: certificate.pem })).statusCode).toBe(201);
  });

  it('concurrent uploads of one certificate store it once', async () => {
    const certificate = await makeCertificate();
    const responses = await Promise.all(Array.from({ length: 4 }, () => upload(asA(), orgA, { jurisdiction: 'IT', certificate: certificate.pem })));
    expect(responses.map((response) => response.statusCode).sort()).toEqual([201, 409, 409, 409]);
  });
});

describe('status, revocation, reads', () => {
  it('an expired certificate is expired; a revoked one revoked (once: a second revoke is 409)', async () => {
    const expired = await makeCertificate({ notBefore: new Date('2020-01-01T00:00:00Z'), notAfter: new Date('2021-01-01T00:00:00Z') });
    const body = json(await upload(asA(), orgA, { jurisdiction: 'IT', certificate: expired.pem }));
    expect(body).toMatchObject({ status: 'expired', valid_until: '2021-01-01T00:00:00.000Z', valid_from: '2020-01-01T00:00:00.000Z' });

    const active = json(await upload(asA(), orgA, { jurisdiction: 'IT', certificate: (await makeCertificate()).pem }));
    const revoked = await t.app.inject({ method: 'POST', url: url(orgA, `/${active.id}/revoke`), headers: asA() });
    expect(revoked.statusCode).toBe(200);
    expect(json(revoked)).toMatchObject({ id: active.id, status: 'revoked' });
    expect(Date.parse(json(revoked).revoked_at)).not.toBeNaN();
    expectError(await t.app.inject({ method: 'POST', url: url(orgA, `/${active.id}/revoke`), headers: asA() }), 409, 'fiscal_certificate_already_revoked');
    expect(json(await t.app.inject({ method: 'GET', url: url(orgA, `/${active.id}`), headers: asA() })).status).toBe('revoked');
  });

  it('lists the organization\'s certificates newest first as {object: list, data} and gets one', async () => {
    const list = await t.app.inject({ method: 'GET', url: url(orgA), headers: asA() });
    expect(list.statusCode).toBe(200);
    const body = json(list);
    expect(body.object).toBe('list');
    expect(body.data.length).toBeGreaterThan(3);
    expect(body.data.every((certificate: { organization_id: string }) => certificate.organization_id === orgA)).toBe(true);
    const created = body.data.map((certificate: { created_at: string }) => certificate.created_at);
    expect([...created].sort().reverse()).toEqual(created);
    const one = await t.app.inject({ method: 'GET', url: url(orgA, `/${body.data[0].id}`), headers: asA() });
    expect(json(one)).toEqual(body.data[0]);
    // An organization key reads its own without Service-Organization.
    expect((await t.app.inject({ method: 'GET', url: url(orgA), headers: orgAuth(orgAKey) })).statusCode).toBe(200);
  });
});

describe('tenancy', () => {
  it('another organization\'s certificate is 404, through any key', async () => {
    const mine = json(await upload(asA(), orgA, { jurisdiction: 'IT', certificate: (await makeCertificate()).pem }));
    const asB = orgAuth(platform, orgB);
    expectError(await t.app.inject({ method: 'GET', url: url(orgB, `/${mine.id}`), headers: asB }), 404, 'not_found');
    expectError(await t.app.inject({ method: 'POST', url: url(orgB, `/${mine.id}/revoke`), headers: asB }), 404, 'not_found');
    expect(json(await t.app.inject({ method: 'GET', url: url(orgB), headers: asB })).data.map((c: { id: string }) => c.id)).not.toContain(mine.id);
    // The path names another organization than the one the call acts for.
    expectError(await t.app.inject({ method: 'GET', url: url(orgA, `/${mine.id}`), headers: asB }), 404, 'not_found');
    expectError(await t.app.inject({ method: 'GET', url: url(orgB), headers: orgAuth(orgAKey) }), 404, 'not_found');
    // Another tenant's platform key does not see the organization at all.
    expectError(await t.app.inject({ method: 'GET', url: url(orgA, `/${mine.id}`), headers: orgAuth(stranger.platform, orgA) }), 404, 'not_found');
    expectError(await upload(orgAuth(stranger.platform, orgA), orgA, { jurisdiction: 'IT', certificate: signing.pem }), 404, 'not_found');
    // A platform key must name the organization.
    expectError(await t.app.inject({ method: 'GET', url: url(orgA), headers: orgAuth(platform) }), 400, 'invalid_request');
    expect((await t.app.inject({ method: 'GET', url: url(orgA), headers: { authorization: 'Bearer nope' } })).statusCode).toBe(401);
  });
});
