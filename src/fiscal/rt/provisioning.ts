import { randomInt } from 'node:crypto';
import type { SqlClient } from '../../db/sql.js';
import { newId } from '../../lib/ids.js';
import type { DeviceIdentity, FiscalDependencies, ProvisioningRequest } from '../fiscalDevice.js';
import { epsonFpmateSettings } from './epsonFpmate/config.js';
import { createSandboxDeviceCertificate, sealDeviceKeyPair } from './simulator/deviceCertificate.js';

/** The driver and, for a printer, where it is (DESIGN "Italy: RT": the fiscalize body's `rt`). */
export type RtProvisioningOptions =
  | { driver: 'simulator' }
  | { driver: 'epson_fpmate'; url: string; device_id?: string; serial: string; departments?: Record<string, number> };

/** The register's `fiscalization.rt` block. */
export interface RtFiscalization {
  driver: RtProvisioningOptions['driver'];
  serial: string;
  /** The open fiscal day when the register was fiscalized; closures move it on. */
  fiscal_day: number;
}

/** A simulated matricola: 2 digits, 3 letters, 6 digits, like 99MEY026532 (reference §1); SIM marks the simulator. */
const simulatedSerial = () => `99SIM${String(randomInt(1_000_000)).padStart(6, '0')}`;

const INSERT_DEVICE = `
  INSERT INTO rt_devices (id, merchant_id, register_id, driver, serial, url, printer_device_id, departments, certificate, sealed_private_key)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10)`;

/**
 * Attaches an RT to an Italian register: the service's simulator by default, or an
 * Epson printer reached over HTTP. The simulator starts at fiscal day 1; a
 * printer's numbering is read from its answers. The simulator gets its own
 * sandbox device certificate, which signs its COR10 files; a printer signs its own.
 */
export async function provisionRtDevice(sql: SqlClient, deps: FiscalDependencies, request: ProvisioningRequest): Promise<DeviceIdentity> {
  const options = (request.options ?? { driver: 'simulator' }) as RtProvisioningOptions;
  const printer = options.driver === 'epson_fpmate' ? options : null;
  // A printer configuration that cannot work is refused now, naming the field, not at the first sale.
  if (printer) epsonFpmateSettings({ url: printer.url, deviceId: printer.device_id, serial: printer.serial, departments: printer.departments });
  const serial = printer ? printer.serial : simulatedSerial();
  const id = newId('rtv');
  const keys = printer ? null : sealDeviceKeyPair(deps.secrets, await createSandboxDeviceCertificate(serial, deps.clock()));
  await sql.query(INSERT_DEVICE, [
    id,
    request.merchantId,
    request.registerId,
    options.driver,
    serial,
    printer?.url ?? null,
    printer?.device_id ?? null,
    printer?.departments ? JSON.stringify(printer.departments) : null,
    keys?.certificate ?? null,
    keys?.sealedPrivateKey ?? null,
  ]);
  const fiscalization: RtFiscalization = { driver: options.driver, serial, fiscal_day: 1 };
  return { deviceId: id, serial, clientId: request.registerId, details: { ...fiscalization } };
}
