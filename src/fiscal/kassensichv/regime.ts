import { randomBase62 } from '../../lib/ids.js';
import { FiscalPreconditionError, type FiscalRegime } from '../fiscalDevice.js';
import { kassenSichVReceiptSection, publishKassenSichVRecord } from './fiscalInformation.js';
import { grossByGermanVatRate } from './kassenbeleg.js';
import { KassenSichVDevice } from './kassenSichVDevice.js';
import { goodsMovementProcess } from './process.js';
import { provisionSoftwareTse, SoftwareTse } from './softwareTse.js';
import { SimulatedFaultsDevice, type DeviceSimulation } from '../simulatedFaults.js';

/**
 * Germany, KassenSichV (contract 2.2, DESIGN "Fiscal devices"): each register
 * gets its own software TSE after BSI TR-03151 and a TR-03151 client id.
 */
export const kassenSichV: FiscalRegime = {
  regime: 'KassenSichV',
  countryCode: 'DEU',
  blockName: null,

  async provision(sql, deps, request) {
    const tse = await provisionSoftwareTse(sql, deps.secrets, request.merchantId);
    // TR-03151 client ids are PrintableString: no underscore, so not the register id itself.
    return { deviceId: tse.id, serial: tse.serialNumber, clientId: `ERS-${randomBase62(20)}`, details: { signature_algorithm: tse.algorithm } };
  },

  open(register, deps) {
    const device = new KassenSichVDevice(new SoftwareTse(register.deviceId, deps.secrets), register.clientId);
    const simulation = register.deviceSimulation as DeviceSimulation;
    return deps.environment === 'sandbox' && simulation !== 'ok' ? new SimulatedFaultsDevice(device, simulation) : device;
  },

  fiscalizationBlock: () => ({}),
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
    const [tse] = await sql.query<{ status: string; admin_pin_hash: string | null }>(
      'SELECT status, admin_pin_hash FROM tse_devices WHERE id = $1 FOR UPDATE',
      [deviceId],
    );
    if (!tse || tse.status !== 'active') {
      throw new FiscalPreconditionError('The register has no active fiscal device or client', { field: 'register_id' });
    }
    if (!tse.admin_pin_hash) {
      throw new FiscalPreconditionError('The fiscal device has no admin PIN, so it cannot be decommissioned', { field: 'register_id' });
    }
    await sql.query(`UPDATE tse_devices SET status = 'decommissioned', decommissioned_at = $2 WHERE id = $1`, [deviceId, at]);
  },
};
