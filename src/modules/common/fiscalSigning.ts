import type { AppContext } from '../../context.js';
import type { SqlClient } from '../../db/sql.js';
import { FiscalDeviceError } from '../../fiscal/deviceErrors.js';
import { FiscalPreconditionError, RegimeRuleError, type FiscalRecord, type FiscalRegister, type RecordToSign } from '../../fiscal/fiscalDevice.js';
import { signRecord, type SigningDependencies, type SigningOutcome } from '../../fiscal/signing.js';
import { unprocessable, validationError } from '../../domain/errors.js';

export const signingDependencies = (ctx: AppContext): SigningDependencies => ({
  secrets: ctx.secrets,
  clock: ctx.clock,
  environment: ctx.config.environment,
  deviceTimeoutMs: ctx.config.deviceTimeoutMs,
});

/** The fiscal layer's errors as the domain errors the contract answers them with (section 7: 422 on fiscal calls); anything else as it is. */
export function fiscalFailureAsDomainError(error: unknown, registerId: string): unknown {
  if (error instanceof FiscalPreconditionError) return validationError(error.message, error.details);
  if (error instanceof RegimeRuleError) return unprocessable('regime_validation_failed', error.message, { field: error.field, regime: error.regime });
  if (error instanceof FiscalDeviceError && error.reason === 'inactive') {
    // The device was taken out of service (decommissioned, closed) after the register's state was read:
    // the register lacks an active fiscal device (contract 7, 422), and a retry will not change that.
    return validationError(`The register has no active fiscal device: ${error.message}`, { field: 'register_id', register_id: registerId });
  }
  if (error instanceof FiscalDeviceError) {
    // A device failure is the outside world's: a retry under the same Idempotency-Key signs again.
    return validationError(`Fiscal signing failed in phase ${error.phase}: ${error.message}`, {
      ...error.details,
      phase: error.phase,
      reason: error.reason,
      register_id: registerId,
    }).markTransient();
  }
  return error;
}

/**
 * Signs with the register's device inside the caller's transaction; any failure
 * is 422 and rolls the caller's transaction back (Style M completions, session events).
 */
export async function signOrReject(ctx: AppContext, sql: SqlClient, register: FiscalRegister, record: RecordToSign): Promise<FiscalRecord | null> {
  try {
    const outcome = await signRecord(signingDependencies(ctx), sql, register, record, 'throw');
    return outcome.ok ? outcome.record : null;
  } catch (error) {
    throw fiscalFailureAsDomainError(error, register.id);
  }
}

/**
 * Signs with the register's device inside the caller's transaction; a device
 * failure is returned for the caller to record (Style O refunds and their retry),
 * a register that cannot sign is 422.
 */
export async function signOrRecordFailure(
  ctx: AppContext,
  sql: SqlClient,
  register: FiscalRegister,
  record: RecordToSign,
): Promise<SigningOutcome> {
  try {
    return await signRecord(signingDependencies(ctx), sql, register, record, 'record');
  } catch (error) {
    throw fiscalFailureAsDomainError(error, register.id);
  }
}
