import { randomBytes } from 'node:crypto';
import type { SqlClient } from '../../db/sql.js';
import { newId, randomBase62 } from '../../lib/ids.js';
import type { DeviceIdentity, DeviceOptions, FiscalDependencies, ProvisioningRequest } from '../fiscalDevice.js';
import { aesKeyCheckValue } from './aesKeyCheckValue.js';
import { RksvCashBox } from './cashBox.js';
import type { SignatureUnit } from './signatureUnit.js';
import { signatureUnitDriverNamed, unitDriverNameOf } from './signatureUnitDrivers.js';
import { ZERO_TAX_SET } from './taxSets.js';
import { TURNOVER_COUNTER_SIZE } from './turnoverCounter.js';
import { initialRegistration, type FinanzOnlineRegistration } from './finanzOnline/registration.js';
import { queueSubmission } from './finanzOnline/submissions.js';

/** The register's `fiscalization.rksv` block (DESIGN "Austria: RKSV"), with the driver's public identifiers. */
export interface RksvFiscalization {
  driver: string;
  cash_register_id: string;
  suite: string;
  signature_device_id: string;
  public_key: string;
  aes_key_check_value: string;
  turnover_counter_size: number;
  start_receipt: { receipt_number: string; jws: string; qr_data: string };
  /** What FinanzOnline answered so far; its submission is queued with the register. */
  registration: FinanzOnlineRegistration;
}

const INSERT_CASH_REGISTER = `
  INSERT INTO rksv_cash_registers (id, merchant_id, register_id, cash_register_id, signature_device_id, public_key,
                                   private_key_enc, aes_key_enc, turnover_counter_size, driver, connection_enc, suite,
                                   certificate, certificate_chain)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14::text[])`;

/**
 * An Austrian register's signature unit and receipt chain: the unit of the
 * fiscalize body's driver (the service's software unit by default, or a trust
 * service's online unit), an AES-256 key (sealed at rest), a Kassen-ID of the
 * service's choosing (no `_`, unique per merchant), and the start receipt,
 * signed by the unit. When the unit cannot sign it, nothing stays written:
 * the error rolls the caller's transaction back.
 */
export async function provisionRksvCashRegister(
  sql: SqlClient,
  deps: FiscalDependencies & DeviceOptions,
  request: ProvisioningRequest,
): Promise<DeviceIdentity> {
  const driverName = unitDriverNameOf(request.options);
  const id = newId('rkv');
  const provisioned = await signatureUnitDriverNamed(driverName).provision(deps, request, request.options ?? {}, id);
  const aesKey = randomBytes(32).toString('base64');
  const cashRegisterId = `RK-${randomBase62(12)}`;
  await sql.query(INSERT_CASH_REGISTER, [
    id,
    request.merchantId,
    request.registerId,
    cashRegisterId,
    provisioned.signatureDeviceId,
    provisioned.publicKey,
    provisioned.sealedPrivateKey,
    deps.secrets.seal(aesKey),
    TURNOVER_COUNTER_SIZE,
    driverName,
    provisioned.sealedConnection,
    provisioned.suite,
    provisioned.certificate,
    `{${provisioned.certificateChain.map((entry) => `"${entry}"`).join(',')}}`,
  ]);
  // The start receipt must carry a valid signature, so it is signed by the unit itself, never the simulation;
  // its last error says which field of the body to blame when it cannot.
  let unitError: unknown = null;
  const recordingUnit: SignatureUnit = {
    sign: (input, signal) =>
      provisioned.unit.sign(input, signal).catch((error: unknown) => {
        unitError = error;
        throw error;
      }),
  };
  const cashBox = new RksvCashBox(id, request.registerId, () => recordingUnit, {
    secrets: deps.secrets,
    clock: deps.clock,
    signatureTimeoutMs: deps.deviceTimeoutMs,
  });
  const start = await cashBox.issue((_phase, exchange) => exchange(sql, new AbortController().signal), {
    type: 'start',
    amounts: ZERO_TAX_SET,
    operationId: null,
  });
  if (start.record.signature_device_failed) throw provisioned.startReceiptRefused(unitError);
  // Registering the unit and the register with FinanzOnline, and the start receipt's check, leave from the outbox.
  await queueSubmission(sql, id, 'registration');
  const fiscalization: RksvFiscalization = {
    driver: driverName,
    cash_register_id: cashRegisterId,
    suite: provisioned.suite,
    signature_device_id: provisioned.signatureDeviceId,
    public_key: provisioned.publicKey,
    aes_key_check_value: aesKeyCheckValue(aesKey),
    turnover_counter_size: TURNOVER_COUNTER_SIZE,
    start_receipt: { receipt_number: start.record.document_number, jws: start.record.jws, qr_data: start.record.verification.qr_data },
    registration: initialRegistration(deps.environment === 'sandbox' ? 'test' : 'production', deps.clock()),
  };
  return { deviceId: id, serial: provisioned.signatureDeviceId, clientId: cashRegisterId, details: { ...provisioned.details, ...fiscalization } };
}
