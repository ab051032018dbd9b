import type { FiscalRegime, FiscalRegister, DeviceOptions, FiscalDependencies } from '../fiscalDevice.js';
import { lockedCashBoxOf, RksvCashBox, type CashBoxStateJson } from './cashBox.js';
import { rksvReceiptSection, type RksvFiscalRecord } from './fiscalInformation.js';
import { provisionRksvCashRegister } from './provisioning.js';
import { SimulatedFailingSignatureUnit, type SignatureUnit } from './signatureUnit.js';
import { signatureUnitDriverNamed, unitDriverNameOf, type StoredSignatureUnit } from './signatureUnitDrivers.js';
import { grossByAustrianRate, taxSetOf } from './taxSets.js';
import type { DeviceSimulation } from '../simulatedFaults.js';
import { FINANZ_ONLINE_SIMULATIONS } from './finanzOnline/simulatedFinanzOnline.js';
import { resumeRegisterSubmissions } from './finanzOnline/submissions.js';

/**
 * The register's receipt chain with its signature unit: the one its driver
 * names (the software unit, or a trust service's online unit), or in the
 * sandbox the failure its simulation asks for.
 */
export function openRksvCashBox(register: FiscalRegister & { deviceId: string }, deps: FiscalDependencies & DeviceOptions): RksvCashBox {
  const simulation = register.deviceSimulation as DeviceSimulation;
  const unitOf = (stored: StoredSignatureUnit): SignatureUnit =>
    deps.environment === 'sandbox' && simulation !== 'ok'
      ? new SimulatedFailingSignatureUnit(simulation)
      : signatureUnitDriverNamed(stored.driver).open(stored, deps);
  return new RksvCashBox(
    register.deviceId,
    register.id,
    unitOf,
    { secrets: deps.secrets, clock: deps.clock, signatureTimeoutMs: deps.deviceTimeoutMs },
    (register.lockedDeviceState as CashBoxStateJson | null | undefined) ?? null,
  );
}

/**
 * Austria, RKSV (DESIGN "Austria: RKSV"): each register has its own AES key
 * and receipt chain, signed by the service's software unit as a closed system
 * (suite R1-AT0) or, chosen at fiscalization (the body's `rksv` block), by a
 * trust service's online unit with its certificate (A-Trust: R1-AT1).
 */
export const rksv: FiscalRegime = {
  regime: 'RKSV',
  countryCode: 'AUT',
  blockName: 'rksv',

  provision: provisionRksvCashRegister,

  open(register, deps) {
    return openRksvCashBox(register, deps);
  },

  lockedDeviceStateSql: lockedCashBoxOf,

  publish: (record) => record,
  receiptSection: (record) => rksvReceiptSection(record as RksvFiscalRecord),

  grossByVatRate: grossByAustrianRate,

  checkGoodsMovement(movement) {
    taxSetOf(movement);
  },

  fiscalizationBlock: (details) => ({ rksv: { ...details, driver: unitDriverNameOf(details) } }),
  signatureAlgorithm: () => 'ES256',

  // FinanzOnline's answers; a submission that waits for a changed login is tried again with the new simulation.
  authoritySimulation: {
    modes: FINANZ_ONLINE_SIMULATIONS,
    async set(sql, register, mode) {
      await sql.query('UPDATE rksv_cash_registers SET authority_simulation = $2 WHERE id = $1', [register.deviceId, mode]);
      await resumeRegisterSubmissions(sql, register.id);
    },
  },
};
