import type { FiscalRegime, FiscalRegister, DeviceOptions, FiscalDependencies } from '../fiscalDevice.js';
import { RksvCashBox } from './cashBox.js';
import { rksvReceiptSection, type RksvFiscalRecord } from './fiscalInformation.js';
import { provisionRksvCashRegister } from './provisioning.js';
import { SimulatedFailingSignatureUnit, SoftwareSignatureUnit, type SignatureUnit } from './signatureUnit.js';
import { grossByAustrianRate, taxSetOf } from './taxSets.js';
import type { DeviceSimulation } from '../simulatedFaults.js';

/**
 * The register's receipt chain with its signature unit: the software unit, or
 * in the sandbox the failure its simulation asks for.
 */
export function openRksvCashBox(register: FiscalRegister & { deviceId: string }, deps: FiscalDependencies & DeviceOptions): RksvCashBox {
  const simulation = register.deviceSimulation as DeviceSimulation;
  const unitOf = (sealedPrivateKey: string): SignatureUnit =>
    deps.environment === 'sandbox' && simulation !== 'ok'
      ? new SimulatedFailingSignatureUnit(simulation)
      : new SoftwareSignatureUnit(register.deviceId, sealedPrivateKey, deps.secrets);
  return new RksvCashBox(register.deviceId, register.id, unitOf, { secrets: deps.secrets, clock: deps.clock, signatureTimeoutMs: deps.deviceTimeoutMs });
}

/**
 * Austria, RKSV (DESIGN "Austria: RKSV"): each register is a closed system
 * (suite R1-AT0) with its own software signature unit, AES key and receipt chain.
 */
export const rksv: FiscalRegime = {
  regime: 'RKSV',
  countryCode: 'AUT',
  blockName: 'rksv',

  provision: provisionRksvCashRegister,

  open(register, deps) {
    return openRksvCashBox(register, deps);
  },

  publish: (record) => record,
  receiptSection: (record) => rksvReceiptSection(record as RksvFiscalRecord),

  grossByVatRate: grossByAustrianRate,

  checkGoodsMovement(movement) {
    taxSetOf(movement);
  },

  fiscalizationBlock: (details) => ({ rksv: details }),
  signatureAlgorithm: () => 'ES256',
};
