import type { SqlClient } from '../db/sql.js';
import { FiscalDeviceError } from './deviceErrors.js';
import type { KassenSichVDevice, TseIdentity, TseLogEntry } from './kassensichv/device.js';

export const DEVICE_SIMULATIONS = ['ok', 'unreachable', 'reject_after_start', 'timeout'] as const;
export type DeviceSimulation = (typeof DEVICE_SIMULATIONS)[number];

/** How long a simulated hanging device takes to give up on its own; the caller's timeout fires long before. */
const HANG_MS = 60_000;

/** A device that does not answer: waits until the caller gives up (or HANG_MS). */
function hang(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, HANG_MS).unref();
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/**
 * Sandbox only: makes a register's device fail on demand (DESIGN: PUT
 * /registers/{id}/simulation), so integrators can exercise the 422 paths.
 * `timeout` (beyond DESIGN's three) is a device that does not answer.
 */
export class SimulatedFaultsDevice implements KassenSichVDevice {
  constructor(
    private readonly inner: KassenSichVDevice,
    private readonly mode: DeviceSimulation,
  ) {}

  identity(): TseIdentity {
    return this.inner.identity();
  }

  async startTransaction(sql: SqlClient, clientId: string, signal?: AbortSignal): Promise<TseLogEntry> {
    if (this.mode === 'unreachable') {
      throw new FiscalDeviceError(1, 'unreachable', 'The fiscal device is unreachable (sandbox simulation)');
    }
    if (this.mode === 'timeout') {
      await hang(signal);
      throw new FiscalDeviceError(1, 'unreachable', 'The fiscal device did not answer (sandbox simulation)');
    }
    return this.inner.startTransaction(sql, clientId, signal);
  }

  async finishTransaction(
    sql: SqlClient,
    request: { clientId: string; transactionNumber: number; processType: string; processData: string },
    signal?: AbortSignal,
  ): Promise<TseLogEntry> {
    if (this.mode === 'reject_after_start') {
      throw new FiscalDeviceError(2, 'rejected', 'The fiscal device rejected the transaction after start (sandbox simulation)');
    }
    return this.inner.finishTransaction(sql, request, signal);
  }
}
