import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import type { SqlClient } from '../../db/sql.js';
import { newId, randomBase62 } from '../../lib/ids.js';
import { FiscalPreconditionError, type DeviceIdentity, type DeviceOptions, type FiscalDependencies, type ProvisioningRequest } from '../fiscalDevice.js';
import { aesKeyCheckValue } from './aesKeyCheckValue.js';
import { RksvCashBox } from './cashBox.js';
import { RKSV_SUITE } from './receiptCode.js';
import { SoftwareSignatureUnit } from './signatureUnit.js';
import { ZERO_TAX_SET } from './taxSets.js';
import { TURNOVER_COUNTER_SIZE } from './turnoverCounter.js';

/** The register's `fiscalization.rksv` block (DESIGN "Austria: RKSV"). */
export interface RksvFiscalization {
  cash_register_id: string;
  suite: typeof RKSV_SUITE;
  signature_device_id: string;
  public_key: string;
  aes_key_check_value: string;
  turnover_counter_size: number;
  start_receipt: { receipt_number: string; jws: string; qr_data: string };
}

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

const INSERT_CASH_REGISTER = `
  INSERT INTO rksv_cash_registers (id, merchant_id, register_id, cash_register_id, signature_device_id, public_key,
                                   private_key_enc, aes_key_enc, turnover_counter_size)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`;

/**
 * An Austrian register's software signature unit and receipt chain: a P-256
 * key pair and an AES-256 key (both sealed at rest), a Kassen-ID of the
 * service's choosing (no `_`, unique per merchant), the field-11 id from the
 * Ordnungsbegriff and the key, and the signed start receipt.
 */
export async function provisionRksvCashRegister(
  sql: SqlClient,
  deps: FiscalDependencies & DeviceOptions,
  request: ProvisioningRequest,
): Promise<DeviceIdentity> {
  const ordnungsbegriff = ordnungsbegriffOf(request.fiscalIdentity as AustrianIdentity);
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const keyId = createHash('sha256').update(spki).digest('hex').slice(0, 16).toUpperCase();
  const signatureDeviceId = `${ordnungsbegriff}-${keyId}`;
  const aesKey = randomBytes(32).toString('base64');
  const cashRegisterId = `RK-${randomBase62(12)}`;
  const id = newId('rkv');
  const sealedPrivateKey = deps.secrets.seal(privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
  await sql.query(INSERT_CASH_REGISTER, [
    id,
    request.merchantId,
    request.registerId,
    cashRegisterId,
    signatureDeviceId,
    spki.toString('base64'),
    sealedPrivateKey,
    deps.secrets.seal(aesKey),
    TURNOVER_COUNTER_SIZE,
  ]);
  // The start receipt must carry a valid signature, so it is signed by the unit itself, never the simulation.
  const cashBox = new RksvCashBox(id, request.registerId, (sealed) => new SoftwareSignatureUnit(id, sealed, deps.secrets), {
    secrets: deps.secrets,
    clock: deps.clock,
    signatureTimeoutMs: deps.deviceTimeoutMs,
  });
  const start = await cashBox.issue((_phase, exchange) => exchange(sql, new AbortController().signal), {
    type: 'start',
    amounts: ZERO_TAX_SET,
    operationId: null,
  });
  if (start.record.signature_device_failed) {
    throw new FiscalPreconditionError('The signature creation unit could not sign the start receipt', { field: 'register_id' });
  }
  const fiscalization: RksvFiscalization = {
    cash_register_id: cashRegisterId,
    suite: RKSV_SUITE,
    signature_device_id: signatureDeviceId,
    public_key: spki.toString('base64'),
    aes_key_check_value: aesKeyCheckValue(aesKey),
    turnover_counter_size: TURNOVER_COUNTER_SIZE,
    start_receipt: { receipt_number: start.record.document_number, jws: start.record.jws, qr_data: start.record.verification.qr_data },
  };
  return { deviceId: id, serial: signatureDeviceId, clientId: cashRegisterId, details: { ...fiscalization } };
}
