// The regime-neutral fiscal port: one registry of regimes, one place that chooses a
// register's device, and a fault simulation that wraps any regime's device.
import { describe, expect, it } from 'vitest';
import { FiscalDeviceError } from '../../src/fiscal/deviceErrors.js';
import { FiscalPreconditionError, type DeviceExchange, type FiscalDevice, type FiscalRecord, type RecordToSign } from '../../src/fiscal/fiscalDevice.js';
import { kassenSichV } from '../../src/fiscal/kassensichv/regime.js';
import { deviceFor, regimeForCountry, regimeNamed } from '../../src/fiscal/regimes.js';
import { SimulatedFaultsDevice } from '../../src/fiscal/simulatedFaults.js';
import { SecretBox } from '../../src/lib/secretBox.js';

const secrets = new SecretBox(Buffer.alloc(32, 1));
const fiscalized = {
  id: 'reg_1',
  regime: 'KassenSichV',
  fiscalizationStatus: 'fiscalized',
  deviceId: 'tse_1',
  clientId: 'ERS-1',
  deviceSimulation: 'ok',
  deviceDetails: {},
};
const record: RecordToSign = { kind: 'cash_transfer', documentNumber: '7', amount: '10.00', currency: 'EUR' };
const signed = { regime: 'KassenSichV' } as FiscalRecord;

/** Runs exchanges as the signing flow would, without a database; records the phases asked for. */
function exchanges() {
  const phases: number[] = [];
  const exchange: DeviceExchange = (phase, work) => {
    phases.push(phase);
    return work({ query: async () => [], write: async () => undefined }, new AbortController().signal);
  };
  return { phases, exchange };
}

class RecordingDevice implements FiscalDevice {
  calls = 0;
  async sign(): Promise<FiscalRecord> {
    this.calls += 1;
    return signed;
  }
}

describe('the regime registry', () => {
  it('serves Germany with KassenSichV and names no regime for countries not built', () => {
    expect(regimeForCountry('DEU')).toBe(kassenSichV);
    expect(regimeNamed('KassenSichV')).toBe(kassenSichV);
    expect(regimeForCountry('FRA')).toBeUndefined();
    expect(regimeNamed(null)).toBeUndefined();
  });
});

const deviceDeps = { secrets, clock: () => new Date(), deviceTimeoutMs: 1000 };

describe('deviceFor: the one place that chooses a register’s device', () => {
  it('refuses a register that is not fiscalized, or has no device or client', () => {
    expect(() => deviceFor({ ...fiscalized, fiscalizationStatus: 'not_fiscalized' }, { ...deviceDeps, environment: 'sandbox' })).toThrow(
      FiscalPreconditionError,
    );
    expect(() => deviceFor({ ...fiscalized, deviceId: null }, { ...deviceDeps, environment: 'sandbox' })).toThrow(/no active fiscal device/);
    expect(() => deviceFor({ ...fiscalized, regime: 'Unknown' }, { ...deviceDeps, environment: 'sandbox' })).toThrow(/not fiscalized/);
  });

  it('wraps the device in the fault simulation in the sandbox only', () => {
    const simulated = { ...fiscalized, deviceSimulation: 'unreachable' };
    expect(deviceFor(simulated, { ...deviceDeps, environment: 'sandbox' }).device).toBeInstanceOf(SimulatedFaultsDevice);
    expect(deviceFor(simulated, { ...deviceDeps, environment: 'production' }).device).not.toBeInstanceOf(SimulatedFaultsDevice);
    expect(deviceFor(fiscalized, { ...deviceDeps, environment: 'sandbox' }).device).not.toBeInstanceOf(SimulatedFaultsDevice);
  });
});

describe('SimulatedFaultsDevice wraps any device', () => {
  it('unreachable: phase 1, the device is never reached', async () => {
    const inner = new RecordingDevice();
    const { exchange } = exchanges();
    await expect(new SimulatedFaultsDevice(inner, 'unreachable').sign(exchange, record)).rejects.toMatchObject({ phase: 1, reason: 'unreachable' });
    expect(inner.calls).toBe(0);
  });

  it('reject_after_start: the device did its work, then phase 2', async () => {
    const inner = new RecordingDevice();
    const { exchange } = exchanges();
    const failure = await new SimulatedFaultsDevice(inner, 'reject_after_start').sign(exchange, record).catch((error) => error);
    expect(failure).toBeInstanceOf(FiscalDeviceError);
    expect(failure).toMatchObject({ phase: 2, reason: 'rejected' });
    expect(inner.calls).toBe(1);
  });

  it('timeout: hangs inside a phase-1 exchange until the caller gives up', async () => {
    const inner = new RecordingDevice();
    const controller = new AbortController();
    const phases: number[] = [];
    const exchange: DeviceExchange = (phase, work) => {
      phases.push(phase);
      setTimeout(() => controller.abort(), 20);
      return work({ query: async () => [], write: async () => undefined }, controller.signal);
    };
    await expect(new SimulatedFaultsDevice(inner, 'timeout').sign(exchange, record)).rejects.toMatchObject({ phase: 1 });
    expect(phases).toEqual([1]);
    expect(inner.calls).toBe(0);
  });
});
