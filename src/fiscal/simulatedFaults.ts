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
 * Sandbox only: one device call as a failing device answers it (DESIGN: PUT
 * /registers/{id}/simulation). `unreachable` fails before the device is reached
 * (phase 1), `timeout` never answers (phase 1, cut by DEVICE_TIMEOUT_MS),
 * `reject_after_start` lets the device do its work and then rejects (phase 2),
 * which the caller rolls back like any failed device call. `performed` says
 * whether the call did device work a rejection can follow.
 */
export async function withSimulatedFault<T>(
  mode: Exclude<DeviceSimulation, 'ok'>,
  exchange: DeviceExchange,
  call: () => Promise<T>,
  performed: (result: T) => boolean = () => true,
): Promise<T> {
  switch (mode) {
    case 'unreachable':
      throw new FiscalDeviceError(1, 'unreachable', 'The fiscal device is unreachable (sandbox simulation)');
    case 'timeout':
      await exchange(1, (_sql, signal) => hang(signal));
      throw new FiscalDeviceError(1, 'unreachable', 'The fiscal device did not answer (sandbox simulation)');
    case 'reject_after_start': {
      const result = await call();
      if (!performed(result)) return result;
      throw new FiscalDeviceError(2, 'rejected', 'The fiscal device rejected the transaction after start (sandbox simulation)');
    }
  }
}

/** A register's device, of any regime, failing on demand in the sandbox (withSimulatedFault). */
export class SimulatedFaultsDevice implements FiscalDevice {
  constructor(
    private readonly inner: FiscalDevice,
    private readonly mode: Exclude<DeviceSimulation, 'ok'>,
  ) {}

  sign(exchange: DeviceExchange, record: RecordToSign): Promise<FiscalRecord | null> {
    return withSimulatedFault(this.mode, exchange, () => this.inner.sign(exchange, record), (signed) => signed !== null);
  }
}
