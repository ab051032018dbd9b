import type { AppContext } from '../../context.js';
import { FiscalDeviceError, withDeviceTimeout } from '../../fiscal/deviceErrors.js';
import type { KassenSichVDevice } from '../../fiscal/kassensichv/device.js';
import { buildFiscalRecord, type KassenSichVFiscalRecord } from '../../fiscal/kassensichv/fiscalInformation.js';
import { SoftwareTse } from '../../fiscal/kassensichv/softwareTse.js';
import { SimulatedFaultsDevice, type DeviceSimulation } from '../../fiscal/simulatedFaults.js';
import { validationError } from '../../http/errors.js';
import type { RegisterWithDevice } from '../registers/presenter.js';
import type { Tx } from '../common/transactions.js';

/** The register's signing device, or 422 when the register cannot sign (contract 7, complete preconditions). */
export function signingDeviceFor(ctx: AppContext, register: RegisterWithDevice): { device: KassenSichVDevice; clientId: string } {
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

async function startThenFinish(
  device: KassenSichVDevice,
  tx: Tx,
  clientId: string,
  process: { processType: string; processData: string },
  timeout: number,
) {
  const start = await withDeviceTimeout(1, timeout, () => device.startTransaction(tx, clientId));
  const finish = await withDeviceTimeout(2, timeout, () =>
    device.finishTransaction(tx, {
      clientId,
      transactionNumber: start.transactionNumber,
      processType: process.processType,
      processData: process.processData,
    }),
  );
  return { start, finish };
}

/**
 * Signs one process with the register's TSE: phase 1 starts the transaction,
 * phase 2 finishes it. Each call is bounded by DEVICE_TIMEOUT_MS; a failure is
 * 422 validation_error with details.phase, and the caller's transaction rolls back.
 */
export async function signProcess(
  ctx: AppContext,
  tx: Tx,
  register: RegisterWithDevice,
  process: { processType: string; processData: string; documentNumber: string; documentType: string },
): Promise<KassenSichVFiscalRecord> {
  const { device, clientId } = signingDeviceFor(ctx, register);
  const timeout = ctx.config.deviceTimeoutMs;
  try {
    const { start, finish } = device.signTransaction
      ? await withDeviceTimeout(1, timeout, () => device.signTransaction!(tx, { clientId, ...process }))
      : await startThenFinish(device, tx, clientId, process, timeout);
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
