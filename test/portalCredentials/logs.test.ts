// No secret of a portal credential or a certificate's private key reaches the log, at
// trace level, for successful and rejected requests alike.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeCertificate } from '../support/certificates.js';
import { orgAuth, platformKey } from '../support/styleO.js';
import { auth, createDeuSetup, createTenantWithKey, createTestApp, itaMerchantBody, type TestApp } from '../support/testApp.js';

const lines: string[] = [];
let t: TestApp;
afterAll(() => t.close());
beforeAll(async () => {
  t = await createTestApp({ LOG_LEVEL: 'trace' }, { logStream: { write: (line: string) => void lines.push(line) } });
});

it('keeps portal secrets and private keys out of the log', async () => {
  const secrets = { password: 'Log-Secret-Password-77', pin: '9988776655', user: 'LGSCRT80A01H501Z', participant: 'TID-LOG-SECRET-42' };
  const certificate = await makeCertificate();
  const other = await makeCertificate();
  const { tenantId, apiKey } = await createTenantWithKey(t.database, 'DEU');
  const organization = (await createDeuSetup(t.app, apiKey)).merchantId;
  const headers = orgAuth(await platformKey(t.database, tenantId), organization);
  const base = `/v1/organizations/${organization}`;
  const call = (method: 'POST' | 'PATCH', url: string, payload?: object) => t.app.inject({ method, url: `${base}${url}`, headers, ...(payload ? { payload } : {}) });

  const created = (await call('POST', '/fiscal-portal-credentials', {
    portal_type: 'fisconline',
    jurisdiction: 'IT',
    credentials: { user_id: secrets.user, password: secrets.password, pin: secrets.pin },
  })).json();
  await call('PATCH', `/fiscal-portal-credentials/${created.id}`, { credentials: { password: `${secrets.password}-2` } });
  await call('POST', `/fiscal-portal-credentials/${created.id}/validate`);
  // Rejected requests that carry secrets.
  await call('POST', '/fiscal-portal-credentials', { portal_type: 'fisconline', jurisdiction: 'AT', credentials: { user_id: secrets.user, password: secrets.password } });
  await call('POST', '/fiscal-portal-credentials', { portal_type: 'finanz_online', jurisdiction: 'AT', credentials: { participant_id: secrets.participant, pin: 12 } });
  await call('POST', '/fiscal-certificates', { jurisdiction: 'IT', certificate: certificate.pem, private_key: certificate.keyPem });
  await call('POST', '/fiscal-certificates', { jurisdiction: 'IT', certificate: other.pem, private_key: certificate.keyPem });
  await call('POST', '/fiscal-certificates', { jurisdiction: 'IT', certificate: certificate.keyPem });
  const ita = await createTenantWithKey(t.database, 'ITA');
  await t.app.inject({ method: 'POST', url: '/v1/merchants', headers: auth(ita.apiKey), payload: itaMerchantBody({ password: secrets.password, pin: secrets.pin }) });

  const log = lines.join('');
  expect(lines.length).toBeGreaterThan(20);
  const keyBody = certificate.keyPem.replace(/-----[^-]+-----|\s/g, '');
  for (const secret of [secrets.password, secrets.pin, secrets.user, secrets.participant, keyBody.slice(0, 40), keyBody.slice(-40)]) {
    expect(log).not.toContain(secret);
  }
});
