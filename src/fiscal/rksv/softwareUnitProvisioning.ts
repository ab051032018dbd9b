import { createHash, generateKeyPairSync } from 'node:crypto';
import { FiscalPreconditionError, type DeviceOptions, type FiscalDependencies, type ProvisioningRequest } from '../fiscalDevice.js';
import { CLOSED_SYSTEM_SUITE } from './receiptCode.js';
import { SoftwareSignatureUnit } from './signatureUnit.js';
import type { ProvisionedSignatureUnit } from './signatureUnitDrivers.js';

interface AustrianIdentity {
  legal_entity_id_type?: 'VAT_ID' | 'TAX_ID' | 'GLN';
  vat_id?: string | null;
  tax_number?: string | null;
  gln?: string | null;
}

/**
 * The Ordnungsbegriff of a closed system, from the merchant's AUT fiscal
 * identity (DESIGN): U:<UID>, S:<Steuernummer, 9 digits> or G:<GLN>.
 */
export function ordnungsbegriffOf(identity: AustrianIdentity): string {
  const missing = (field: string) =>
    new FiscalPreconditionError(`The AUT fiscal identity names ${identity.legal_entity_id_type} but has no ${field}`, {
      field: `fiscal_identities.${field}`,
    });
  switch (identity.legal_entity_id_type) {
    case 'VAT_ID': {
      if (!identity.vat_id) throw missing('vat_id');
      return `U:${identity.vat_id.replace(/\s+/g, '').toUpperCase()}`;
    }
    case 'TAX_ID': {
      if (!identity.tax_number) throw missing('tax_number');
      return `S:${identity.tax_number.replace(/\D/g, '')}`;
    }
    case 'GLN': {
      if (!identity.gln) throw missing('gln');
      return `G:${identity.gln}`;
    }
    default:
      throw new FiscalPreconditionError('The AUT fiscal identity needs legal_entity_id_type VAT_ID, TAX_ID or GLN', {
        field: 'fiscal_identities.legal_entity_id_type',
      });
  }
}

/**
 * The service's own signature unit for a closed system (R1-AT0): a new P-256
 * key pair, its private key sealed at rest, and the field-11 id from the
 * Ordnungsbegriff and the key.
 */
export function provisionSoftwareSignatureUnit(
  deps: FiscalDependencies & DeviceOptions,
  request: ProvisioningRequest,
  unitId: string,
): Promise<ProvisionedSignatureUnit> {
  const ordnungsbegriff = ordnungsbegriffOf(request.fiscalIdentity as AustrianIdentity);
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const keyId = createHash('sha256').update(spki).digest('hex').slice(0, 16).toUpperCase();
  const sealedPrivateKey = deps.secrets.seal(privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
  return Promise.resolve({
    suite: CLOSED_SYSTEM_SUITE,
    signatureDeviceId: `${ordnungsbegriff}-${keyId}`,
    publicKey: spki.toString('base64'),
    certificate: null,
    certificateChain: [],
    sealedPrivateKey,
    sealedConnection: null,
    details: { driver: 'software' },
    unit: new SoftwareSignatureUnit(unitId, sealedPrivateKey, deps.secrets),
    startReceiptRefused: () => new FiscalPreconditionError('The signature creation unit could not sign the start receipt', { field: 'register_id' }),
  });
}
