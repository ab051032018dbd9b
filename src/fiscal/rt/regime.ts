import type { SqlClient } from '../../db/sql.js';
import { toAmount } from '../../domain/money.js';
import type { FiscalRegime } from '../fiscalDevice.js';
import { SimulatedFaultsDevice, type DeviceSimulation } from '../simulatedFaults.js';
import { rtReceiptSection } from './fiscalInformation.js';
import { provisionRtDevice } from './provisioning.js';
import { rtDocumentOf } from './rtDocument.js';
import type { RtDriver } from './rtDriver.js';
import { RtFiscalDevice, type RtDeviceRow } from './rtFiscalDevice.js';
import { rtTaxOfLine } from './rtTaxes.js';
import { EpsonFpmateDriver } from './epsonFpmate/epsonFpmateDriver.js';
import { SimulatorDriver } from './simulator/simulatorDriver.js';
import { grossByVatRate, vatRateOfLine } from '../../domain/vatBreakdown.js';

interface DriverContext {
  clock: () => Date;
  deviceTimeoutMs: number;
}

/** Each driver by its name in rt_devices; a new driver is one more entry. */
const DRIVERS: Readonly<Record<string, (device: RtDeviceRow, sql: SqlClient, context: DriverContext) => RtDriver>> = {
  simulator: (device, _sql, { clock }) => new SimulatorDriver(device.id, clock),
  epson_fpmate: (device, _sql, { clock, deviceTimeoutMs }) =>
    new EpsonFpmateDriver(
      { url: device.url!, deviceId: device.printer_device_id ?? undefined, serial: device.serial, departments: device.departments ?? undefined },
      { timeoutMs: deviceTimeoutMs, clock },
    ),
};

/**
 * Italy, RT (DESIGN "Italy: RT"): each register is served by an RT device
 * through a driver; a sale is a documento commerciale, a return a documento di
 * reso that names its original.
 */
export const rt: FiscalRegime = {
  regime: 'RT',
  countryCode: 'ITA',
  blockName: 'rt',

  provision: (sql, _deps, request) => provisionRtDevice(sql, request),

  open(register, deps) {
    const device = new RtFiscalDevice(register.deviceId, register.id, (row, sql) => {
      const driver = DRIVERS[row.driver];
      if (!driver) throw new Error(`No RT driver ${row.driver} is built`);
      return driver(row, sql, deps);
    });
    const simulation = register.deviceSimulation as DeviceSimulation;
    return deps.environment === 'sandbox' && simulation !== 'ok' ? new SimulatedFaultsDevice(device, simulation) : device;
  },

  publish: (record) => record,
  receiptSection: (record) => rtReceiptSection(record as Parameters<typeof rtReceiptSection>[0]),
  lineTaxCode(line) {
    const tax = rtTaxOfLine(line, 0);
    return tax.kind === 'natura' ? tax.natura : null;
  },

  grossByVatRate(movement) {
    movement.lineItems.forEach(rtTaxOfLine);
    return grossByVatRate(
      {
        lines: movement.lineItems.map((line) => ({ rate: vatRateOfLine(line), gross: line.total_amount })),
        cartDiscounts: movement.cartLevelDiscounts.map((discount) => discount.amount),
        tip: toAmount(movement.tipAmount),
      },
      2,
    );
  },

  checkGoodsMovement(movement) {
    rtDocumentOf(movement);
  },

  fiscalizationBlock: (details) => ({ rt: details }),
  signatureAlgorithm: () => null,
};
