import type { RtDriver } from './rtDriver.js';
import type { RtDeviceRow } from './rtFiscalDevice.js';
import { EpsonFpmateDriver } from './epsonFpmate/epsonFpmateDriver.js';
import { SimulatorDriver } from './simulator/simulatorDriver.js';

export interface DriverContext {
  clock: () => Date;
  deviceTimeoutMs: number;
}

/** Each driver by its name in rt_devices; a new driver is one more entry. */
const DRIVERS: Readonly<Record<string, (device: RtDeviceRow, context: DriverContext) => RtDriver>> = {
  simulator: (device, { clock }) => new SimulatorDriver(device.id, clock),
  epson_fpmate: (device, { clock, deviceTimeoutMs }) =>
    new EpsonFpmateDriver(
      { url: device.url!, deviceId: device.printer_device_id ?? undefined, serial: device.serial, departments: device.departments ?? undefined },
      { timeoutMs: deviceTimeoutMs, clock },
    ),
};

/** The driver that speaks to the device of `device`'s row. */
export function rtDriverFor(device: RtDeviceRow, context: DriverContext): RtDriver {
  const driver = DRIVERS[device.driver];
  if (!driver) throw new Error(`No RT driver ${device.driver} is built`);
  return driver(device, context);
}
