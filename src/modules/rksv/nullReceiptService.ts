import type { Merchant, Prisma } from '../../db/generated/client.js';
import type { AppContext } from '../../context.js';
import { notFound, validationError } from '../../domain/errors.js';
import { assertRegisterInService } from '../../domain/registers/inService.js';
import { withDeviceTimeout } from '../../fiscal/deviceErrors.js';
import type { DeviceDetails, FiscalRegister } from '../../fiscal/fiscalDevice.js';
import { signingRegimeOf } from '../../fiscal/regimes.js';
import { openRksvCashBox } from '../../fiscal/rksv/regime.js';
import { ZERO_TAX_SET } from '../../fiscal/rksv/taxSets.js';
import { fiscalFailureAsDomainError, signingDependencies } from '../common/fiscalSigning.js';
import type { Finalize } from '../common/transactions.js';
import { recordSignatureDeviceHealth } from '../registers/signatureDeviceHealth.js';
import type { NullReceiptType, RequestedNullReceiptType } from './nullReceiptSchemas.js';

/** One null receipt of a register's RKSV journal. */
export interface NullReceiptRecord {
  id: string;
  registerId: string;
  type: NullReceiptType;
  documentNumber: string;
  signedAt: Date;
  jws: string;
  signatureDeviceFailed: boolean;
}

interface RegisterRow {
  id: string;
  regime: string | null;
  fiscalization_status: string;
  device_id: string | null;
  client_id: string | null;
  device_simulation: string;
  device_details: Prisma.JsonValue | null;
  device_failed_since: Date | null;
}

/** The register, locked as session events lock it: completions in flight finish first, later ones wait for this receipt. */
const LOCK_REGISTER = `
  SELECT id, regime, fiscalization_status, device_id, client_id, device_simulation, device_details, device_failed_since
    FROM registers WHERE id = $1 AND merchant_id = $2 FOR UPDATE`;

const TAKE_OUT_OF_SERVICE = `
  UPDATE registers
     SET fiscalization_status = 'decommissioned', status = 'inactive', decommissioned_at = $2,
         resource_version = resource_version + 1, updated_at = $2
   WHERE id = $1`;

const fiscalRegisterOf = (row: RegisterRow): FiscalRegister => ({
  id: row.id,
  regime: row.regime,
  fiscalizationStatus: row.fiscalization_status,
  deviceId: row.device_id,
  clientId: row.client_id,
  deviceSimulation: row.device_simulation,
  deviceDetails: (row.device_details ?? {}) as DeviceDetails,
});

/**
 * Signs a null receipt on an Austrian register (DESIGN "Austria: RKSV") after
 * the receipts that are due (the previous month's, the collective receipt
 * after an outage). While the signature unit is out the receipt carries the
 * failure marker and is issued all the same. A closing receipt (Schlussbeleg)
 * takes the register out of service in the same transaction.
 */
export async function issueNullReceipt(
  ctx: AppContext,
  merchant: Merchant,
  registerId: string,
  type: RequestedNullReceiptType,
  finalize?: Finalize<NullReceiptRecord>,
): Promise<NullReceiptRecord> {
  return ctx.sql.transaction(async (sql) => {
    const [row] = await sql.query<RegisterRow>(LOCK_REGISTER, [registerId, merchant.id]);
    if (!row) throw notFound('register', registerId);
    if (row.regime !== null && row.regime !== 'RKSV') {
      throw validationError(`Null receipts are RKSV receipts; the register signs under ${row.regime}`, { field: 'register_id', regime: row.regime });
    }
    assertRegisterInService({ id: row.id, fiscalizationStatus: row.fiscalization_status });
    const register = fiscalRegisterOf(row);
    const deps = signingDependencies(ctx);
    let issued;
    try {
      const { deviceId } = signingRegimeOf(register);
      const cashBox = openRksvCashBox({ ...register, deviceId }, deps);
      issued = await cashBox.issue((phase, exchange) => withDeviceTimeout(phase, deps.deviceTimeoutMs, sql, exchange), {
        type,
        amounts: ZERO_TAX_SET,
        operationId: null,
      });
    } catch (error) {
      throw fiscalFailureAsDomainError(error, registerId);
    }
    const receipt: NullReceiptRecord = {
      id: issued.id,
      registerId,
      type,
      documentNumber: issued.record.document_number,
      signedAt: new Date(issued.record.signed_at),
      jws: issued.record.jws,
      signatureDeviceFailed: issued.record.signature_device_failed,
    };
    if (type === 'closing') await sql.query(TAKE_OUT_OF_SERVICE, [registerId, receipt.signedAt]);
    await recordSignatureDeviceHealth(sql, { id: registerId, deviceFailedSince: row.device_failed_since }, receipt.signatureDeviceFailed);
    await finalize?.(sql, receipt);
    return receipt;
  });
}

interface ReceiptRow {
  id: string;
  register_id: string;
  type: NullReceiptType;
  receipt_number: string;
  signed_at: Date;
  jws: string;
  signature_device_failed: boolean;
}

/**
 * The register's null receipts in signing order: every receipt of its RKSV
 * journal but the Standardbelege, the start receipt included (none for a
 * register that never signed under RKSV).
 */
export async function listNullReceipts(ctx: AppContext, merchant: Merchant, registerId: string): Promise<NullReceiptRecord[]> {
  const [register] = await ctx.sql.query<{ id: string }>('SELECT id FROM registers WHERE id = $1 AND merchant_id = $2', [registerId, merchant.id]);
  if (!register) throw notFound('register', registerId);
  const rows = await ctx.sql.query<ReceiptRow>(
    `SELECT id, register_id, type, receipt_number::text AS receipt_number, signed_at, jws, signature_device_failed
       FROM rksv_receipts WHERE register_id = $1 AND type <> 'standard'
      ORDER BY receipt_number`,
    [registerId],
  );
  return rows.map((row) => ({
    id: row.id,
    registerId: row.register_id,
    type: row.type,
    documentNumber: row.receipt_number,
    signedAt: row.signed_at,
    jws: row.jws,
    signatureDeviceFailed: row.signature_device_failed,
  }));
}
