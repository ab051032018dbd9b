import type { SqlClient } from '../db/sql.js';
import { FiscalDeviceError, withDeviceTimeout } from './deviceErrors.js';
import type { DeviceOptions, FiscalDependencies, FiscalRecord, FiscalRegister, RecordToSign, Regime } from './fiscalDevice.js';
import { deviceFor } from './regimes.js';

export type SigningDependencies = FiscalDependencies & DeviceOptions;

/** Why a device failed to sign, as a caller that completes anyway records it. */
export interface SigningFailure {
  regime: Regime;
  phase: 1 | 2;
  reason: FiscalDeviceError['reason'];
  message: string;
  failedAt: Date;
}

export type SigningOutcome = { ok: true; record: FiscalRecord | null } | { ok: false; failure: SigningFailure };

/**
 * The one signing flow (Style M completions, session events, Style O refunds):
 * the register's device signs `record` inside the caller's transaction `sql`,
 * each exchange bounded by the device timeout.
 *
 * `onDeviceFailure`:
 * - 'throw': a FiscalDeviceError reaches the caller, whose transaction rolls
 *   back with everything the device did (contract: 422, the operation stays open);
 * - 'record': the device's work is rolled back to a savepoint and the failure
 *   returned, so the caller can go on and record it (a refund completes with
 *   fiscal_state failed and is signed later).
 *
 * A register that cannot sign at all is a FiscalPreconditionError, a record the
 * regime cannot sign a RegimeRuleError, whatever the policy.
 */
export async function signRecord(
  deps: SigningDependencies,
  sql: SqlClient,
  register: FiscalRegister,
  record: RecordToSign,
  onDeviceFailure: 'throw' | 'record',
): Promise<SigningOutcome> {
  const { regime, device } = deviceFor(register, deps);
  const sign = () => device.sign((phase, exchange) => withDeviceTimeout(phase, deps.deviceTimeoutMs, sql, exchange), record);
  if (onDeviceFailure === 'throw') return { ok: true, record: await sign() };
  await sql.query('SAVEPOINT fiscal_signing');
  try {
    const signed = await sign();
    await sql.query('RELEASE SAVEPOINT fiscal_signing');
    return { ok: true, record: signed };
  } catch (error) {
    if (!(error instanceof FiscalDeviceError)) throw error;
    await sql.query('ROLLBACK TO SAVEPOINT fiscal_signing');
    return { ok: false, failure: { regime, phase: error.phase, reason: error.reason, message: error.message, failedAt: new Date() } };
  }
}
