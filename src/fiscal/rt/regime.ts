import { toAmount } from '../../domain/money.js';
import type { FiscalRegime } from '../fiscalDevice.js';
import { SimulatedFaultsDevice, type DeviceSimulation } from '../simulatedFaults.js';
import { rtReceiptSection } from './fiscalInformation.js';
import { provisionRtDevice } from './provisioning.js';
import { rtDocumentOf } from './rtDocument.js';
import { rtDriverFor } from './drivers.js';
import { lockedRtDeviceOf, RtFiscalDevice, type RtDeviceRow } from './rtFiscalDevice.js';
import { rtTaxOfLine } from './rtTaxes.js';
import { AUTHORITY_SIMULATIONS } from './transmission/sandboxAuthority.js';
import { grossByVatRate, vatRateOfLine } from '../../domain/vatBreakdown.js';

/**
 * Italy, RT (DESIGN "Italy: RT"): each register is served by an RT device
 * through a driver; a sale is a documento commerciale, a return a documento di
 * reso that names its original.
 */
export const rt: FiscalRegime = {
  regime: 'RT',
  countryCode: 'ITA',
  blockName: 'rt',

  provision: (sql, deps, request) => provisionRtDevice(sql, deps, request),

  open(register, deps) {
    const locked = (register.lockedDeviceState as RtDeviceRow | null | undefined) ?? null;
    const device = new RtFiscalDevice(register.deviceId, register.id, (row) => rtDriverFor(row, deps), locked);
    const simulation = register.deviceSimulation as DeviceSimulation;
    return deps.environment === 'sandbox' && simulation !== 'ok' ? new SimulatedFaultsDevice(device, simulation) : device;
  },

  lockedDeviceStateSql: lockedRtDeviceOf,

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

  authoritySimulation: {
    modes: AUTHORITY_SIMULATIONS,
    async set(sql, register, mode) {
      await sql.query('UPDATE rt_devices SET authority_simulation = $2 WHERE id = $1', [register.deviceId, mode]);
    },
  },
};
