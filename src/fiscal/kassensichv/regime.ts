import { FiscalPreconditionError, type FiscalRegime } from '../fiscalDevice.js';
import { kassenSichVReceiptSection, publishKassenSichVRecord } from './fiscalInformation.js';
import { grossByGermanVatRate } from './kassenbeleg.js';
import { KassenSichVDevice } from './kassenSichVDevice.js';
import { goodsMovementProcess } from './process.js';
import { lockedSoftwareTseOf } from './softwareTse.js';
import { driverNameOf, tseDriverNamed } from './tseDrivers.js';
import { SimulatedFaultsDevice, type DeviceSimulation } from '../simulatedFaults.js';

/**
 * Germany, KassenSichV (contract 2.2, DESIGN "Fiscal devices"): each register
 * gets its own software TSE after BSI TR-03151 and a TR-03151 client id, or is
 * attached to a certified cloud TSE through a driver (the fiscalize body's
 * `tse` block, DESIGN "Production drivers").
 */
export const kassenSichV: FiscalRegime = {
  regime: 'KassenSichV',
  countryCode: 'DEU',
  blockName: 'tse',

  provision(sql, deps, request) {
    const options = request.options ?? { driver: 'software' };
    return tseDriverNamed(driverNameOf(options)).provision(sql, deps, request.merchantId, options);
  },

  open(register, deps) {
    const tse = tseDriverNamed(driverNameOf(register.deviceDetails)).open(register, deps);
    const device = new KassenSichVDevice(tse, register.clientId);
    const simulation = register.deviceSimulation as DeviceSimulation;
    return deps.environment === 'sandbox' && simulation !== 'ok' ? new SimulatedFaultsDevice(device, simulation) : device;
  },

  lockedDeviceStateSql: lockedSoftwareTseOf,

  fiscalizationBlock: (details) => ({ tse: { ...details, driver: driverNameOf(details) } }),
  signatureAlgorithm: (details) => (typeof details.signature_algorithm === 'string' ? details.signature_algorithm : null),

  publish: publishKassenSichVRecord,
  receiptSection: kassenSichVReceiptSection,

  grossByVatRate(movement) {
    return grossByGermanVatRate({
      line_items: movement.lineItems,
      cart_level_discounts: movement.cartLevelDiscounts,
      tip_amount: movement.tipAmount,
    });
  },

  checkGoodsMovement(movement) {
    goodsMovementProcess(movement);
  },

  async decommission(sql, deviceId, at) {
    const [tse] = await sql.query<{ status: string; admin_pin_hash: string | null; driver: string }>(
      'SELECT status, admin_pin_hash, driver FROM tse_devices WHERE id = $1 FOR UPDATE',
      [deviceId],
    );
    if (!tse || tse.status !== 'active') {
      throw new FiscalPreconditionError('The register has no active fiscal device or client', { field: 'register_id' });
    }
    if (tse.driver !== 'software') {
      throw new FiscalPreconditionError('A cloud TSE is taken out of service at its vendor (fiskaly: disable the client or the TSS)', { field: 'register_id' });
    }
    if (!tse.admin_pin_hash) {
      throw new FiscalPreconditionError('The fiscal device has no admin PIN, so it cannot be decommissioned', { field: 'register_id' });
    }
    await sql.query(`UPDATE tse_devices SET status = 'decommissioned', decommissioned_at = $2 WHERE id = $1`, [deviceId, at]);
  },
};
