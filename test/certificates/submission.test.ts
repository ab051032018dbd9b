// The certificate check an invoice submission runs (DESIGN "Fiscal certificates"): blocked
// with 422 fiscal_certificate_expired when the organization has certificates for the
// jurisdiction and none is active; else the active certificate with a key that signs, if any.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainError } from '../../src/domain/errors.js';
import { certificateForSubmission } from '../../src/modules/fiscalCertificates/submission.js';
import { makeCertificate } from '../support/certificates.js';
import { orgAuth, platformKey } from '../support/styleO.js';
import { createDeuSetup, createTenantWithKey, createTestApp, json, type TestApp } from '../support/testApp.js';

let t: TestApp;
let platform: string;
let tenantKey: string;

beforeAll(async () => {
  t = await createTestApp();
  const tenant = await createTenantWithKey(t.database, 'DEU');
  tenantKey = tenant.apiKey;
  platform = await platformKey(t.database, tenant.tenantId);
});
afterAll(() => t.close());

const check = (organizationId: string, jurisdiction: string, now = new Date()) =>
  t.database.prisma.$transaction((tx) => certificateForSubmission(tx, t.app.ctx.secrets, organizationId, jurisdiction, now));

async function upload(organizationId: string, payload: object) {
  const response = await t.app.inject({
    method: 'POST',
    url: `/v1/organizations/${organizationId}/fiscal-certificates`,
    headers: orgAuth(platform, organizationId),
    payload,
  });
  expect(response.statusCode).toBe(201);
  return json(response);
}

describe('certificateForSubmission', () => {
  it('without certificates submission goes on unsigned', async () => {
    const organization = (await createDeuSetup(t.app, tenantKey)).merchantId;
    expect(await check(organization, 'IT')).toBeNull();
  });

  it('blocks when every certificate of the jurisdiction is expired or revoked; other jurisdictions are not affected', async () => {
    const organization = (await createDeuSetup(t.app, tenantKey)).merchantId;
    const expired = await makeCertificate({ notBefore: new Date('2020-01-01Z'), notAfter: new Date('2021-01-01Z') });
    await upload(organization, { jurisdiction: 'IT', certificate: expired.pem, private_key: expired.keyPem });
    const revoked = await upload(organization, { jurisdiction: 'IT', certificate: (await makeCertificate()).pem });
    await t.app.inject({
      method: 'POST',
      url: `/v1/organizations/${organization}/fiscal-certificates/${revoked.id}/revoke`,
      headers: orgAuth(platform, organization),
    });
    const error = await check(organization, 'IT').catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({ kind: 'unprocessable', code: 'fiscal_certificate_expired', details: { jurisdiction: 'IT' } });
    expect(await check(organization, 'DE')).toBeNull();
  });

  it('gives the active certificate with a key, valid longest, and its key', async () => {
    const organization = (await createDeuSetup(t.app, tenantKey)).merchantId;
    const keyless = await makeCertificate({ validDays: 900 });
    const current = await makeCertificate({ validDays: 20 });
    const renewed = await makeCertificate({ validDays: 400 });
    await upload(organization, { jurisdiction: 'IT', certificate: keyless.pem });
    await upload(organization, { jurisdiction: 'IT', certificate: current.pem, private_key: current.keyPem });
    const uploaded = await upload(organization, { jurisdiction: 'IT', certificate: renewed.pem, private_key: renewed.keyPem });
    const signing = await check(organization, 'IT');
    expect(signing?.certificateId).toBe(uploaded.id);
    expect(signing?.certificateDer.equals(renewed.der)).toBe(true);
    expect(signing?.privateKeyPem.replace(/\s/g, '')).toBe(renewed.keyPem.replace(/\s/g, ''));
    // Only a keyless certificate active: nothing signs, but nothing blocks either.
    expect(await check(organization, 'IT', new Date(Date.now() + 500 * 24 * 3600 * 1000))).toBeNull();
  });
});
