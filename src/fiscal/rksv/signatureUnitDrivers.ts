import type { DeviceOptions, FiscalDependencies, FiscalPreconditionError, ProvisioningRequest } from '../fiscalDevice.js';
import { openAtrustSignatureUnit } from './atrustAsignOnline/atrustSignatureUnit.js';
import type { AtrustAsignOnlineOptions } from './atrustAsignOnline/connection.js';
import { provisionAtrustSignatureUnit } from './atrustAsignOnline/provisioning.js';
import type { RegisteredUnit } from './finanzOnline/authority.js';
import { SoftwareSignatureUnit, type SignatureUnit } from './signatureUnit.js';
import { provisionSoftwareSignatureUnit } from './softwareUnitProvisioning.js';

type Dependencies = FiscalDependencies & DeviceOptions;

/** What the register's row keeps of its signature unit (rksv_cash_registers). */
export interface StoredSignatureUnit {
  /** The row's id, which also keys the software unit's parsed key. */
  id: string;
  driver: string;
  /** Base64 DER SubjectPublicKeyInfo of the unit's key. */
  public_key: string;
  /** The software unit's sealed private key; null for a remote unit. */
  private_key_enc: string | null;
  /** A remote unit's sealed connection (its credentials); null for the software unit. */
  connection_enc: string | null;
}

/** A signature unit as fiscalization found or made it, before anything is written. */
export interface ProvisionedSignatureUnit {
  /** The algorithm suite of every receipt: R1-AT0 for the closed system, R1-<ZDA id> for a trust service certificate. */
  suite: string;
  /** Field 11 of every receipt: `<Ordnungsbegriff>-<key id>`, or the certificate serial. */
  signatureDeviceId: string;
  publicKey: string;
  /** Standard base64 DER of the signing certificate and its issuers; none for the closed system. */
  certificate: string | null;
  certificateChain: string[];
  sealedPrivateKey: string | null;
  sealedConnection: string | null;
  /** The unit's public identifiers for `fiscalization.rksv`, `driver` first. */
  details: Record<string, unknown>;
  /** The unit itself, to sign the start receipt with. */
  unit: SignatureUnit;
  /** Why the start receipt could not be signed (the unit's last error, or null when it did not answer), naming the fiscalize body's field. */
  startReceiptRefused(error: unknown): FiscalPreconditionError;
}

/** One kind of signature creation unit an Austrian register signs with. */
export interface SignatureUnitDriver {
  /** Finds or makes the unit of the row `unitId` to be; `options` is the fiscalize body's `rksv` block. Writes nothing. */
  provision(deps: Dependencies, request: ProvisioningRequest, options: Record<string, unknown>, unitId: string): Promise<ProvisionedSignatureUnit>;
  /** The stored unit, ready to sign. */
  open(stored: StoredSignatureUnit, deps: Dependencies): SignatureUnit;
  /** How FinanzOnline knows the unit: what registering it, and reporting its outages, name. */
  registeredUnit(stored: UnitIdentifiers): RegisteredUnit;
}

/** The public identifiers of a stored unit. */
export interface UnitIdentifiers {
  suite: string;
  /** Field 11 of the receipts. */
  signature_device_id: string;
  public_key: string;
}

/** art_ob of FinanzOnline for field 11's Ordnungsbegriff prefix (DESIGN: U:<vat_id>, S:<tax_number>, G:<gln>). */
const IDENTIFIER_TYPES = { U: 'UID', S: 'FASTNR', G: 'GLN' } as const;

/** The closed system's unit: field 11 is `<prefix>:<identifier>-<key id>`. */
function closedSystemUnit(stored: UnitIdentifiers): RegisteredUnit {
  const match = /^([USG]):(.+)-([^-]+)$/.exec(stored.signature_device_id);
  if (!match) throw new Error(`Field 11 ${stored.signature_device_id} is not <Ordnungsbegriff>-<key id>`);
  const [, prefix, identifier, keyId] = match as unknown as [string, keyof typeof IDENTIFIER_TYPES, string, string];
  return { kind: 'closed_system', identifierType: IDENTIFIER_TYPES[prefix], identifier, keyId, unitType: 'SW_GGS', publicKey: stored.public_key };
}

const software: SignatureUnitDriver = {
  provision: (deps, request, _options, unitId) => provisionSoftwareSignatureUnit(deps, request, unitId),
  open(stored, deps) {
    if (!stored.private_key_enc) throw new Error(`The software signature unit ${stored.id} has no key`);
    return new SoftwareSignatureUnit(stored.id, stored.private_key_enc, deps.secrets);
  },
  registeredUnit: closedSystemUnit,
};

const atrustAsignOnline: SignatureUnitDriver = {
  provision: (deps, _request, options) => provisionAtrustSignatureUnit(deps, options as unknown as AtrustAsignOnlineOptions),
  open(stored, deps) {
    if (!stored.connection_enc) throw new Error(`The a.sign RK online unit ${stored.id} has no connection`);
    return openAtrustSignatureUnit(stored.connection_enc, stored.public_key, deps);
  },
  // a.sign RK online is A-Trust's HSM; the suite names the trust service (R1-AT1), field 11 the certificate serial in hex.
  registeredUnit: (stored) => ({
    kind: 'certificate',
    vdaId: stored.suite.slice('R1-'.length),
    unitType: 'HSM_DIENSTLEISTER',
    certificateSerialHex: stored.signature_device_id,
  }),
};

/** Each driver by the name the fiscalize body and the register's row give it; another trust service (PrimeSign) is one more entry. */
const SIGNATURE_UNIT_DRIVERS: Readonly<Record<string, SignatureUnitDriver>> = { software, atrust_asign_online: atrustAsignOnline };

/** The driver a fiscalize body's `rksv` block or stored details name; registers fiscalized before drivers existed have the software unit. */
export const unitDriverNameOf = (details: Record<string, unknown> | null): string => (typeof details?.driver === 'string' ? details.driver : 'software');

export function signatureUnitDriverNamed(name: string): SignatureUnitDriver {
  const driver = SIGNATURE_UNIT_DRIVERS[name];
  if (!driver) throw new Error(`No RKSV signature unit driver ${name} is built`);
  return driver;
}
