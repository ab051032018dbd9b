// Merchants stored before fiscal_portal_credentials existed kept the ITA identity's
// Fisconline fields in the identity; at start they move into the Fisconline credential.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { moveLegacyFisconlineFields } from '../../src/modules/portalCredentials/identityMigration.js';
import { auth, createTenantWithKey, createTestApp, json, type TestApp } from '../support/testApp.js';

let t: TestApp;
afterAll(() => t.close());
beforeAll(async () => {
  t = await createTestApp();
});

it('moves the legacy fields into one sealed credential, once, and the merchant reads the same', async () => {
  const { tenantId, apiKey } = await createTenantWithKey(t.database, 'ITA');
  const secrets = t.app.ctx.secrets;
  const updatedAt = new Date('2026-02-01T10:00:00.000Z');
  await t.database.prisma.merchant.create({
    data: {
      id: 'mer_legacyItalian00001',
      tenantId,
      legalName: 'Trattoria Vecchia Srl',
      countryCode: 'ITA',
      status: 'active',
      address: { line1: 'Via Roma 1', line2: null, city: 'Milano', postal_code: '20121', country_code: 'ITA' },
      fiscalIdentities: [
        {
          country_code: 'ITA',
          tax_number: '12345678901',
          vat_number: '12345678901',
          legal_entity_type: 'COMPANY',
          fisconline_user: 'RSSMRA85T10A562S',
          fisconline_password_sealed: secrets.seal('Legacy-Pass-1'),
          fisconline_pin_sealed: secrets.seal('1234567890'),
        },
      ],
      updatedAt,
    },
  });

  await moveLegacyFisconlineFields(t.database.prisma, secrets, t.app.log);
  await moveLegacyFisconlineFields(t.database.prisma, secrets, t.app.log);

  const credentials = await t.database.prisma.fiscalPortalCredential.findMany({ where: { merchantId: 'mer_legacyItalian00001' } });
  expect(credentials).toHaveLength(1);
  const [credential] = credentials;
  expect(credential).toMatchObject({ portalType: 'fisconline', jurisdiction: 'IT', state: 'unvalidated', passwordSetAt: updatedAt });
  expect(secrets.open(credential.userIdSealed!)).toBe('RSSMRA85T10A562S');
  expect(secrets.open(credential.passwordSealed!)).toBe('Legacy-Pass-1');
  expect(secrets.open(credential.pinSealed!)).toBe('1234567890');
  const merchant = await t.database.prisma.merchant.findUniqueOrThrow({ where: { id: 'mer_legacyItalian00001' } });
  expect(merchant.fiscalIdentities).toEqual([{ country_code: 'ITA', tax_number: '12345678901', vat_number: '12345678901', legal_entity_type: 'COMPANY' }]);

  const view = json(await t.app.inject({ method: 'GET', url: '/v1/merchants/mer_legacyItalian00001', headers: auth(apiKey) }));
  expect(view.fiscal_identities[0]).toMatchObject({ fisconline_user: 'RSSMRA85T10A562S', fisconline_password: '********', fisconline_pin: '********' });
});
