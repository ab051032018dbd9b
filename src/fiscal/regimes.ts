import {
  FiscalPreconditionError,
  type DeviceOptions,
  type FiscalDependencies,
  type FiscalDevice,
  type FiscalRecord,
  type FiscalRegime,
  type FiscalRegister,
  type GoodsMovementContent,
  type GoodsMovementTurnover,
  type PublishedFiscalRecord,
  type ReceiptFiscalSection,
  type Regime,
} from './fiscalDevice.js';
import type { RateGross } from '../domain/vatBreakdown.js';
import { kassenSichV } from './kassensichv/regime.js';
import { rksv } from './rksv/regime.js';
import { rt } from './rt/regime.js';

/** Every regime the service can fiscalize a register under; a new regime is one more entry. */
const BUILT_REGIMES: readonly FiscalRegime[] = [kassenSichV, rksv, rt];

/** The countries whose registers can be fiscalized. */
export function builtRegimeCountries(): string[] {
  return BUILT_REGIMES.map((regime) => regime.countryCode);
}

/** The regime of a location's country, or undefined when the service has none for it. */
export function regimeForCountry(countryCode: string): FiscalRegime | undefined {
  return BUILT_REGIMES.find((regime) => regime.countryCode === countryCode);
}

/** The regime a register was fiscalized under. */
export function regimeNamed(name: string | null): FiscalRegime | undefined {
  return BUILT_REGIMES.find((regime) => regime.regime === name);
}

/** The regime that signed `record`; records are only ever written by a built regime. */
function regimeOf(record: { regime: string }): FiscalRegime {
  const regime = regimeNamed(record.regime);
  if (!regime) throw new Error(`No fiscal regime ${record.regime} is built`);
  return regime;
}

/** A stored record as responses publish it. */
export const publishedRecord = (record: FiscalRecord): PublishedFiscalRecord => regimeOf(record).publish(record);

/** What a printed receipt shows of a published record. */
export const receiptSectionOf = (record: PublishedFiscalRecord): ReceiptFiscalSection => regimeOf(record).receiptSection(record);

/** The code a receipt prints for a signed line's tax instead of its rate, or null. */
export const lineTaxCodeOf = (record: PublishedFiscalRecord, line: GoodsMovementContent['lineItems'][number]): string | null =>
  regimeOf(record).lineTaxCode?.(line) ?? null;

/** The gross per VAT rate the regime behind `record` signed for a goods movement. */
export const signedGrossByVatRate = (record: PublishedFiscalRecord, movement: GoodsMovementTurnover): RateGross[] =>
  regimeOf(record).grossByVatRate(movement);

/**
 * The regime and device of a register that can sign. A register that cannot is
 * a FiscalPreconditionError (contract 7: complete on a register that is not
 * fiscalized or lacks an active device or client).
 */
export function signingRegimeOf(register: FiscalRegister): { regime: FiscalRegime; deviceId: string; clientId: string } {
  const regime = regimeNamed(register.regime);
  if (register.fiscalizationStatus !== 'fiscalized' || !regime) {
    throw new FiscalPreconditionError('The register is not fiscalized', {
      field: 'register_id',
      register_id: register.id,
      fiscalization_status: register.fiscalizationStatus,
    });
  }
  const { deviceId, clientId } = register;
  if (!deviceId || !clientId) {
    throw new FiscalPreconditionError('The register has no active fiscal device or client', { field: 'register_id', register_id: register.id });
  }
  return { regime, deviceId, clientId };
}

/**
 * What a query adds to read every regime's locked device state (FiscalRegime.lockedDeviceStateSql)
 * for the registers row `register`: its lateral joins, and the column that gives it as `device_state`
 * (null where the register's regime has none, or another transaction holds it).
 */
export function lockedDeviceStateOf(register: string): { joins: string; column: string } {
  const reads = BUILT_REGIMES.flatMap((regime) => (regime.lockedDeviceStateSql ? [regime.lockedDeviceStateSql(register)] : []));
  return {
    joins: reads.map((read, index) => `LEFT JOIN LATERAL (${read}) device_state_${index} ON true`).join('\n'),
    column: reads.length ? `COALESCE(${reads.map((_, index) => `device_state_${index}.device_state`).join(', ')}) AS device_state` : 'NULL::json AS device_state',
  };
}

/** The one place that chooses a register's device: its regime's, opened with the sandbox fault simulation when one is set. */
export function deviceFor(register: FiscalRegister, deps: FiscalDependencies & DeviceOptions): { regime: Regime; device: FiscalDevice } {
  const { regime, deviceId, clientId } = signingRegimeOf(register);
  return { regime: regime.regime, device: regime.open({ ...register, deviceId, clientId }, deps) };
}
