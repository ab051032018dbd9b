import { FiscalDeviceError } from './deviceErrors.js';
import type { DeviceExchange, FiscalDevice, FiscalRecord, RecordToSign } from './fiscalDevice.js';

export const DEVICE_SIMULATIONS = ['ok', 'unreachable', 'reject_after_start', 'timeout'] as const;
export type DeviceSimulation = (typeof DEVICE_SIMULATIONS)[number];

/** How long a simulated hanging device takes to give up on its own; the caller's timeout fires long before. */
const HANG_MS = 60_000;

/** A device that does not answer: waits until the caller gives up (or HANG_MS). */
export function hang(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, HANG_MS).unref();
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/**
 * Sandbox only: makes a register's device, of any regime, fail on demand
 * (DESIGN: PUT /registers/{id}/simulation), so integrators can exercise the
 * failure paths. `unreachable` fails before the device is reached (phase 1),
 * `timeout` never answers (phase 1, cut by DEVICE_TIMEOUT_MS),
 * `reject_after_start` lets the device do its work and then rejects (phase 2),
 * which the signing flow rolls back like any failed record.
 */
export class SimulatedFaultsDevice implements FiscalDevice {
  constructor(
    private readonly inner: FiscalDevice,
    private readonly mode: Exclude<DeviceSimulation, 'ok'>,
  ) {}

  async sign(exchange: DeviceExchange, record: RecordToSign): Promise<FiscalRecord | null> {
    switch (this.mode) {
      case 'unreachable':
        throw new FiscalDeviceError(1, 'unreachable', 'The fiscal device is unreachable (sandbox simulation)');
      case 'timeout':
        await exchange(1, (_sql, signal) => hang(signal));
        throw new FiscalDeviceError(1, 'unreachable', 'The fiscal device did not answer (sandbox simulation)');
      case 'reject_after_start': {
        const signed = await this.inner.sign(exchange, record);
        if (!signed) return null;
        throw new FiscalDeviceError(2, 'rejected', 'The fiscal device rejected the transaction after start (sandbox simulation)');
      }
    }
  }
}
