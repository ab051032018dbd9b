import type { AppContext } from '../../context.js';
import type { Register } from '../../db/generated/client.js';
import type { SqlClient } from '../../db/sql.js';
import { FiscalDeviceError, withDeviceTimeout } from '../../fiscal/deviceErrors.js';
import type { KassenSichVDevice, TseLogEntry } from '../../fiscal/kassensichv/device.js';
import { buildFiscalRecord, type KassenSichVFiscalRecord } from '../../fiscal/kassensichv/fiscalInformation.js';
import { SoftwareTse, type TseKeyRecord } from '../../fiscal/kassensichv/softwareTse.js';
import { SimulatedFaultsDevice, type DeviceSimulation } from '../../fiscal/simulatedFaults.js';
import { validationError } from '../../domain/errors.js';

/** What signing needs of a register: its fiscal state and its device (a RegisterWithDevice is one). */
export type SigningRegister = Pick<Register, 'id' | 'fiscalizationStatus' | 'regime' | 'clientId' | 'deviceSimulation'> & {
  tse: (TseKeyRecord & { status: string }) | null;
};

/** The register's signing device, or 422 when the register cannot sign (contract 7, complete preconditions). */
export function signingDeviceFor(ctx: AppContext, register: SigningRegister): { device: KassenSichVDevice; clientId: string } {
  if (register.fiscalizationStatus !== 'fiscalized' || register.regime !== 'KassenSichV') {
    throw validationError('The register is not fiscalized', {
      field: 'register_id',
      register_id: register.id,
      fiscalization_status: register.fiscalizationStatus,
    });
  }
  if (!register.tse || register.tse.status !== 'active' || !register.clientId) {
    throw validationError('The register has no active fiscal device or client', { field: 'register_id', register_id: register.id });
  }
  const software = new SoftwareTse(register.tse, ctx.secrets);
  const simulation = register.deviceSimulation as DeviceSimulation;
  const device =
    ctx.config.environment === 'sandbox' && simulation !== 'ok' ? new SimulatedFaultsDevice(software, simulation) : software;
  return { device, clientId: register.clientId };
}

/**
 * Phase 1 starts the transaction, phase 2 finishes it; a device that does both
 * in one exchange (the software TSE) does so. Each call is bounded by `timeoutMs`.
 */
export async function runDeviceTransaction(
  device: KassenSichVDevice,
  sql: SqlClient,
  clientId: string,
  process: { processType: string; processData: string },
  timeoutMs: number,
): Promise<{ start: TseLogEntry; finish: TseLogEntry }> {
  if (device.signTransaction) {
    return withDeviceTimeout(1, timeoutMs, sql, (call, signal) => device.signTransaction!(call, { clientId, ...process }, signal));
  }
  const start = await withDeviceTimeout(1, timeoutMs, sql, (call, signal) => device.startTransaction(call, clientId, signal));
  const finish = await withDeviceTimeout(2, timeoutMs, sql, (call, signal) =>
    device.finishTransaction(call, { clientId, transactionNumber: start.transactionNumber, ...process }, signal),
  );
  return { start, finish };
}

/**
 * Signs one process with the register's TSE inside the caller's transaction.
 * A device failure is 422 validation_error with details.phase, and the
 * caller's transaction rolls back.
 */
export async function signProcess(
  ctx: AppContext,
  sql: SqlClient,
  register: SigningRegister,
  process: { processType: string; processData: string; documentNumber: string; documentType: string },
): Promise<KassenSichVFiscalRecord> {
  const { device, clientId } = signingDeviceFor(ctx, register);
  try {
    const { start, finish } = await runDeviceTransaction(device, sql, clientId, process, ctx.config.deviceTimeoutMs);
    return buildFiscalRecord({
      tse: device.identity(),
      clientId,
      start,
      finish,
      documentNumber: process.documentNumber,
      documentType: process.documentType,
    });
  } catch (error) {
    if (error instanceof FiscalDeviceError) {
      throw validationError(`Fiscal signing failed in phase ${error.phase}: ${error.message}`, {
        phase: error.phase,
        reason: error.reason,
        register_id: register.id,
      }).markTransient();
    }
    throw error;
  }
}
