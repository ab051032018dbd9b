import type { SqlClient } from '../../db/sql.js';
import { randomBase62 } from '../../lib/ids.js';
import type { DeviceDetails, DeviceIdentity, DeviceOptions, FiscalDependencies, FiscalRegister } from '../fiscalDevice.js';
import type { Tse } from './device.js';
import type { FiskalySignDeOptions } from './fiskalySignDe/connection.js';
import { FiskalySignDeTse } from './fiskalySignDe/fiskalySignDeTse.js';
import { provisionFiskalyTse } from './fiskalySignDe/provisioning.js';
import { provisionSoftwareTse, SoftwareTse, type TseState } from './softwareTse.js';

type Dependencies = FiscalDependencies & DeviceOptions;

/** One way a German register reaches its TSE: the service's software TSE or a certified remote one. */
export interface TseDriver {
  /** Attaches the register to its TSE inside the caller's transaction; `options` is the fiscalize body's `tse` block. */
  provision(sql: SqlClient, deps: Dependencies, merchantId: string, options: Record<string, unknown>): Promise<DeviceIdentity>;
  open(register: FiscalRegister & { deviceId: string; clientId: string }, deps: Dependencies): Tse;
}

/** The software TSE's `fiscalization.tse` block. */
export interface SoftwareTseFiscalization {
  driver: 'software';
  serial: string;
  signature_algorithm: string;
}

const software: TseDriver = {
  async provision(sql, deps, merchantId) {
    const tse = await provisionSoftwareTse(sql, deps.secrets, merchantId);
    const fiscalization: SoftwareTseFiscalization = { driver: 'software', serial: tse.serialNumber, signature_algorithm: tse.algorithm };
    // TR-03151 client ids are PrintableString: no underscore, so not the register id itself.
    return { deviceId: tse.id, serial: tse.serialNumber, clientId: `ERS-${randomBase62(20)}`, details: { ...fiscalization } };
  },
  open: (register, deps) => new SoftwareTse(register.deviceId, deps.secrets, (register.lockedDeviceState as TseState | null | undefined) ?? null),
};

const fiskalySignDe: TseDriver = {
  provision: (sql, deps, merchantId, options) => provisionFiskalyTse(sql, deps, merchantId, options as unknown as FiskalySignDeOptions),
  open: (register, deps) => new FiskalySignDeTse(register.deviceId, String(register.deviceDetails.client_id), deps.secrets, deps.deviceTimeoutMs),
};

/** Each driver by the name the fiscalize body and the register's device details give it; another cloud TSE is one more entry. */
const TSE_DRIVERS: Readonly<Record<string, TseDriver>> = { software, fiskaly_sign_de: fiskalySignDe };

/** The register's driver; registers fiscalized before drivers existed name none and have the software TSE. */
export const driverNameOf = (details: DeviceDetails): string => (typeof details.driver === 'string' ? details.driver : 'software');

export function tseDriverNamed(name: string): TseDriver {
  const driver = TSE_DRIVERS[name];
  if (!driver) throw new Error(`No TSE driver ${name} is built`);
  return driver;
}
